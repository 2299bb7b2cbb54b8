"""The x86 pools (xtvm.topi.x86.pool: padded once, vectorized along the row
or the channel block) through the whole pipeline against the NumPy
reference: odd sizes, asymmetric padding, ceil_mode, strides, dilation,
count_include_pad, fused producers and epilogues, NaN, integer data, and
the blocked ``[N, C/c, H, W, c]`` max_pool3d of the NCHWc passes."""

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i32
from xdsl.ir import Block, Region

import xtvm
from xtvm.dialects import relay, tir
from xtvm.driver.build_module import lower
from xtvm.reference.relay import evaluate


def _module(make, shape, dtype=f32):
    types = [TensorType(dtype, shape)]
    block = Block(arg_types=types)
    ops = make(block.args[0])
    block.add_ops([*ops, func.ReturnOp(ops[-1].results[0])])
    fn = func.FuncOp("main", (types, [ops[-1].results[0].type]), Region(block))
    return ModuleOp([fn])


def _run(module, x):
    gmod = xtvm.build(module)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    return gmod.get_output(0).numpy()


def _vectorized(module) -> bool:
    tir_module = lower(module.clone(), stage="tir")
    return any(
        op.kind.data == "vectorized" for op in tir_module.walk() if isinstance(op, tir.ForOp)
    )


POOLS = {
    # name: (op, shape, attrs)
    "max-3x3-s1-pad1-7x7": (
        relay.MaxPool2dOp,
        [1, 5, 7, 7],
        {"pool_size": (3, 3), "padding": (1, 1, 1, 1)},
    ),
    "max-3x3-s2-pad-end": (
        relay.MaxPool2dOp,
        [1, 3, 14, 14],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (0, 0, 1, 1)},
    ),
    "max-3x3-s2-wide-halves": (
        relay.MaxPool2dOp,
        [1, 2, 61, 66],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1)},
    ),
    "max-3x3-s2-wide-halves-no-pad": (
        relay.MaxPool2dOp,
        [1, 3, 11, 55],
        {"pool_size": (3, 3), "strides": (2, 2)},
    ),
    "max-3x3-s2-wide-halves-ceil-dilated": (
        relay.MaxPool2dOp,
        [1, 2, 12, 71],
        {
            "pool_size": (3, 3),
            "strides": (2, 2),
            "dilation": (1, 2),
            "padding": (1, 2, 0, 1),
            "ceil_mode": True,
        },
    ),
    "avg-3x3-s2-wide-halves-include-pad": (
        relay.AvgPool2dOp,
        [1, 2, 9, 60],
        {
            "pool_size": (3, 3),
            "strides": (2, 2),
            "padding": (1, 1, 1, 1),
            "count_include_pad": True,
        },
    ),
    "max-2x2-s2-wide-generic": (
        relay.MaxPool2dOp,
        [1, 2, 8, 68],
        {"pool_size": (2, 2), "strides": (2, 2)},
    ),
    "max-odd-asymmetric": (
        relay.MaxPool2dOp,
        [2, 3, 13, 11],
        {"pool_size": (3, 2), "padding": (2, 0, 1, 1)},
    ),
    "max-ceil-mode": (
        relay.MaxPool2dOp,
        [1, 4, 10, 13],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 0, 0), "ceil_mode": True},
    ),
    "max-dilated": (
        relay.MaxPool2dOp,
        [1, 3, 12, 15],
        {"pool_size": (2, 3), "dilation": (2, 2), "padding": (1, 2, 1, 2)},
    ),
    "max-stride3-wide-row": (
        relay.MaxPool2dOp,
        [1, 2, 9, 40],
        {"pool_size": (3, 3), "strides": (1, 3), "padding": (1, 1, 1, 1)},
    ),
    "max-row-tile-partial": (
        relay.MaxPool2dOp,
        [1, 2, 9, 37],
        {"pool_size": (3, 3), "padding": (1, 1, 1, 1)},
    ),
    "avg-3x3-s1-pad1": (
        relay.AvgPool2dOp,
        [1, 6, 14, 14],
        {"pool_size": (3, 3), "padding": (1, 1, 1, 1)},
    ),
    "avg-count-include-pad": (
        relay.AvgPool2dOp,
        [1, 3, 9, 10],
        {
            "pool_size": (3, 3),
            "strides": (2, 2),
            "padding": (1, 1, 2, 2),
            "count_include_pad": True,
        },
    ),
    "avg-ceil-include-pad": (
        relay.AvgPool2dOp,
        [1, 3, 8, 11],
        {
            "pool_size": (3, 3),
            "strides": (2, 2),
            "padding": (1, 1, 1, 1),
            "ceil_mode": True,
            "count_include_pad": True,
        },
    ),
    "avg-ceil-exclude-pad": (
        relay.AvgPool2dOp,
        [1, 3, 8, 11],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 0, 1, 0), "ceil_mode": True},
    ),
    "avg-no-pad-constant-count": (
        relay.AvgPool2dOp,
        [1, 4, 12, 12],
        {"pool_size": (2, 2), "strides": (2, 2)},
    ),
    "avg-dilated": (
        relay.AvgPool2dOp,
        [1, 2, 11, 12],
        {"pool_size": (3, 2), "dilation": (2, 3), "padding": (2, 1, 1, 2)},
    ),
    "max1d-pad-ceil": (
        relay.MaxPool1dOp,
        [1, 3, 20],
        {"pool_size": (3,), "strides": (2,), "padding": (1, 1), "ceil_mode": True},
    ),
    "avg1d-pad": (relay.AvgPool1dOp, [2, 3, 17], {"pool_size": (4,), "padding": (2, 1)}),
    "max3d": (
        relay.MaxPool3dOp,
        [1, 2, 5, 6, 7],
        {"pool_size": (2, 3, 3), "padding": (1, 1, 1, 0, 1, 1)},
    ),
    "avg3d-include-pad": (
        relay.AvgPool3dOp,
        [1, 2, 5, 6, 7],
        {
            "pool_size": (2, 2, 3),
            "strides": (1, 2, 1),
            "padding": (1, 0, 1, 0, 1, 1),
            "count_include_pad": True,
        },
    ),
}


