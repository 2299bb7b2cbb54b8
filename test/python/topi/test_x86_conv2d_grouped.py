"""The grouped 1x1 conv kernel (xtvm.topi.x86.conv2d_grouped) against NumPy:
relay-alter-op-layout packs the weight with its block (conv2d-grouped-packed)
and the lowering sends the conv to it, flattened planes and row tiles."""

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

import xtvm
from xtvm import te
from xtvm.dialects import relay
from xtvm.driver.build_module import lower
from xtvm.reference.relay import evaluate
from xtvm.reference.relay.conv import conv2d
from xtvm.topi.x86.config import grouped_block, takes_grouped_kernel, tile_vectors
from xtvm.topi.x86.conv2d_grouped import conv2d_grouped

# channels in, out, height, width, groups
CONVS = {
    # ShuffleNet's stage 1: 4 groups of 34, a 28x28 plane of 49 registers
    "flat-plane": (136, 136, 28, 28, 4),
    # stage 2: 4 groups of 68 on 14x14 (196 pixels: 14-pixel row tiles)
    "row-tiles": (272, 272, 14, 14, 4),
    # 3 groups of 12 on 5 rows of 28 (two 14-pixel vectors a row)
    "two-vectors-a-row": (9, 36, 5, 28, 3),
    # 2 groups of 10 on 16x16: a tile of 10 channels by 2 registers
    "several-registers": (8, 20, 16, 16, 2),
}


