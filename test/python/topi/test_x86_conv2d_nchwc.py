"""The float packed conv on blocked activations (``data_layout =
"NCHW<c>c"``, TVM's ``conv2d_NCHWc``; NCHW data with ``out_layout``, a
stem's): built for the host and compared with NumPy, alone and with a fused
residual-add + relu epilogue."""

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f32

from test_x86_int8 import GraphBuilder, _run
from xtvm.autotvm.dispatch import ApplyConfig, SpaceCollector
from xtvm.autotvm.space import ConfigEntity
from xtvm.dialects import relay
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.packed import layout_transform
from xtvm.topi.x86.config import lanes
from xtvm.topi.x86.conv2d import window_inner

BLOCKED = {
    # name: (C, c, O, b, H, W, K, strides, padding)
    "3x3-padded-two-blocks": (32, 16, 32, 16, 14, 14, 3, (1, 1), (1, 1, 1, 1)),
    "1x1-7x7-plane": (64, 16, 48, 16, 7, 7, 1, (1, 1), (0, 0, 0, 0)),
    "1x1-stride2": (32, 16, 16, 16, 9, 9, 1, (2, 2), (0, 0, 0, 0)),
    "3x3-stride2-blocks-of-8-uneven-pad": (24, 8, 24, 8, 9, 11, 3, (2, 1), (0, 1, 2, 1)),
    "3x3-partial-row-tile": (16, 16, 16, 16, 5, 20, 3, (1, 1), (1, 1, 1, 1)),
    "3x3-four-blocks": (32, 16, 64, 16, 7, 14, 3, (1, 1), (1, 1, 1, 1)),
    "3x3-partial-row-tile-two-blocks": (16, 16, 32, 16, 4, 13, 3, (1, 1), (1, 1, 1, 1)),
    "3x3-wide-plane-two-rows": (16, 16, 32, 16, 32, 112, 3, (1, 1), (1, 1, 1, 1)),
    # c = 0: NCHW data (a stem's 3 channels), the blocked result (out_layout)
    "stem-nchw-data-7x7-stride2": (3, 0, 32, 16, 23, 23, 7, (2, 2), (3, 3, 3, 3)),
}


def _blocked_conv(name, residual=False, seed=0, dispatch=None):
    """The conv (plus ``relu(conv + r)`` with ``residual``) built and run
    (under the AutoTVM ``dispatch`` context, if any), and the NumPy result,
    both blocked ``NCHW<b>c``."""
    c, cb, o, b, h, w, k, strides, padding = BLOCKED[name]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, h, w), dtype=np.float32)
    wt = rng.standard_normal((o, c, k, k), dtype=np.float32)
    want = conv2d(x, wt, strides, padding, (1, 1))
    blocked_want = layout_transform(want, "NCHW", f"NCHW{b}c")
    r = rng.standard_normal(blocked_want.shape, dtype=np.float32)
    xb = layout_transform(x, "NCHW", f"NCHW{cb}c") if cb else x
    arg_types = [TensorType(f32, list(xb.shape))]
    if residual:
        arg_types.append(TensorType(f32, list(r.shape)))
    g = GraphBuilder(*arg_types)
    packed = g.const(np.ascontiguousarray(layout_transform(wt, "OIHW", f"OIHW{b}o")))
    layouts = {"data_layout": f"NCHW{cb}c"} if cb else {"out_layout": f"NCHW{b}c"}
    conv = relay.Conv2dPackedOp(g.args[0], packed, f"OIHW{b}o", strides, padding, **layouts)
    y = g.add(conv)
    if residual:
        y = g.add(relay.ReluOp(g.add(relay.AddOp(y, g.args[1]))))
        blocked_want = np.maximum(blocked_want + r, 0)
    if dispatch is None:
        got, _ = _run(g.module([y]), [xb, r] if residual else [xb])
    else:
        with dispatch:
            got, _ = _run(g.module([y]), [xb, r] if residual else [xb])
    return got, blocked_want


@pytest.mark.parametrize("name", list(BLOCKED))
def test_blocked_conv_matches_numpy(name):
    got, want = _blocked_conv(name)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("name", ["3x3-padded-two-blocks", "stem-nchw-data-7x7-stride2"])
