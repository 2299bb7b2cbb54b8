"""ResNet-50 (the onnx package's light model, seeded random weights) on the
VM: with a static shape, the same outputs as the graph executor (the same
kernels: bit for bit) and onnxruntime; with a dynamic batch (``?x3x224x224``,
made from the light model by ``xtvm.bench.vm.dynamic_batch``), compiled once and run at
batch 1, 3 and 8 equal to onnxruntime. Slow: ResNet-50 compiles."""

import numpy as np
import onnx
import pytest

import xtvm
from xtvm.bench.timing import light_model
from xtvm.bench.vm import dynamic_batch
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import expose_logits
from xtvm.runtime.vm import VirtualMachine


def ort_outputs(model: onnx.ModelProto, feeds: dict) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


@pytest.mark.slow
def test_resnet50_vm_equals_graph_executor_and_onnxruntime():
    model, input_name, x = light_model("resnet50")
    mod, params = from_onnx(model)
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, params=params, executor="vm")
        lib = xtvm.build(mod, params=params)
    out = VirtualMachine(exe, xtvm.cpu(0)).invoke("main", x).numpy()
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    gmod.run()
    np.testing.assert_array_equal(out, gmod.get_output(0).numpy())
    (ref,) = ort_outputs(model, {input_name: x})
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4)


@pytest.mark.slow
def test_dynamic_batch_resnet50_compiled_once():
    model, input_name, x = light_model("resnet50")
    model = dynamic_batch(expose_logits(model), input_name)
    mod, params = from_onnx(model, shape={input_name: (None, *x.shape[1:])})
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, params=params)  # the ? batch selects the VM
    vm = VirtualMachine(exe, xtvm.cpu(0))
    rng = np.random.default_rng(2)
    for n in (1, 3, 8):
        xs = rng.standard_normal((n, *x.shape[1:])).astype(np.float32)
        probs, logits = vm.invoke("main", xs)
        ref_probs, ref_logits = ort_outputs(model, {input_name: xs})
        assert logits.shape == (n, 1000)
        np.testing.assert_allclose(logits.numpy(), ref_logits, rtol=1e-3, atol=1e-3 * np.abs(ref_logits).max())
        np.testing.assert_allclose(probs.numpy(), ref_probs, rtol=1e-3, atol=1e-4)
