"""ResNet-50 (the onnx package's light model, seeded random weights) on the
VM: the same outputs as the graph executor (the same kernels: bit for bit)
and onnxruntime. Slow: two compiles of ResNet-50."""

import numpy as np
import pytest

import xtvm
from xtvm.bench.timing import light_model
from xtvm.frontend import from_onnx
from xtvm.runtime.vm import VirtualMachine


@pytest.mark.slow
def test_resnet50_vm_equals_graph_executor_and_onnxruntime():
    ort = pytest.importorskip("onnxruntime")
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
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (ref,) = sess.run(None, {input_name: x})
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4)