def test_blocked_conv_with_residual_epilogue_matches_numpy(name):
    got, want = _blocked_conv(name, residual=True, seed=1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_type_rule_refuses_blocked_data_of_the_wrong_shape():
    g = GraphBuilder(TensorType(f32, [1, 2, 8, 8, 8]))
    packed = g.const(np.zeros((2, 32, 3, 3, 16), np.float32))
    with pytest.raises(Exception, match=r"must be \[N, C/16, H, W, 16\]"):
        relay.Conv2dPackedOp(g.args[0], packed, "OIHW16o", data_layout="NCHW16c")


def test_type_rule_refuses_an_out_layout_not_the_weight_block():
    g = GraphBuilder(TensorType(f32, [1, 3, 8, 8]))
    packed = g.const(np.zeros((2, 3, 3, 3, 16), np.float32))
    with pytest.raises(Exception, match="out_layout must be '' .* or 'NCHW16c'"):
        relay.Conv2dPackedOp(g.args[0], packed, "OIHW16o", out_layout="NCHW8c")


def _space(name):
    """The ``conv2d_packed`` template's space for conv ``name`` (its key, space)."""
    collector = SpaceCollector()
    _blocked_conv(name, dispatch=collector)
    ((key, space),) = [(k, s) for k, s in collector.spaces.items() if len(s)]
    return key, space


@pytest.mark.skipif(lanes() < 16, reason="the two-block default is for AVX-512's 32 registers")
def test_default_tile_is_about_8_pixels_by_two_blocks():
    """A 14-pixel row of a conv with paired blocks: 7 pixels x 2 blocks
    (each broadcast feeds two FMAs), not the whole row by one block."""
    _, space = _space("3x3-four-blocks")
    default = space.get(0).values
    assert default["tile_ow"].size == (-1, 7)
    assert default["tile_oc"].val == 2


@pytest.mark.skipif(lanes() < 16, reason="the two-block default is for AVX-512's 32 registers")
def test_row_without_a_divisor_takes_tiles_of_about_equal_length():
    """A 13-pixel row (no length in 5-9 divides it) is tiled 7 + 6, not
    9 + 4; the conv on it computes (the partial last tile guarded)."""
    _, space = _space("3x3-partial-row-tile-two-blocks")
    assert space.get(0).values["tile_ow"].size == (-1, 7)
    got, want = _blocked_conv("3x3-partial-row-tile-two-blocks")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_four_block_tile_matches_numpy():
    """``tile_oc = 4`` (a tuner's choice) computes the conv."""
    key, space = _space("3x3-four-blocks")
    chosen = dict(space.get(0).values)
    chosen["tile_oc"] = next(o for o in space.knobs["tile_oc"].options if o.val == 4)
    got, want = _blocked_conv("3x3-four-blocks", dispatch=ApplyConfig(ConfigEntity(1, chosen), key))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("inner", [0, 1])
def test_reduction_order_matches_numpy(inner):
    """Both reduction orders (``window_inner``: the kernel window innermost,
    the default on small planes, or the input channels innermost), with an
    unrolled ``rx``, compute the conv."""
    key, space = _space("3x3-padded-two-blocks")
    default = space.get(0).values
    assert default["window_inner"].val == 1  # a 14x14 plane
    chosen = dict(default)
    chosen["window_inner"] = next(o for o in space.knobs["window_inner"].options if o.val == inner)
    chosen["unroll_kw"] = next(o for o in space.knobs["unroll_kw"].options if o.val == 1)
    dispatch = ApplyConfig(ConfigEntity(1, chosen), key)
    got, want = _blocked_conv("3x3-padded-two-blocks", dispatch=dispatch)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_window_inner_on_small_planes_only():
    """The default reduction order: the window innermost on planes up to
    56x56 with a window, the channels innermost on larger planes and 1x1s."""
    assert window_inner(7, 7, 9) and window_inner(56, 56, 9)
    assert not window_inner(112, 112, 9) and not window_inner(14, 14, 1)


@pytest.mark.skipif(lanes() < 16, reason="the two-block default is for AVX-512's 32 registers")
def test_wide_plane_default_tile_is_two_rows_of_4_pixels():
    """A 112-pixel row: 2 rows x 4 pixels x 2 blocks, the window columns
    unrolled, the channels innermost (the plane is not small)."""
    _, space = _space("3x3-wide-plane-two-rows")
    default = space.get(0).values
    assert default["tile_ow"].size == (-1, 4)
    assert default["tile_oh"].val == 2
    assert default["tile_oc"].val == 2
    assert default["unroll_kw"].val == 1
    assert default["window_inner"].val == 0
    assert default["pad_rows"].val == 1


def test_padding_per_row_tile_is_for_wide_planes_only():
    """Small planes keep the padding as its own nest: rows outermost would
    stream the whole weight once per row."""
    _, space = _space("3x3-padded-two-blocks")
    assert space.get(0).values["pad_rows"].val == 0
    _, space = _space("1x1-7x7-plane")  # no padding: nothing to compute per row
    assert [o.val for o in space.knobs["pad_rows"].options] == [0]


@pytest.mark.parametrize(
    "name",
    [
        "3x3-padded-two-blocks",
        "3x3-stride2-blocks-of-8-uneven-pad",
        "3x3-partial-row-tile",
        "3x3-partial-row-tile-two-blocks",
    ],
)
def test_padding_per_row_tile_matches_numpy(name):
    """``pad_rows`` (the padded input rows computed under each parallel row
    tile, the rows outermost) on planes whose default keeps the padding
    apart: stride 2, blocks of 8, uneven borders, partial row tiles, the
    window innermost; with the residual epilogue."""
    _, space = _space(name)
    chosen = dict(space.get(0).values)
    chosen["pad_rows"] = next(o for o in space.knobs["pad_rows"].options if o.val == 1)
    # no key: the fused kernel with the epilogue is a workload of its own
    dispatch = ApplyConfig(ConfigEntity(1, chosen))
    got, want = _blocked_conv(name, residual=True, seed=2, dispatch=dispatch)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
