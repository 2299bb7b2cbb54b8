"""The issue's runtime examples, end to end: build, export, and run in a fresh
Python process from the exported shared library alone."""

import subprocess
import sys
import textwrap

import numpy as np
import onnx
import pytest

import xtvm
from xtvm.driver.pipeline import mlir_context
from xtvm.frontend import from_onnx

ADDONE_TIR = """
tir.prim_func @addone(%A: memref<3xf32>) attributes {arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  tir.for %i = %c0 to %c3 kind "serial" {
    %v = tir.load %A[%i] : memref<3xf32>
    %s = arith.addf %v, %one : f32
    tir.store %s, %A[%i] : memref<3xf32>
  }
  tir.return
}
"""


def run_fresh(code: str, cwd) -> str:
    """Run code in a new interpreter; return its stdout (fail with its stderr)."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_addone_from_textual_tir(tmp_path):
    from xdsl.parser import Parser

    module = Parser(mlir_context(), ADDONE_TIR).parse_module()
    xtvm.build(module).export_library(str(tmp_path / "addone.so"))
    out = run_fresh(
        """
        import numpy as np, xtvm
        mod = xtvm.runtime.load_module("addone.so"); a = xtvm.nd.array(np.array([1, 2, 3], "float32"), device=xtvm.cpu(0))
        mod["addone"](a); print(a.numpy())
        """,
        tmp_path,
    )
    assert out.strip() == "[2. 3. 4.]"


def test_addone_wrong_arguments_raise(tmp_path):
    from xdsl.parser import Parser

    lib = xtvm.build(Parser(mlir_context(), ADDONE_TIR).parse_module())
    with pytest.raises(xtvm.runtime.XTVMError, match=r"argument 'A'.*expected shape \(3,\) float32, got \(4,\) float32"):
        lib["addone"](xtvm.nd.array(np.zeros(4, "float32")))
    with pytest.raises(xtvm.runtime.XTVMError, match=r"argument 'A'.*float32.*got \(3,\) int32"):
        lib["addone"](xtvm.nd.array(np.zeros(3, "int32")))
    with pytest.raises(xtvm.runtime.XTVMError, match="addone"):
        lib["addone"]()


def test_te_kernel_library():
    from xtvm import te

    A = te.placeholder((5, 7), name="A")
    B = te.compute((5, 7), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    lib = xtvm.build(te.create_prim_func([A, B], "scale"))
    a = np.random.default_rng(0).standard_normal((5, 7)).astype("float32")
    b = xtvm.nd.empty((5, 7))
    lib["scale"](xtvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1, rtol=1e-6)


def onnxruntime_outputs(path, feeds):
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.mark.parametrize("batch", [1, 8])
def test_mlp_matches_onnxruntime(mlp_path, batch):
    mod, params = from_onnx(onnx.load(mlp_path), shape={"data": (batch, 784)})
    with xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, target="llvm", params=params)
    gmod = lib["default"](xtvm.cpu(0))
    data = np.random.default_rng(batch).standard_normal((batch, 784)).astype("float32")
    gmod["set_input"](0, data)
    gmod["run"]()
    out = gmod["get_output"](0).numpy()
    (ref,) = onnxruntime_outputs(mlp_path, {"data": data})
    assert out.shape == ref.shape == (batch, 10)
    rel = np.max(np.abs(out - ref) / np.maximum(np.abs(ref), 1e-6))
    assert rel <= 1e-5, rel


def test_mlp_exported_runs_in_fresh_process(mlp_path, tmp_path):
    mod, params = from_onnx(onnx.load(mlp_path), shape={"data": (2, 784)})
    xtvm.build(mod, params=params).export_library(str(tmp_path / "mlp.so"))
    data = np.random.default_rng(3).standard_normal((2, 784)).astype("float32")
    np.save(tmp_path / "data.npy", data)
    run_fresh(
        """
        import numpy as np, xtvm
        data = np.load("data.npy")
        factory = xtvm.runtime.load_module("mlp.so"); gmod = factory["default"](xtvm.cpu(0))
        gmod["set_input"](0, data); gmod["run"](); out = gmod["get_output"](0).numpy()
        gmod["set_input"]("data", data); gmod["run"](); again = gmod["get_output"](0).numpy()
        assert (out == again).all()
        np.save("out.npy", out)
        """,
        tmp_path,
    )
    (ref,) = onnxruntime_outputs(mlp_path, {"data": data})
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), ref, rtol=1e-5, atol=1e-7)


def test_mlp_wrong_inputs_are_clear_errors(mlp_path):
    mod, params = from_onnx(onnx.load(mlp_path), shape={"data": (1, 784)})
    gmod = xtvm.build(mod, params=params)["default"](xtvm.cpu(0))
    with pytest.raises(xtvm.runtime.XTVMError, match=r"'data'.*\(1, 784\).*float32.*\(1, 783\)"):
        gmod["set_input"]("data", np.zeros((1, 783), "float32"))
    with pytest.raises(xtvm.runtime.XTVMError, match=r"'data'.*float32.*float64"):
        gmod["set_input"]("data", np.zeros((1, 784), "float64"))
    with pytest.raises(xtvm.runtime.XTVMError, match="data"):
        gmod["set_input"]("nope", np.zeros((1, 784), "float32"))


def test_num_threads_read_at_executor_creation(mlp_path, tmp_path):
    mod, params = from_onnx(onnx.load(mlp_path), shape={"data": (1, 784)})
    xtvm.build(mod, params=params).export_library(str(tmp_path / "mlp.so"))
    out = subprocess.run(
        [sys.executable, "-c", "import xtvm; f = xtvm.runtime.load_module('mlp.so'); "
         "f['default'](xtvm.cpu(0)); print(xtvm.runtime.get_num_threads())"],
        cwd=tmp_path, capture_output=True, text=True, env={**__import__("os").environ, "XTVM_NUM_THREADS": "1"},
    )
    assert out.stdout.strip() == "1", out.stderr