def _module(c, o, h, w, groups, shuffle=False):
    """conv (groups), + per-channel shift, relu; with ``shuffle`` then
    ShuffleNet's channel shuffle: reshape [1, G, O/G, H, W], transpose axes
    1 and 2, reshape."""
    types = [
        TensorType(f32, [1, c, h, w]),
        TensorType(f32, [o, c // groups, 1, 1]),
        TensorType(f32, [o, 1, 1]),
    ]
    block = Block(arg_types=types)
    x, wt, b = block.args
    conv = relay.Conv2dOp(x, wt, (1, 1), (0, 0, 0, 0), (1, 1), groups)
    add = relay.AddOp(conv.result, b)
    ops = [conv, add, relay.ReluOp(add.result)]
    if shuffle:
        ops.append(relay.ReshapeOp(ops[-1].result, [1, groups, o // groups, h, w]))
        ops.append(relay.TransposeOp(ops[-1].result, [0, 2, 1, 3, 4]))
        ops.append(relay.ReshapeOp(ops[-1].result, [1, o, h, w]))
    block.add_ops([*ops, func.ReturnOp(ops[-1].result)])
    fn = func.FuncOp("main", (types, [ops[-1].result.type]), Region(block))
    return ModuleOp([fn])


@pytest.mark.parametrize("name", list(CONVS))
def test_grouped_conv_matches_numpy(name):
    c, o, h, w, groups = CONVS[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // groups, 1, 1)).astype(np.float32)
    b = rng.standard_normal((o, 1, 1)).astype(np.float32)
    assert "T_conv2d_grouped" in str(lower(_module(c, o, h, w, groups), stage="tir"))
    gmod = xtvm.build(_module(c, o, h, w, groups))["default"](xtvm.cpu(0))
    for i, value in enumerate((x, wt, b)):
        gmod.set_input(i, value)
    gmod.run()
    ref = np.maximum(conv2d(x, wt, (1, 1), (0, 0, 0, 0), (1, 1), groups) + b, 0)
    np.testing.assert_allclose(gmod.get_output(0).numpy(), ref, rtol=1e-4, atol=1e-4)


def _shuffle(y, groups):
    n, o, h, w = y.shape
    return y.reshape(n, groups, o // groups, h, w).transpose(0, 2, 1, 3, 4).reshape(y.shape)


@pytest.mark.parametrize("name", ["flat-plane", "row-tiles"])
def test_shuffled_conv_matches_numpy(name):
    """conv2d-grouped-shuffled: the conv stores its rows in the shuffled
    order (no transpose kernel left) and equals the shuffle of the conv."""
    c, o, h, w, groups = CONVS[name]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // groups, 1, 1)).astype(np.float32)
    b = rng.standard_normal((o, 1, 1)).astype(np.float32)
    opt = str(lower(_module(c, o, h, w, groups, shuffle=True), stage="relay-opt"))
    # no transpose of the activations (the shift, an input here, is shuffled)
    assert "out_shuffle = 4" in opt and f"tensor<1x{o // groups}x{groups}x" not in opt
    gmod = xtvm.build(_module(c, o, h, w, groups, shuffle=True))["default"](xtvm.cpu(0))
    for i, value in enumerate((x, wt, b)):
        gmod.set_input(i, value)
    gmod.run()
    ref = _shuffle(np.maximum(conv2d(x, wt, (1, 1), (0, 0, 0, 0), (1, 1), groups) + b, 0), groups)
    np.testing.assert_allclose(gmod.get_output(0).numpy(), ref, rtol=1e-4, atol=1e-4)


def test_the_reference_shuffles_the_result():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 8, 3, 3)).astype(np.float32)
    wt = rng.standard_normal((16, 2, 1, 1)).astype(np.float32)
    packed = wt.reshape(8, 2, 2, 1, 1).transpose(0, 2, 3, 4, 1)  # OIHW2o
    attrs = {
        "kernel_layout": "OIHW2o",
        "strides": [1, 1],
        "padding": [0] * 4,
        "dilation": [1, 1],
        "groups": 4,
        "out_shuffle": 4,
    }
    out = evaluate("relay.nn.contrib_conv2d_packed", [x, packed], attrs)
    np.testing.assert_allclose(
        out, _shuffle(conv2d(x, wt, (1, 1), (0, 0, 0, 0), (1, 1), 4), 4), rtol=1e-5, atol=1e-5
    )


def test_tiles_fill_the_registers_without_padding():
    # ShuffleNet: 17-channel tiles (34 = 2 x 17, 68 = 4 x 17) by one vector
    assert grouped_block(34, 28, 28, 16) == 17 and tile_vectors(17, 28, 28, 16) == 1
    assert grouped_block(68, 14, 14, 16) == 17
    # 10 channels by 2 registers of a flattened 16x16 plane
    assert grouped_block(10, 16, 16, 16) == 10 and tile_vectors(10, 16, 16, 16) == 2
    # AVX2 (8 lanes, 16 registers) keeps the packed kernel
    assert not takes_grouped_kernel(4, 136, 136, (1, 1), (1, 1), (0,) * 4, 28, 28, 8)


def test_narrow_or_ragged_rows_keep_the_packed_kernel():
    takes = lambda h, w: takes_grouped_kernel(4, 136, 136, (1, 1), (1, 1), (0,) * 4, h, w, 16)
    assert takes(28, 28) and takes(14, 14)
    assert not takes(7, 7)  # 7-pixel vectors: the packed kernel's channel vectors
    assert not takes(23, 23)  # no row tile divides 23: a guarded (scalar) tile


def test_a_weight_that_does_not_fit_is_a_clear_error():
    data = te.placeholder((1, 8, 6, 6), name="x")
    weight = te.placeholder((2, 4, 3, 3, 2), name="w")  # 3x3 taps
    with pytest.raises(ValueError, match="conv2d_grouped: groups=2 and a 1x1 kernel"):
        conv2d_grouped(data, weight, 2)


def test_a_shuffle_the_grouped_kernel_cannot_store_is_a_clear_error():
    types = [TensorType(f32, [1, 8, 6, 6]), TensorType(f32, [4, 2, 3, 3, 4])]
    block = Block(arg_types=types)
    x, wt = block.args
    conv = relay.Conv2dPackedOp(x, wt, "OIHW4o", groups=4, out_shuffle=4)  # 3x3 taps
    block.add_ops([conv, func.ReturnOp(conv.result)])
    module = ModuleOp([func.FuncOp("main", (types, [conv.result.type]), Region(block))])
    with pytest.raises(Exception, match="out_shuffle needs the grouped 1x1 kernel"):
        lower(module, stage="tir")
