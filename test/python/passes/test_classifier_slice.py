"""A classifier whose 1000 classes ``conv2d-packed-padded`` pads to 1024
(SqueezeNet's): the slice back to 1000 moves below the bias add, relu and
global pool (``channel-slice-sink-*``), the pool reads the blocked conv
result (``sink-unblocking-global-*-pool2d``), and the built network gives
NumPy's result."""

import numpy as np
import pytest
from relay_graphs import GraphBuilder
from xdsl.context import Context
from xdsl.dialects.builtin import TensorType, f32

import xtvm
from xtvm.dialects import relay
from xtvm.passes.relay.alter_op_layout import AlterOpLayoutPass
from xtvm.passes.relay.convert_layout import ConvertLayoutPass
from xtvm.reference.relay.conv import conv2d
from xtvm.transform import PassContext

POOLS = {"avg": (relay.GlobalAvgPool2dOp, np.mean), "max": (relay.GlobalMaxPool2dOp, np.max)}


def _classifier(rng, pool: str):
    """conv (16 -> 32) + relu, then the classifier conv (32 -> 1000) + bias +
    relu + global pool + reshape to ``[1, 1000]``; the module, its input and
    NumPy's result."""
    x = rng.standard_normal((1, 16, 6, 6), dtype=np.float32)
    w0 = rng.standard_normal((32, 16, 1, 1), dtype=np.float32) * 0.3
    w1 = rng.standard_normal((1000, 32, 3, 3), dtype=np.float32) * 0.1
    bias = rng.standard_normal((1000,), dtype=np.float32)
    op, reduce = POOLS[pool]

    g = GraphBuilder(TensorType(f32, list(x.shape)))
    a = g.add(relay.ReluOp(g.add(relay.Conv2dOp(g.args[0], g.const(w0)))))
    c = g.add(relay.Conv2dOp(a, g.const(w1), padding=(1, 1, 1, 1)))
    r = g.add(relay.ReluOp(g.add(relay.BiasAddOp(c, g.const(bias)))))
    y = g.add(relay.ReshapeOp(g.add(op(r)), [1, 1000]))
    module = g.module([y])

    a_ = np.maximum(conv2d(x, w0, (1, 1), (0, 0, 0, 0), (1, 1)), 0)
    c_ = conv2d(a_, w1, (1, 1), (1, 1, 1, 1), (1, 1)) + bias.reshape(1000, 1, 1)
    want = reduce(np.maximum(c_, 0), axis=(2, 3)).reshape(1, 1000)
    return module, x, want


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_slice_after_the_pool_and_match_numpy(pool: str):
    module, x, want = _classifier(np.random.default_rng(0), pool)
    ctx = Context()
    AlterOpLayoutPass(lanes=16).apply(ctx, module)
    ConvertLayoutPass(lanes=16).apply(ctx, module)
    ops = list(module.walk())
    (cut,) = [op for op in ops if isinstance(op, relay.StridedSliceOp)]
    assert list(cut.input.type.get_shape()) == [1, 1024, 1, 1]  # the pooled classes, sliced
    assert any(isinstance(op, (relay.AvgPool3dOp, relay.MaxPool3dOp)) for op in ops)
    assert not any(isinstance(op, (relay.GlobalAvgPool2dOp, relay.GlobalMaxPool2dOp)) for op in ops)
    with PassContext(opt_level=3):
        lib = xtvm.build(module)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    np.testing.assert_allclose(gmod.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)