@pytest.mark.parametrize("name", list(POOLS))
def test_pool_matches_numpy(name):
    op_class, shape, attrs = POOLS[name]
    module = _module(lambda x: [op_class(x, **attrs)], shape)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    op = op_class(Block(arg_types=[TensorType(f32, shape)]).args[0], **attrs)
    ref = evaluate(op.name, [x], op.attrs)
    np.testing.assert_allclose(_run(module, x), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "name",
    [
        "max-3x3-s1-pad1-7x7",
        "max-3x3-s2-pad-end",
        "avg-3x3-s1-pad1",
        "max3d",
        "max-3x3-s2-wide-halves",
    ],
)
def test_pool_rows_are_vectorized(name):
    """The kernels the light models run (narrow rows, stride 1) are vector code."""
    op_class, shape, attrs = POOLS[name]
    assert _vectorized(_module(lambda x: [op_class(x, **attrs)], shape))


def test_fused_producer_and_epilogue():
    """relu → max pool → exp: the exp is fused into the pool's kernel and
    runs in the tile's write-back."""
    shape = [1, 4, 9, 9]
    types = [TensorType(f32, shape)]

    def make(x):
        r = relay.ReluOp(x)
        p = relay.MaxPool2dOp(r.results[0], pool_size=(3, 3), padding=(1, 1, 1, 1))
        e = relay.ExpOp(p.results[0])
        return [r, p, e]

    module = _module(make, shape)
    kernels = {
        op.sym_name.data
        for op in lower(module.clone(), stage="tir").walk()
        if isinstance(op, tir.PrimFuncOp)
    }
    assert "fused_nn_max_pool2d_exp" in kernels
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    relu = np.maximum(x, 0)
    op = relay.MaxPool2dOp(Block(arg_types=types).args[0], pool_size=(3, 3), padding=(1, 1, 1, 1))
    ref = np.exp(evaluate(op.name, [relu], op.attrs))
    np.testing.assert_allclose(_run(module, x), ref, rtol=1e-5, atol=1e-6)


def test_max_pool_propagates_nan_and_keeps_infinities():
    shape = [1, 2, 7, 7]
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    x[0, 0, 3, 3] = np.nan
    x[0, 1, 0, 0] = -np.inf
    x[0, 1, 6, 6] = np.inf
    attrs = {"pool_size": (3, 3), "padding": (1, 1, 1, 1)}
    out = _run(_module(lambda v: [relay.MaxPool2dOp(v, **attrs)], shape), x)
    assert np.isnan(out[0, 0, 2:5, 2:5]).all() and not np.isnan(out[0, 0, 0]).any()
    assert out[0, 1, 6, 6] == np.inf and np.isfinite(out[0, 1, 0, 0])


