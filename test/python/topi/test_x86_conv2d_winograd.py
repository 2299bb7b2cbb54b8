"""The Winograd conv F(m, 3) (``relay.nn.contrib_conv2d_winograd_*``,
:mod:`xtvm.topi.x86.conv2d_winograd`): its reference against NumPy's direct
conv, and the kernel, built for the host with a fused bias + relu
epilogue, against NumPy; sizes not divisible by the tile (partial edge
tiles), with and without padding. Also the straight-line transforms
(no select and no multiply by 0 or 1 left in the optimised LLVM IR, and
none in the tir: the schedule folds them while it unrolls)."""

import numpy as np
import pytest
from test_x86_int8 import GraphBuilder, _run
from xdsl.dialects.builtin import TensorType, f32

from xtvm.autotvm.dispatch import ApplyConfig, SpaceCollector
from xtvm.autotvm.space import ConfigEntity
from xtvm.codegen import emit_llvm_ir
from xtvm.dialects import relay
from xtvm.driver.build_module import lower
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.packed import layout_transform
from xtvm.reference.relay.winograd import conv2d_winograd, transform_weight, winograd_matrices
from xtvm.transform import PassContext

CASES = {
    # name: (C, K, H, W, padding, tile)
    "f43-padded-8x8": (16, 32, 8, 8, (1, 1, 1, 1), 4),
    "f43-padded-edge-tiles-13x11": (32, 32, 13, 11, (1, 1, 1, 1), 4),
    "f43-unpadded-edge-tiles-9x10": (16, 16, 9, 10, (0, 0, 0, 0), 4),
    "f23-padded-edge-tiles-7x7": (32, 48, 7, 7, (1, 1, 1, 1), 2),
    "f23-unpadded-11x6": (16, 16, 11, 6, (0, 0, 0, 0), 2),
    "f43-blocks-of-8-uneven-pad": (8, 16, 6, 9, (0, 1, 2, 1), 4),
    "f43-four-blocks-13x11": (32, 64, 13, 11, (1, 1, 1, 1), 4),
}


def _data(case, seed=0, cases=CASES, r=3):
    """Seeded data and an r x r weight for ``cases[case]``."""
    c, k, h, w, padding, _ = cases[case]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, h, w), dtype=np.float32)
    wt = rng.standard_normal((k, c, r, r), dtype=np.float32)
    return x, wt, padding


@pytest.mark.parametrize("name", list(CASES))
def test_reference_matches_direct_conv(name):
    x, wt, padding = _data(name)
    m, block = CASES[name][5], min(16, CASES[name][1])
    chans = min(16, x.shape[1])
    u = transform_weight(wt, m, block)
    got = conv2d_winograd(
        layout_transform(x, "NCHW", f"NCHW{chans}c"), u, m, padding, f"NCHW{chans}c"
    )
    want = layout_transform(conv2d(x, wt, (1, 1), padding, (1, 1)), "NCHW", f"NCHW{block}c")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def _winograd_module(x, wt, padding, m, block, chans, bias):
    """relu(winograd conv + bias) on a constant weight (transformed by the
    folded weight-transform op), its data blocked ``NCHW<chans>c``."""
    xb = layout_transform(x, "NCHW", f"NCHW{chans}c")
    g = GraphBuilder(TensorType(f32, list(xb.shape)))
    u = g.add(relay.WinogradWeightTransformOp(g.const(wt), m, block))
    y = g.add(relay.Conv2dWinogradOp(g.args[0], u, m, f"NCHW{chans}c", padding))
    b = layout_transform(bias.reshape(1, -1, 1, 1), "NCHW", f"NCHW{block}c")
    y = g.add(relay.ReluOp(g.add(relay.AddOp(y, g.const(b)))))
    return g.module([y]), xb


DEFAULT_RUN = ("f43-padded-edge-tiles-13x11", "f23-padded-edge-tiles-7x7")
"""The kernel cases of the default run (each build takes seconds); the others are slow."""


