"""The reductions, softmax family, N-d convolutions and pools, transposed
convolutions, topk, cumsum and einsum: builders, type rules and NumPy
references against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects import relay

# --- reductions ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_prod_matches_onnxruntime(dtype, keepdims):
    data = random((2, 3, 4), dtype, -3, 3)
    ours = run_relay(lambda d: relay.ProdOp(d, axis=[0, 2], keepdims=keepdims), [data])
    theirs = run_onnx(
        "ReduceProd", [data, np.array([0, 2])], opset=18, keepdims=int(keepdims)
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("select_last_index", [False, True])
def test_arg_reductions_match_onnxruntime(op_type, axis, select_last_index):
    # Small integers hold ties: the first or last position must win.
    data = random((5, 4, 3), "int32", -2, 2)
    op = relay.ArgMaxOp if op_type == "ArgMax" else relay.ArgMinOp
    ours = run_relay(
        lambda d: op(d, axis=[axis], keepdims=True, select_last_index=select_last_index), [data]
    )
    theirs = run_onnx(op_type, [data], axis=axis, select_last_index=int(select_last_index))
    assert_same(ours, theirs)


def test_max_and_min_of_nothing_are_infinite():
    data = np.zeros((3, 0), np.float32)
    (high,) = run_relay(lambda d: relay.MaxOp(d, axis=[1]), [data])
    (low,) = run_relay(lambda d: relay.MinOp(d, axis=[1]), [data])
    assert (high == -np.inf).all() and (low == np.inf).all()


# --- softmax family -------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "op_type"), [(relay.LogSoftmaxOp, "LogSoftmax"), (relay.HardmaxOp, "Hardmax")]
)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_axis_norms_match_onnxruntime(op, op_type, axis):
    data = random((3, 4, 5), "float32", -50, 50)
    data[0, 0, :2] = data[0, 0, 2]  # a tie: hardmax takes the first
    ours = run_relay(lambda d: op(d, axis=axis), [data])
    assert_same(ours, run_onnx(op_type, [data], axis=axis), rtol=1e-5, atol=1e-5)


# --- convolutions -----------------------------------------------------------------

CONV_CASES = {
    # name: (data shape, weight shape, strides, padding, dilation, groups)
    "1d": ((2, 4, 9), (6, 2, 3), (2,), (1, 2), (1,), 2),
    "1d_dilated": ((1, 3, 12), (2, 3, 4), (1,), (0, 0), (3,), 1),
    "3d": ((1, 2, 5, 6, 5), (3, 2, 2, 3, 2), (1, 2, 1), (1, 0, 1, 0, 1, 1), (2, 1, 1), 1),
    "3d_depthwise": ((1, 3, 4, 4, 4), (3, 1, 3, 3, 3), (2, 2, 2), (1, 1, 1, 1, 1, 1), (1, 1, 1), 3),
}


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_nd_matches_onnxruntime(case):
    x_shape, w_shape, strides, padding, dilation, groups = CONV_CASES[case]
    data, weight = random(x_shape), random(w_shape)
    op = {3: relay.Conv1dOp, 5: relay.Conv3dOp}[len(x_shape)]
    ours = run_relay(lambda d, w: op(d, w, strides, padding, dilation, groups), [data, weight])
    theirs = run_onnx(
        "Conv",
        [data, weight],
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        group=groups,
    )
    assert_same(ours, theirs)


TRANSPOSE_CASES = {
    # name: (data shape, weight shape, strides, padding, output_padding, dilation, groups)
    "1d": ((1, 3, 5), (3, 2, 3), (1,), (0, 0), (0,), (1,), 1),
    "2d_strided": ((1, 4, 5, 5), (4, 2, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (1, 1), 1),
    "2d_grouped": ((2, 4, 3, 4), (4, 3, 3, 2), (3, 2), (0, 1, 2, 0), (1, 0), (2, 1), 2),
    "3d": ((1, 2, 3, 4, 3), (2, 3, 3, 2, 2), (2, 1, 2), (1, 0, 0, 0, 1, 0), (0, 0, 1), (1,) * 3, 1),
}


@pytest.mark.parametrize("case", TRANSPOSE_CASES)
def test_conv_transpose_matches_onnxruntime(case):
    x_shape, w_shape, strides, padding, extra, dilation, groups = TRANSPOSE_CASES[case]
    data, weight = random(x_shape), random(w_shape)
    op = {3: relay.Conv1dTransposeOp, 4: relay.Conv2dTransposeOp, 5: relay.Conv3dTransposeOp}
    ours = run_relay(
        lambda d, w: op[len(x_shape)](d, w, strides, padding, extra, dilation, groups),
        [data, weight],
    )
    theirs = run_onnx(
        "ConvTranspose",
        [data, weight],
        strides=list(strides),
        pads=list(padding),
        output_padding=list(extra),
        dilations=list(dilation),
        group=groups,
    )
    assert_same(ours, theirs)


# --- pools -------------------------------------------------------------------------

POOL_CASES = {
    # name: (data shape, pool_size, strides, padding, dilation, ceil_mode)
    "1d": ((2, 3, 9), (3,), (2,), (1, 1), (1,), True),
    "1d_dilated": ((1, 2, 11), (2,), (1,), (0, 1), (3,), False),
    "3d": ((1, 2, 5, 6, 7), (2, 3, 2), (2, 1, 2), (0, 0, 0, 0, 0, 0), (1, 2, 1), False),
    "3d_ceil_padded": ((1, 2, 5, 6, 7), (2, 3, 2), (2, 2, 2), (1, 1, 1, 1, 1, 0), (1, 1, 1), True),
}


@pytest.mark.parametrize("count_include_pad", [None, False, True])
@pytest.mark.parametrize("case", POOL_CASES)
def test_pool_nd_matches_onnxruntime(case, count_include_pad):
    shape, window, strides, padding, dilation, ceil = POOL_CASES[case]
    data = random(shape)
    n = len(window)
    geometry = {"strides": strides, "dilation": dilation, "padding": padding, "ceil_mode": ceil}
    attrs = {
        "kernel_shape": list(window),
        "strides": list(strides),
        "pads": list(padding),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    if count_include_pad is None:
        op = {1: relay.MaxPool1dOp, 3: relay.MaxPool3dOp}[n]
        ours = run_relay(lambda d: op(d, window, **geometry), [data])
        theirs = run_onnx("MaxPool", [data], **attrs)
    else:
        op = {1: relay.AvgPool1dOp, 3: relay.AvgPool3dOp}[n]
        ours = run_relay(
            lambda d: op(d, window, **geometry, count_include_pad=count_include_pad), [data]
        )
        theirs = run_onnx(
            "AveragePool", [data], **attrs, count_include_pad=int(count_include_pad)
        )
    assert_same(ours, theirs)


@pytest.mark.parametrize("column_major", [False, True])
@pytest.mark.parametrize(("padding", "ceil_mode"), [((0, 0, 0, 0), False), ((1, 0, 1, 1), True)])
def test_max_pool_with_argmax_matches_onnxruntime(column_major, padding, ceil_mode):
    data = random((2, 3, 7, 6), "float32")
    data[0, 0, :2, :2] = 2.0  # a tie: the first window element wins
    geometry = {"strides": (2, 2), "padding": padding, "ceil_mode": ceil_mode}
    ours = run_relay(
        lambda d: relay.MaxPool2dWithArgmaxOp(d, (3, 2), **geometry, column_major=column_major),
        [data],
    )
    theirs = run_onnx(
        "MaxPool",
        [data],
        n_outputs=2,
        kernel_shape=[3, 2],
        strides=[2, 2],
        pads=list(padding),
        ceil_mode=int(ceil_mode),
        storage_order=int(column_major),
    )
    assert_same(ours, theirs)


# --- topk, cumsum, einsum ------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_onnxruntime(dtype, axis, largest):
    data = random((6, 5), dtype, -3, 3)  # integers hold ties: lower positions first
    ours = run_relay(lambda d: relay.TopKOp(d, k=4, axis=axis, is_ascend=not largest), [data])
    theirs = run_onnx(
        "TopK", [data, np.array([4])], n_outputs=2, axis=axis, largest=int(largest)
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_matches_onnxruntime(dtype, exclusive, reverse):
    data = random((3, 5), dtype, -9, 9)
    ours = run_relay(
        lambda d: relay.CumsumOp(d, axis=1, exclusive=exclusive, reverse=reverse), [data]
    )
    theirs = run_onnx(
        "CumSum", [data, np.array(1)], exclusive=int(exclusive), reverse=int(reverse)
    )
    assert_same(ours, theirs)


EINSUM_CASES = {
    "bij,bjk->bik": [(5, 2, 3), (5, 3, 4)],
    "...ii->...i": [(3, 5, 5)],
    "i,i": [(5,), (5,)],
    "ij->ji": [(3, 4)],
    "ij->": [(3, 4)],
    "...ij,...jk": [(2, 1, 3, 4), (1, 5, 4, 2)],
    "i,j->ij": [(3,), (4,)],
}


@pytest.mark.parametrize("equation", EINSUM_CASES)
def test_einsum_matches_onnxruntime(equation):
    inputs = [random(shape) for shape in EINSUM_CASES[equation]]
    ours = run_relay(lambda *v: relay.EinsumOp(list(v), equation), inputs)
    assert_same(ours, run_onnx("Einsum", inputs, equation=equation), rtol=1e-5, atol=1e-5)


def test_bad_einsum_is_a_type_error():
    data = random((2, 3))
    with pytest.raises(relay.RelayTypeError, match="label 'j' has sizes 3 and 2"):
        run_relay(lambda a, b: relay.EinsumOp([a, b], "ij,jk->ik"), [data, data])