@pytest.mark.parametrize(
    "window, position", [(3, p) for p in range(9)] + [(2, p) for p in range(4)]
)
def test_blocked_max_pool_propagates_nan_from_any_window_position(window, position):
    """The pools' maximum (overlapping 3 x 3 / 2 windows: max plus a NaN
    term; disjoint 2 x 2 / 2 ones: a select pair) keeps a NaN accumulator
    and takes a NaN element, so a NaN anywhere in the window (first,
    middle or last element reduced) gives NaN, in its channel only."""
    shape = [1, 2, window, window, 16]
    x = np.random.default_rng(position).standard_normal(shape).astype(np.float32)
    x[0, 1, position // window, position % window, 5] = np.nan
    attrs = {"pool_size": (window, window, 1), "strides": (2, 2, 1)}
    out = _run(_module(lambda v: [relay.MaxPool3dOp(v, **attrs)], shape), x)
    nan = np.zeros(out.shape, bool)
    nan[0, 1, 0, 0, 5] = True
    np.testing.assert_array_equal(np.isnan(out), nan)
    np.testing.assert_array_equal(out[~nan], x.max(axis=(2, 3), keepdims=True)[~nan])


def test_integer_pools():
    shape = [1, 3, 7, 9]
    x = np.random.default_rng(3).integers(-100, 100, shape).astype(np.int32)
    block_arg = Block(arg_types=[TensorType(i32, shape)]).args[0]
    attrs = {"pool_size": (3, 3), "padding": (1, 1, 1, 1)}
    for op_class in (relay.MaxPool2dOp, relay.AvgPool2dOp):
        module = _module(lambda v, op_class=op_class: [op_class(v, **attrs)], shape, i32)
        op = op_class(block_arg, **attrs)
        np.testing.assert_array_equal(_run(module, x), evaluate(op.name, [x], op.attrs))


@pytest.mark.parametrize(
    "strides, padding",
    [((1, 1), (1, 1, 1, 1)), ((2, 2), (0, 0, 1, 1)), ((2, 2), (0, 0, 0, 0))],
    ids=["s1-pad1", "s2-pad-end", "s2"],
)
def test_blocked_max_pool3d_vectorizes_the_channel_block(strides, padding):
    """max_pool2d on NCHW16c data as the NCHWc passes write it: a 3-d pool
    with a window of 1 along c equals the NCHW pool, blocked; the vector
    runs along c."""
    n, c, h, w, block = 1, 32, 11, 13, 16
    top, left, bottom, right = padding
    attrs = {
        "pool_size": (3, 3, 1),
        "strides": (*strides, 1),
        "padding": (top, left, 0, bottom, right, 0),
    }
    shape = [n, c // block, h, w, block]
    module = _module(lambda v: [relay.MaxPool3dOp(v, **attrs)], shape)
    assert _vectorized(module)
    x = np.random.default_rng(4).standard_normal((n, c, h, w)).astype(np.float32)
    blocked = x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2)
    op = relay.MaxPool2dOp(
        Block(arg_types=[TensorType(f32, [n, c, h, w])]).args[0],
        pool_size=(3, 3),
        strides=strides,
        padding=padding,
    )
    ref = evaluate(op.name, [x], op.attrs)
    out = _run(module, np.ascontiguousarray(blocked))
    unblocked = out.transpose(0, 1, 4, 2, 3).reshape(ref.shape)
    np.testing.assert_allclose(unblocked, ref, rtol=0, atol=0)


@pytest.mark.parametrize(
    "shape", [[1, 7, 13, 13], [2, 5, 7, 3], [1, 2, 3, 70]], ids=["13x13", "7x3", "wide-generic"]
)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_global_pools_match_numpy(kind, shape):
    op_class = relay.GlobalMaxPool2dOp if kind == "max" else relay.GlobalAvgPool2dOp
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    if kind == "max":
        x[0, 1, 2, 1] = np.nan
    out = _run(_module(lambda v: [op_class(v)], shape), x)
    ref = (
        np.max(x, axis=(2, 3), keepdims=True)
        if kind == "max"
        else x.mean(axis=(2, 3), keepdims=True)
    )
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_global_pool_columns_are_vectorized():
    assert _vectorized(_module(lambda v: [relay.GlobalAvgPool2dOp(v)], [1, 8, 13, 13]))


def test_integer_global_avg_pool_truncates():
    shape = [1, 3, 4, 5]
    x = np.random.default_rng(6).integers(-50, 50, shape).astype(np.int32)
    out = _run(_module(lambda v: [relay.GlobalAvgPool2dOp(v)], shape, i32), x)
    np.testing.assert_array_equal(
        out, np.trunc(x.sum(axis=(2, 3), keepdims=True) / 20).astype(np.int32)
    )


def test_blocked_avg_pool3d_divides_by_the_pixel_count():
    """avg_pool2d on NCHW16c data as a 3-d pool with a window of 1 along c:
    the divisor varies only with the pixel (a [H, W] count stage)."""
    n, c, h, w, block = 1, 32, 9, 10, 16
    attrs = {"pool_size": (3, 3, 1), "padding": (1, 1, 0, 1, 1, 0)}
    shape = [n, c // block, h, w, block]
    module = _module(lambda v: [relay.AvgPool3dOp(v, **attrs)], shape)
    assert '%T_pool_count = tir.allocate "global" : memref<90xf32>' in str(
        lower(module.clone(), stage="tir")
    )
    x = np.random.default_rng(7).standard_normal((n, c, h, w)).astype(np.float32)
    blocked = np.ascontiguousarray(x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))
    op = relay.AvgPool2dOp(
        Block(arg_types=[TensorType(f32, [n, c, h, w])]).args[0],
        pool_size=(3, 3),
        padding=(1, 1, 1, 1),
    )
    ref = evaluate(op.name, [x], op.attrs)
    out = _run(module, blocked).transpose(0, 1, 4, 2, 3).reshape(ref.shape)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