@pytest.mark.parametrize(
    "name", [n if n in DEFAULT_RUN else pytest.param(n, marks=pytest.mark.slow) for n in CASES]
)
def test_kernel_with_bias_relu_matches_numpy(name, dispatch=None):
    x, wt, padding = _data(name, seed=1)
    m, block, chans = CASES[name][5], min(16, CASES[name][1]), min(16, CASES[name][0])
    bias = np.random.default_rng(2).standard_normal(wt.shape[0]).astype(np.float32)
    module, xb = _winograd_module(x, wt, padding, m, block, chans, bias)
    if dispatch is None:
        got, _ = _run(module, [xb])
    else:
        with dispatch:
            got, _ = _run(module, [xb])
    want = np.maximum(conv2d(x, wt, (1, 1), padding, (1, 1)) + bias.reshape(1, -1, 1, 1), 0)
    want = layout_transform(want, "NCHW", f"NCHW{block}c")
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_type_rule_refuses_a_weight_of_the_wrong_tile():
    g = GraphBuilder(TensorType(f32, [1, 1, 8, 8, 16]))
    u = g.const(np.zeros((4, 4, 2, 16, 16), np.float32))  # F(2, 3)'s, tile_size 4
    with pytest.raises(Exception, match=r"expects a transformed weight \[6, 6, K/b, 16, b\]"):
        relay.Conv2dWinogradOp(g.args[0], u, 4, "NCHW16c", (1, 1, 1, 1))


def test_type_rule_refuses_a_tile_size_without_matrices():
    g = GraphBuilder(TensorType(f32, [1, 1, 8, 8, 16]))
    with pytest.raises(Exception, match=r"tile_size must be one of \(2, 4\), got 3"):
        relay.WinogradWeightTransformOp(g.const(np.zeros((16, 16, 3, 3), np.float32)), 3, 16)


@pytest.mark.parametrize("m", [pytest.param(2, marks=pytest.mark.slow), 4])
def test_transforms_are_straight_line(m):
    """Unpadded, whole tiles (no zero padding, whose selects are the
    padding's): the optimised kernel selects no float, and multiplies only by
    the transforms' coefficients other than 0 and 1."""
    x, wt = np.zeros((1, 16, 10, 10), np.float32), np.ones((32, 16, 3, 3), np.float32)
    module, _ = _winograd_module(x, wt, (0, 0, 0, 0), m, 16, 16, np.zeros(32, np.float32))
    with PassContext(opt_level=3):
        ir = emit_llvm_ir(lower(module))
    assert "conv2d_winograd" in ir
    assert not [line for line in ir.splitlines() if " select " in line and "float" in line]
    assert "fmuladd" in ir or "fmul" in ir
    for zero_or_one in ("float 0.000000e+00)", "float 1.000000e+00)"):
        assert not any("fmul" in line and zero_or_one in line for line in ir.splitlines())


@pytest.mark.parametrize("m", [2, 4])
def test_transforms_fold_in_tir(m):
    """The schedule unrolls the transforms' positions and folds them as it
    copies (``_unroll_folding``): the kernel's tir has no select left, and
    each element of a tile's input patch is loaded once (the positions
    share the loads and 1-D row sums), not once per alternative of every
    position (F(4,3): 1,599 selects and 18,600 lines before)."""
    x, wt = np.zeros((1, 16, 10, 10), np.float32), np.ones((32, 16, 3, 3), np.float32)
    module, _ = _winograd_module(x, wt, (0, 0, 0, 0), m, 16, 16, np.zeros(32, np.float32))
    with PassContext(opt_level=3):
        lower(module, stage="tir")
    (kernel,) = [op for op in module.ops if op.name == "tir.prim_func"]
    text = str(kernel)
    assert "arith.select" not in text
    assert (
        text.count("tir.load %p0[") == (m + 2) ** 2
    )  # the unpadded data, read by the input transform
    assert "tir.store" in text and text.count("\n") < 1600


def test_gemm_tile_knobs_compute_the_conv():
    """The kernel is an AutoTVM template: its GEMM's register tile
    (``tile_p`` output tiles by ``tile_k`` channel blocks) is a pair of
    knobs; the default is 6 tiles by two blocks, and a tuner's other
    choice (4 tiles by one block) computes the same conv."""
    collector = SpaceCollector()
    test_kernel_with_bias_relu_matches_numpy("f43-four-blocks-13x11", dispatch=collector)
    ((key, space),) = [(k, s) for k, s in collector.spaces.items() if len(s)]
    default = space.get(0).values
    assert default["tile_p"].size == (-1, 6) and default["tile_k"].val == 2
    chosen = dict(default)
    chosen["tile_k"] = next(o for o in space.knobs["tile_k"].options if o.val == 1)
    chosen["tile_p"] = next(o for o in space.knobs["tile_p"].options if o.size[-1] == 4)
    dispatch = ApplyConfig(ConfigEntity(1, chosen), key)
    test_kernel_with_bias_relu_matches_numpy("f43-four-blocks-13x11", dispatch=dispatch)


