"""Models built with external codegens (``byoc=[...]``) against onnxruntime.

The MLP and SqueezeNet run in the default suite with ``dnnl`` and
``ccompiler``; ResNet-50 (oneDNN) is slow. Tolerances are the model tests'
(test/python/models/test_light_models.py). Each test also checks that the
codegen did take part of the graph (its kernels are in the library).
"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import xtvm
from xtvm.byoc.dnnl import find_onednn
from xtvm.byoc.registry import CodegenError
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import expose_logits, light_model_path, randomize_weights

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from make_mlp import make_mlp  # noqa: E402  (examples/mlp.onnx is generated, not tracked)

ort = pytest.importorskip("onnxruntime")


def _has_onednn() -> bool:
    try:
        find_onednn()
    except CodegenError:
        return False
    return True


needs_onednn = pytest.mark.skipif(not _has_onednn(), reason="oneDNN (libdnnl-dev) is not installed")


def assert_close(out: np.ndarray, ref: np.ndarray) -> None:
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4)


def model_and_input(name: str) -> tuple[onnx.ModelProto, np.ndarray]:
    if name == "mlp":
        model = make_mlp()
        shape = (2, 784)
    else:
        model = expose_logits(randomize_weights(onnx.load(light_model_path(name)), seed=0))
        shape = None
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    shape = shape or tuple(inp.shape)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    return model, x


def check_model(name: str, byoc: str) -> xtvm.runtime.Module:
    model, x = model_and_input(name)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    refs = sess.run(None, {inp.name: x})
    mod, params = from_onnx(model, shape={inp.name: x.shape})
    lib = xtvm.build(mod, params=params, byoc=[byoc])
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    for i, ref in enumerate(refs):
        assert_close(gmod.get_output(i).numpy(), ref)
    assert lib[f"tvmgen_default_{byoc}_main_0"] is not None  # the codegen took a region
    return lib


@needs_onednn
@pytest.mark.parametrize("name", ["mlp", "squeezenet"])
def test_dnnl_matches_onnxruntime(name):
    check_model(name, "dnnl")


@needs_onednn
def test_dnnl_blocked_layouts_match_onnxruntime():
    from xtvm.byoc.dnnl import BLOCKED_LAYOUTS_CONFIG

    with xtvm.transform.PassContext(config={BLOCKED_LAYOUTS_CONFIG: True}):
        check_model("squeezenet", "dnnl")


@pytest.mark.parametrize("name", ["mlp", pytest.param("squeezenet", marks=pytest.mark.slow)])
def test_ccompiler_matches_onnxruntime(name):
    check_model(name, "ccompiler")


@needs_onednn
@pytest.mark.slow
def test_resnet50_dnnl_matches_onnxruntime():
    check_model("resnet50", "dnnl")


@pytest.mark.slow
def test_resnet50_ccompiler_matches_onnxruntime():
    check_model("resnet50", "ccompiler")


LOAD_AND_RUN = """
import sys, numpy as np, xtvm
from xtvm.runtime import load_module
lib = load_module(sys.argv[1])
g = lib["default"](xtvm.cpu(0))
g.set_input(0, np.load(sys.argv[2]))
g.run()
np.save(sys.argv[3], g.get_output(0).numpy())
"""


@needs_onednn
@pytest.mark.parametrize("byoc", ["dnnl", "ccompiler"])
def test_exported_library_runs_in_a_fresh_process(byoc, tmp_path):
    model, x = model_and_input("mlp")
    mod, params = from_onnx(model, shape={"data": x.shape})
    lib = xtvm.build(mod, params=params, byoc=[byoc])
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    expected = gmod.get_output(0).numpy()
    path = tmp_path / "mlp.so"
    lib.export_library(str(path))
    np.save(tmp_path / "x.npy", x)
    subprocess.run(
        [sys.executable, "-c", LOAD_AND_RUN, str(path), str(tmp_path / "x.npy"),
         str(tmp_path / "y.npy")],
        check=True,
        timeout=120,
    )
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), expected)


@pytest.mark.parametrize("byoc", [pytest.param("dnnl", marks=needs_onednn), "ccompiler"])
def test_c_target_with_external_codegen(byoc):
    """target="c" compiles xtvm's kernels to C and leaves the external ones to their codegen."""
    model, x = model_and_input("mlp")
    mod, params = from_onnx(model, shape={"data": x.shape})
    (ref,) = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, {"data": x})
    lib = xtvm.build(mod, target="c", params=params, byoc=[byoc])
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    assert_close(gmod.get_output(0).numpy(), ref)


def test_partitioned_stage_file_compiles_without_byoc():
    """The relay-partitioned stage's text is the whole program: parsed again
    and built without ``byoc``, it runs its regions through their codegen."""
    from xtvm.driver.build_module import byoc_context, lower
    from xtvm.driver.pipeline import mlir_context
    from xtvm.ir.parse import parse_module
    from xtvm.ir.printing import module_text

    model, x = model_and_input("mlp")
    mod, params = from_onnx(model, shape={"data": x.shape})
    with byoc_context(["ccompiler"]):
        text = module_text(lower(mod.clone(), params, stage="relay-partitioned"))
    assert 'relay.compiler = "ccompiler"' in text
    reparsed = parse_module(text, "mlp.relay-partitioned.mlir", mlir_context())
    outputs = []
    for lib in (xtvm.build(reparsed), xtvm.build(mod, params=params, byoc=["ccompiler"])):
        assert lib["tvmgen_default_ccompiler_main_0"] is not None
        gmod = lib["default"](xtvm.cpu(0))
        gmod.set_input(0, x)
        gmod.run()
        outputs.append(gmod.get_output(0).numpy())
    np.testing.assert_array_equal(outputs[0], outputs[1])
