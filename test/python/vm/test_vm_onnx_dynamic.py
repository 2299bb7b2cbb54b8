"""An ONNX model with a dynamic batch: ``from_onnx(shape={"x": (None, 16)})``
(``xtvm-compile --shape x=?,16``) keeps the batch ``?``, the build selects
the VM, and one executable runs every batch size, equal to onnxruntime."""

import numpy as np

import xtvm
from vm_models import mlp_model, onnxruntime_outputs
from xtvm.frontend import from_onnx
from xtvm.runtime.vm import VirtualMachine
from xtvm.tools.compile import parse_shapes


def test_dynamic_batch_mlp_from_onnx():
    model = mlp_model()
    mod, params = from_onnx(model, shape=parse_shapes(["x=?,16"]))
    exe = xtvm.build(mod, params=params)
    assert exe.functions[0].params[0]["shape"] == [None, 16]
    vm = VirtualMachine(exe, xtvm.cpu(0))
    for value in [model.graph.input[0], *model.graph.output]:
        value.type.tensor_type.shape.dim[0].dim_param = "N"  # for onnxruntime
    rng = np.random.default_rng(0)
    for n in (1, 5, 2):
        x = rng.standard_normal((n, 16)).astype(np.float32)
        probs, logits = vm.invoke("main", x)
        ref = onnxruntime_outputs(model, {"x": x})
        np.testing.assert_allclose(probs.numpy(), ref[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(logits.numpy(), ref[1], rtol=1e-5, atol=1e-5)
