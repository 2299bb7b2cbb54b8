"""The 2-d pools: builders, type rules and NumPy references against
onnxruntime ``MaxPool``, ``AveragePool``, ``GlobalMaxPool``, ``GlobalAveragePool``."""

from __future__ import annotations

import pytest
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects.relay import AvgPool2dOp, GlobalAvgPool2dOp, GlobalMaxPool2dOp, MaxPool2dOp

CASES = {
    # name: (data shape, pool_size, strides, padding [t, l, b, r], dilation, ceil_mode)
    "plain": ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False),
    "overlapping": ((1, 4, 9, 9), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    "asymmetric_pads": ((1, 2, 7, 6), (3, 2), (1, 2), (0, 1, 2, 0), (1, 1), False),
    "ceil": ((1, 2, 7, 7), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), True),
    "ceil_padded": ((1, 2, 6, 9), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
    # A last window that would start in the bottom padding is dropped.
    "ceil_drop_last": ((1, 1, 5, 5), (2, 2), (2, 2), (1, 1, 1, 1), (1, 1), True),
    "ceil_asymmetric": ((1, 3, 10, 11), (3, 2), (3, 2), (2, 0, 1, 1), (1, 1), True),
    "dilated": ((1, 2, 10, 9), (2, 3), (1, 2), (1, 1, 1, 1), (2, 2), False),
    "dilated_ceil": ((1, 2, 10, 9), (3, 2), (2, 2), (1, 0, 1, 1), (2, 3), True),
}


@pytest.mark.parametrize("case", CASES)
def test_max_pool2d_matches_onnxruntime(case):
    shape, window, strides, padding, dilation, ceil = CASES[case]
    data = random(shape)
    ours = run_relay(lambda d: MaxPool2dOp(d, window, strides, dilation, padding, ceil), [data])
    theirs = run_onnx(
        "MaxPool",
        [data],
        kernel_shape=list(window),
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        ceil_mode=int(ceil),
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize("count_include_pad", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_avg_pool2d_matches_onnxruntime(case, count_include_pad):
    shape, window, strides, padding, dilation, ceil = CASES[case]
    data = random(shape)
    ours = run_relay(
        lambda d: AvgPool2dOp(d, window, strides, dilation, padding, ceil, count_include_pad),
        [data],
    )
    theirs = run_onnx(
        "AveragePool",
        [data],
        kernel_shape=list(window),
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        ceil_mode=int(ceil),
        count_include_pad=int(count_include_pad),
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    ("op", "onnx_op"),
    [(GlobalMaxPool2dOp, "GlobalMaxPool"), (GlobalAvgPool2dOp, "GlobalAveragePool")],
)
def test_global_pools_match_onnxruntime(op, onnx_op):
    data = random((2, 5, 7, 6))
    assert_same(run_relay(op, [data]), run_onnx(onnx_op, [data]))