# F(m, 4): the 4x4 stride-1 conv that a 7x7 stride-2 conv becomes after
# space-to-depth (conv2d-winograd-stride2), on Cook-Toom's matrices.

R4_CASES = {
    # name: (C, K, H, W, padding, tile); the stem's 12 channels (3 x 4 parities)
    "f44-stem-12c-19x19": (12, 32, 19, 19, (0, 0, 0, 0), 4),
    "f24-stem-12c-13x11": (12, 32, 13, 11, (0, 0, 0, 0), 2),
    "f44-padded-16c-9x10": (16, 16, 9, 10, (1, 2, 2, 1), 4),
}


def _r4_data(case, seed=0):
    x, wt, padding = _data(case, seed, R4_CASES, r=4)
    return x, wt, padding, R4_CASES[case][5]


@pytest.mark.parametrize("m", [2, 4])
@pytest.mark.parametrize("r", [3, 4])
def test_cook_toom_matrices_compute_the_correlation_exactly(m, r):
    """A^T [(G g) ⊙ (B^T d)] is the 1-D correlation of every d and g, in
    exact fractions (for r = 3 too, though the ops keep Lavin's F(m, 3))."""
    from fractions import Fraction

    from xtvm.reference.relay.winograd import cook_toom

    bt, g, at = cook_toom(m, r)
    a = m + r - 1
    assert (len(bt), len(bt[0]), len(g), len(g[0]), len(at), len(at[0])) == (a, a, a, r, m, a)
    rng = np.random.default_rng(m * 10 + r)
    d = [Fraction(int(v)) for v in rng.integers(-9, 10, a)]
    f = [Fraction(int(v)) for v in rng.integers(-9, 10, r)]
    u = [sum(g[j][k] * f[k] for k in range(r)) for j in range(a)]
    v = [sum(bt[j][i] * d[i] for i in range(a)) for j in range(a)]
    y = [sum(at[i][j] * u[j] * v[j] for j in range(a)) for i in range(m)]
    assert y == [sum(d[i + k] * f[k] for k in range(r)) for i in range(m)]


