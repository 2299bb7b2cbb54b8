"""Clear errors: a missing oneDNN, an unknown codegen, a codegen failing on a
region, and the packed entry's argument checks on an external kernel."""

import numpy as np
import pytest
from xdsl.utils.exceptions import PassFailedException

import xtvm
from xtvm.byoc.registry import CodegenError
from xtvm.ir.parse import parse_module
from xtvm.driver.pipeline import mlir_context

GRAPH = """
func.func @main(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %d = relay.nn.dense %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %r = relay.nn.relu %d : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
"""


def graph():
    return parse_module(GRAPH, "graph.mlir", mlir_context())


def test_missing_onednn_names_the_region_and_its_ops(monkeypatch):
    monkeypatch.setenv("DNNL_ROOT", "/nonexistent/onednn")
    with pytest.raises(PassFailedException) as err:
        xtvm.build(graph(), byoc=["dnnl"])
    message = str(err.value)
    assert "codegen 'dnnl' failed on region @tvmgen_default_dnnl_main_0" in message
    assert "dnnl.dense_relu(relay.nn.dense, relay.nn.relu)" in message
    assert "oneDNN is missing: no dnnl.h and libdnnl.so in DNNL_ROOT=/nonexistent/onednn" in message
    assert "apt-get install libdnnl-dev" in message


def test_unknown_codegen_lists_the_known_ones():
    known = "unknown external codegen 'tensorrt' \\(known: ccompiler, dnnl\\)"
    with pytest.raises(CodegenError, match=known):
        xtvm.build(graph(), byoc=["tensorrt"])


def test_external_kernel_checks_its_arguments():
    lib = xtvm.build(graph(), byoc=["ccompiler"])
    kernel = lib["tvmgen_default_ccompiler_main_0"]
    x = xtvm.nd.array(np.ones((2, 8), np.float32))
    w = xtvm.nd.array(np.ones((4, 8), np.float32))
    out = xtvm.nd.array(np.zeros((2, 4), np.float32))
    kernel(x, w, out)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 4), 8.0, np.float32))
    with pytest.raises(Exception, match="shape"):
        kernel(x, xtvm.nd.array(np.ones((4, 7), np.float32)), out)


def test_c_compiler_error_names_the_external_kernel_and_its_ops(monkeypatch):
    from xtvm.byoc import ccompiler, registry
    from xtvm.codegen.cc import CCompilerError

    def broken(function, composites):
        return registry.ExternalSource("int32_t broken_impl(float* p0 {", libraries=("m",))

    codegen = registry.ExternalCodegen("ccompiler", ccompiler.PREDICATES, broken)
    monkeypatch.setitem(registry.CODEGENS, "ccompiler", lambda: codegen)
    with pytest.raises(CCompilerError) as err:
        xtvm.build(graph(), byoc=["ccompiler"])
    message = str(err.value)
    assert "the C compiler failed on external kernel @tvmgen_default_ccompiler_main_0" in message
    assert "(ops: relay.nn.dense, relay.nn.relu)" in message
