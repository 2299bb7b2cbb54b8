"""Models with ``?`` dimensions compiled once for the VM and run at several
sizes: the kernels' results are allocated at run time from the shapes of
their inputs (``vm-manifest-dynamic-alloc``), equal to the relay
evaluator's NumPy semantics. Executor selection picks the VM by itself."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm
from xtvm.driver.pipeline import mlir_context
from xtvm.ir.parse import parse_module
from xtvm.passes.relay.evaluate import evaluate_function
from xtvm.runtime import XTVMError
from xtvm.runtime.vm import VirtualMachine

MLP = """
func.func @main(%data: tensor<?x784xf32>, %w1: tensor<256x784xf32>, %b1: tensor<256xf32>, %w2: tensor<10x256xf32>) -> tensor<?x10xf32> {
  %d = relay.nn.dense %data, %w1 : (tensor<?x784xf32>, tensor<256x784xf32>) -> tensor<?x256xf32>
  %a = relay.nn.bias_add %d, %b1 {axis = -1 : i64} : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  %r = relay.nn.relu %a : tensor<?x256xf32>
  %o = relay.nn.dense %r, %w2 : (tensor<?x256xf32>, tensor<10x256xf32>) -> tensor<?x10xf32>
  %s = relay.nn.softmax %o {axis = -1 : i64} : tensor<?x10xf32>
  func.return %s : tensor<?x10xf32>
}
"""

CNN = """
func.func @main(%x: tensor<?x3x16x16xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x1x1xf32> {
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x3x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x16x16xf32>
  %a = relay.nn.bias_add %c, %b {axis = 1 : i64} : (tensor<?x16x16x16xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
  %r = relay.nn.relu %a : tensor<?x16x16x16xf32>
  %p = relay.nn.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x16x16x16xf32>) -> tensor<?x16x8x8xf32>
  %g = relay.nn.global_avg_pool2d %p : (tensor<?x16x8x8xf32>) -> tensor<?x16x1x1xf32>
  func.return %g : tensor<?x16x1x1xf32>
}
"""


def weights(shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]


@pytest.mark.parametrize(
    "text, data_shape, weight_shapes",
    [
        (MLP, (784,), [(256, 784), (256,), (10, 256)]),
        (CNN, (3, 16, 16), [(16, 3, 3, 3), (16,)]),
    ],
    ids=["mlp", "cnn"],
)
def test_compiled_once_run_at_every_size(text, data_shape, weight_shapes):
    module = parse_module(text, "<test>", mlir_context())
    params = weights(weight_shapes, seed=0)
    names = [a.name_hint for a in module.body.block.first_op.args]
    with xtvm.transform.PassContext(opt_level=3):
        # Weights by position (the arguments have no relay.name); ? dims select the VM.
        exe = xtvm.build(module, params={f"input{i + 1}": p for i, p in enumerate(params)})
    vm = VirtualMachine(exe, xtvm.cpu(0))
    rng = np.random.default_rng(1)
    kept = []
    for n in (1, 3, 8, 3, 3):
        x = rng.standard_normal((n, *data_shape)).astype(np.float32)
        out = vm.invoke("main", x)
        static = parse_module(text.replace("?", str(n)), "<ref>", mlir_context())  # the evaluator's shapes are static
        (ref,) = evaluate_function(static, "main", [x, *params])
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
        kept.append((out, ref))
    for out, ref in kept:  # invoke's results are the caller's: no later call wrote into them
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    vm.set_input(names[0], x)
    vm.run()
    np.testing.assert_allclose(vm.get_output(0).numpy(), ref, rtol=1e-4, atol=1e-5)
    bad = np.zeros((2, *data_shape[:-1], data_shape[-1] + 1), np.float32)
    with pytest.raises(XTVMError, match=rf"input '{names[0]}' expects \(\?, "):
        vm.invoke("main", bad)