@pytest.mark.parametrize("name", list(R4_CASES))
def test_f_m4_reference_matches_direct_conv_in_float64(name):
    x, wt, padding, m = _r4_data(name)
    x, wt = x.astype(np.float64), wt.astype(np.float64)
    c = x.shape[1]
    u = transform_weight(wt, m, 16)
    assert u.shape == (m + 3, m + 3, wt.shape[0] // 16, c, 16)
    got = conv2d_winograd(layout_transform(x, "NCHW", f"NCHW{c}c"), u, m, padding, f"NCHW{c}c")
    want = layout_transform(conv2d(x, wt, (1, 1), padding, (1, 1)), "NCHW", "NCHW16c")
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()


def test_f44_float32_error_is_within_1e_4_of_the_outputs_max():
    """F(4,4) in float32 (weight transformed in float64, then rounded, as
    relay-fold-constant does; the transforms and products in float32)
    against the float64 direct conv on random normal data and weights:
    measured 4.9e-6 relative to the output's max (the x86 kernel's 2.7e-6,
    F(2,4)'s 7e-7), well within the 1e-4 the kernel tests allow."""
    x, wt, padding, m = _r4_data("f44-stem-12c-19x19", seed=3)
    u = transform_weight(wt, m, 16)  # float32
    assert u.dtype == np.float32
    bt, _, at = (
        np.array([[float(v) for v in row] for row in mat], np.float32)
        for mat in winograd_matrices(m, 4)
    )
    a = m + 3
    xs = x[0]  # [C, H, W], whole tiles: (19 - 3) / 4
    th = (xs.shape[1] - 3) // m
    out = np.zeros((wt.shape[0], th * m, th * m), np.float32)
    uk = u.transpose(0, 1, 3, 2, 4).reshape(a, a, xs.shape[0], -1)  # [a, a, C, K]
    for ty in range(th):
        for tx in range(th):
            d = xs[:, ty * m : ty * m + a, tx * m : tx * m + a]
            v = np.einsum("ei,cij,fj->efc", bt, d, bt, dtype=np.float32)
            prod = np.einsum("efc,efck->efk", v, uk, dtype=np.float32)
            y = np.einsum("pe,efk,qf->kpq", at, prod, at, dtype=np.float32)
            out[:, ty * m : ty * m + m, tx * m : tx * m + m] = y
    want = conv2d(x.astype(np.float64), wt.astype(np.float64), (1, 1), padding, (1, 1))[0]
    error = np.abs(out - want).max() / np.abs(want).max()
    assert error < 2e-5, error


def _r4_module(name, bias):
    x, wt, padding, m = _r4_data(name, seed=1)
    c = x.shape[1]
    return (*_winograd_module(x, wt, padding, m, 16, c, bias), x, wt, padding)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if "padded" in n else n for n in R4_CASES],
)
def test_f_m4_kernel_with_bias_relu_matches_numpy(name):
    """The x86 kernel on a 4x4 weight (12-channel blocks: the stem's
    space-to-depth data), against NumPy's direct conv: within 1e-4 of the
    output's max (F(4,4) measured 2.7e-6)."""
    bias = np.random.default_rng(2).standard_normal(R4_CASES[name][1]).astype(np.float32)
    module, xb, x, wt, padding = _r4_module(name, bias)
    got, _ = _run(module, [xb])
    want = np.maximum(conv2d(x, wt, (1, 1), padding, (1, 1)) + bias.reshape(1, -1, 1, 1), 0)
    want = layout_transform(want, "NCHW", "NCHW16c")
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_type_rule_takes_a_4x4_weight_and_refuses_a_5x5_one():
    g = GraphBuilder(TensorType(f32, [1, 1, 10, 10, 12]))
    w = g.const(np.zeros((16, 12, 4, 4), np.float32))
    u = g.add(relay.WinogradWeightTransformOp(w, 4, 16))
    assert u.type.get_shape() == (7, 7, 1, 12, 16)
    y = g.add(relay.Conv2dWinogradOp(g.args[0], u, 4, "NCHW12c"))
    assert y.type.get_shape() == (1, 1, 7, 7, 16)
    with pytest.raises(Exception, match=r"expects a weight \[K, C, r, r\] with r in \(3, 4\)"):
        relay.WinogradWeightTransformOp(g.const(np.zeros((16, 12, 5, 5), np.float32)), 4, 16)


def test_large_products_are_computed_a_row_of_tiles_at_a_time():
    """ResNet-50's stem in F(4,4) (12 channels on 115x115 -> 64 on 112x112):
    its GEMM products (9.8 MB whole) are computed a row of 28 tiles at a
    time into a buffer of that row's size (4 blocks x 28 tiles x 7 x 7 x
    16), allocated under the output's row loop, before the output
    transform reads them; the kernel computes the conv."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 12, 115, 115), dtype=np.float32)
    wt = rng.standard_normal((64, 12, 4, 4), dtype=np.float32)
    bias = rng.standard_normal(64).astype(np.float32)
    module, xb = _winograd_module(x, wt, (0, 0, 0, 0), 4, 16, 12, bias)
    with PassContext(opt_level=3):
        lowered = lower(module.clone(), stage="tir")
    (kernel,) = [
        op for op in lowered.ops if op.name == "tir.prim_func" and "winograd" in str(op.sym_name)
    ]
    (gemm,) = [
        op
        for op in kernel.walk()
        if op.name == "tir.allocate" and op.res.name_hint == "T_winograd_gemm"
    ]
    assert gemm.res.type.get_shape() == (4 * 28 * 7 * 7 * 16,)  # flattened
    assert gemm.parent_op().name == "tir.for"
    got, _ = _run(module, [xb])
    want = np.maximum(conv2d(x, wt, (1, 1), (0, 0, 0, 0), (1, 1)) + bias.reshape(1, -1, 1, 1), 0)
    want = layout_transform(want, "NCHW", "NCHW16c")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
