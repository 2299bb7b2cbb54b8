"""Shape, concatenation, split and indexing ops against onnxruntime ``Concat``,
``Split``, ``Squeeze``, ``Unsqueeze``, ``ConstantOfShape``, ``Gather`` and ``Slice``."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects.relay import (
    ConcatenateOp,
    ExpandDimsOp,
    FullOp,
    SplitOp,
    SqueezeOp,
    StridedSliceOp,
    TakeOp,
)

I64 = np.int64


@pytest.mark.parametrize(
    ("shapes", "axis"),
    [
        ([(2, 3), (2, 5)], 1),
        ([(1, 2, 4), (3, 2, 4), (2, 2, 4)], 0),
        ([(2, 3, 1), (2, 3, 2)], -1),
        ([(4,)], 0),
    ],
)
def test_concatenate_matches_onnxruntime(shapes, axis):
    inputs = [random(s) for s in shapes]
    ours = run_relay(lambda *v: ConcatenateOp(v, axis), inputs)
    assert_same(ours, run_onnx("Concat", inputs, axis=axis))


@pytest.mark.parametrize(("sections", "axis"), [(2, 1), (3, 0), (1, 2), (4, -1)])
def test_split_sections_match_onnxruntime(sections, axis):
    data = random((6, 4, 8))
    ours = run_relay(lambda x: SplitOp(x, sections, axis), [data])
    theirs = run_onnx("Split", [data], n_outputs=sections, num_outputs=sections, axis=axis)
    assert_same(ours, theirs)


@pytest.mark.parametrize(("indices", "axis"), [((1, 4), 1), ((2,), 0), ((0, 3, 3, 5), 1), ((), 0)])
def test_split_indices_match_onnxruntime(indices, axis):
    """Split indices are where pieces start; ONNX takes the piece sizes."""
    data = random((4, 6))
    ours = run_relay(lambda x: SplitOp(x, indices, axis), [data])
    edges = [0, *indices, data.shape[axis]]
    sizes = np.diff(edges).astype(I64)
    theirs = run_onnx("Split", [data, sizes], n_outputs=len(sizes), axis=axis)
    assert_same(ours, theirs)


@pytest.mark.parametrize("axis", [None, (0,), (2, -1), (-2,)])
def test_squeeze_matches_onnxruntime(axis):
    data = random((1, 5, 1, 1))
    ours = run_relay(lambda x: SqueezeOp(x, axis), [data])
    axes = None if axis is None else np.array(axis, I64)
    assert_same(ours, run_onnx("Squeeze", [data, axes]))


@pytest.mark.parametrize(("axis", "num_newaxis"), [(0, 1), (2, 1), (-1, 1), (1, 3), (-3, 2)])
def test_expand_dims_matches_onnxruntime_unsqueeze(axis, num_newaxis):
    data = random((4, 5))
    ours = run_relay(lambda x: ExpandDimsOp(x, axis, num_newaxis), [data])
    # expand_dims inserts its new axes at one input position; ONNX Unsqueeze
    # names output positions.
    start = axis % (data.ndim + 1)
    axes = np.arange(start, start + num_newaxis, dtype=I64)
    assert_same(ours, run_onnx("Unsqueeze", [data, axes]))


@pytest.mark.parametrize(
    ("fill", "dtype"),
    [
        (np.array(1.5, np.float32), None),
        (np.array(7, I64), "float32"),
        (np.array(-2.5, np.float32), "int32"),
    ],
)
def test_full_matches_onnxruntime_constant_of_shape(fill, dtype):
    ours = run_relay(lambda v: FullOp(v, (2, 3, 4), dtype), [fill])
    value = fill.astype(dtype or fill.dtype).reshape(1)
    theirs = run_onnx(
        "ConstantOfShape", [np.array([2, 3, 4], I64)], value=numpy_helper.from_array(value)
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    ("shape", "indices_shape", "axis"),
    [((10, 4), (3,), 0), ((3, 7, 2), (2, 2), 1), ((4, 5), (), -1)],
)
def test_take_wrap_matches_onnxruntime_gather(shape, indices_shape, axis):
    """ONNX Gather's negative indices count from the end: ``take`` in ``wrap`` mode."""
    data = random(shape)
    size = shape[axis]
    indices = random(indices_shape, "int64", -size, size)
    ours = run_relay(lambda d, i: TakeOp(d, i, axis, mode="wrap"), [data, indices])
    assert_same(ours, run_onnx("Gather", [data, indices], axis=axis))


def test_take_clip_mode_and_flattened_data():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    indices = np.array([[-5, 0], [3, 40]], np.int32)
    (got,) = run_relay(lambda d, i: TakeOp(d, i, axis=0), [data, indices])
    np.testing.assert_array_equal(got, data[[[0, 0], [2, 2]]])
    (got,) = run_relay(lambda d, i: TakeOp(d, i), [data, indices])
    np.testing.assert_array_equal(got, [[0, 0], [3, 11]])
    (got,) = run_relay(lambda d, i: TakeOp(d, i, mode="wrap"), [data, indices])
    np.testing.assert_array_equal(got, [[7, 0], [3, 4]])


INT64_MAX, INT64_MIN = np.iinfo(I64).max, np.iinfo(I64).min
SLICES = [
    # (begin, end, strides, axes)
    ((1, 0), (3, -1), (1, 2), None),
    ((0,), (INT64_MAX,), (3,), (2,)),
    ((-1,), (INT64_MIN,), (-1,), (1,)),
    ((-2, 10), (-100, 0), (-2, -3), (0, 2)),
    ((5, -3), (2, 100), (1, 1), (2, 1)),  # empty slice
    ((0, 1, 2), (4, 5, 6), (2, 2, 2), None),
    ((-100,), (100,), None, (-1,)),
]


@pytest.mark.parametrize(("begin", "end", "strides", "axes"), SLICES)
def test_strided_slice_matches_onnxruntime(begin, end, strides, axes):
    data = random((4, 6, 7))
    ours = run_relay(lambda x: StridedSliceOp(x, begin, end, strides, axes), [data])
    onnx_axes = np.arange(len(begin), dtype=I64) if axes is None else np.array(axes, I64)
    onnx_steps = None if strides is None else np.array(strides, I64)
    theirs = run_onnx(
        "Slice", [data, np.array(begin, I64), np.array(end, I64), onnx_axes, onnx_steps]
    )
    assert_same(ours, theirs)
