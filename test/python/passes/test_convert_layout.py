"""``relay-convert-layout``: a small float network (a 3-channel stem, a max
pool, a block with a batch-norm scale and shift and a residual add, two
branches concatenated, an average pool) keeps its activations blocked
between the convs, and the built network gives NumPy's result."""

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import TensorType, f32

import xtvm
from relay_graphs import GraphBuilder
from xtvm.dialects import relay
from xtvm.passes.relay.alter_op_layout import AlterOpLayoutPass
from xtvm.passes.relay.convert_layout import ConvertLayoutPass
from xtvm.reference.relay.conv import conv2d
from xtvm.transform import PassContext


def _network(rng):
    """The relay module and its NumPy result (input fixed by ``rng``)."""
    x = rng.standard_normal((1, 3, 16, 16), dtype=np.float32)
    w0 = rng.standard_normal((32, 3, 7, 7), dtype=np.float32) * 0.1
    w1 = rng.standard_normal((32, 32, 1, 1), dtype=np.float32) * 0.2
    w2 = rng.standard_normal((32, 32, 3, 3), dtype=np.float32) * 0.1
    scale = rng.standard_normal((32, 1, 1), dtype=np.float32)
    shift = rng.standard_normal((32,), dtype=np.float32)

    g = GraphBuilder(TensorType(f32, list(x.shape)))
    a = g.add(relay.ReluOp(g.add(relay.Conv2dOp(g.args[0], g.const(w0), (2, 2), (3, 3, 3, 3)))))
    p = g.add(relay.MaxPool2dOp(a, [3, 3], padding=[1, 1, 1, 1]))
    c = g.add(relay.Conv2dOp(p, g.const(w1)))
    cb = g.add(relay.BiasAddOp(g.add(relay.MultiplyOp(c, g.const(scale))), g.const(shift)))
    r = g.add(relay.ReluOp(g.add(relay.AddOp(cb, p))))
    d = g.add(relay.Conv2dOp(r, g.const(w2), padding=(1, 1, 1, 1)))
    e = g.add(relay.Conv2dOp(r, g.const(w1)))
    cat = g.add(relay.ConcatenateOp([d, e], axis=1))
    y = g.add(relay.AvgPool2dOp(cat, [2, 2], [2, 2]))
    module = g.module([y])

    a_ = np.maximum(conv2d(x, w0, (2, 2), (3, 3, 3, 3), (1, 1)), 0)
    padded = np.pad(a_, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    p_ = np.max([padded[:, :, i : i + 8, j : j + 8] for i in range(3) for j in range(3)], axis=0)
    c_ = conv2d(p_, w1, (1, 1), (0, 0, 0, 0), (1, 1)) * scale + shift.reshape(32, 1, 1)
    r_ = np.maximum(c_ + p_, 0)
    d_ = conv2d(r_, w2, (1, 1), (1, 1, 1, 1), (1, 1))
    e_ = conv2d(r_, w1, (1, 1), (0, 0, 0, 0), (1, 1))
    cat_ = np.concatenate([d_, e_], axis=1)
    want = cat_.reshape(1, 64, 4, 2, 4, 2).mean(axis=(3, 5))
    return module, x, want


def test_activations_stay_blocked_and_match_numpy():
    module, x, want = _network(np.random.default_rng(0))
    ctx = Context()
    AlterOpLayoutPass(lanes=16).apply(ctx, module)
    ConvertLayoutPass(lanes=16).apply(ctx, module)
    ops = list(module.walk())
    convs = [op for op in ops if isinstance(op, relay.Conv2dPackedOp)]
    assert [op.data_layout.data for op in convs] == ["NCHW", "NCHW16c", "NCHW16c", "NCHW16c"]
    assert convs[0].out_layout.data == "NCHW16c"  # the stem: NCHW data, blocked result
    back = [
        op for op in ops if isinstance(op, relay.LayoutTransformOp) and op.dst_layout.data == "NCHW"
    ]
    assert len(back) == 1  # only the network's result is transformed back
    assert any(isinstance(op, relay.AvgPool3dOp) for op in ops)
    with PassContext(opt_level=3):
        lib = xtvm.build(module)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    np.testing.assert_allclose(gmod.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)
