"""The NumPy references of the gather, scatter, layout, creation and resize
ops against onnxruntime (``GatherElements``, ``GatherND``,
``ScatterElements``, ``ScatterND``, ``Expand``, ``Tile``,
``ReverseSequence``, ``Pad``, ``DepthToSpace``, ``SpaceToDepth``,
``Range``, ``OneHot``, ``Trilu``, ``Resize``), each relay op built with its
Python builder and its type rule checked against the reference's output."""

from __future__ import annotations

import numpy as np
import pytest
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects.relay import (
    ArangeOp,
    BroadcastToOp,
    DepthToSpaceOp,
    GatherNdOp,
    GatherOp,
    OneHotOp,
    PadOp,
    Resize2dOp,
    ReverseSequenceOp,
    ScatterElementsOp,
    ScatterNdOp,
    SpaceToDepthOp,
    TileOp,
    TriluOp,
)

I64 = np.int64


def tuples_first(indices: np.ndarray) -> np.ndarray:
    """ONNX's index tuples (last axis) in relay's layout (first axis)."""
    return np.moveaxis(indices, -1, 0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_matches_gather_elements(axis):
    data = random((3, 4))
    indices = random((2, 3), "int64", -3, 3)
    ours = run_relay(lambda d, i: GatherOp(d, i, axis), [data, indices])
    assert_same(ours, run_onnx("GatherElements", [data, indices], axis=axis))


@pytest.mark.parametrize(
    ("indices_shape", "batch_dims"), [((4, 2), 0), ((2, 5, 1), 1), ((3,), 0)]
)
def test_gather_nd_matches_onnxruntime(indices_shape, batch_dims):
    data = random((2, 3, 4))
    indices = random(indices_shape, "int64", -2, 2)
    ours = run_relay(lambda d, i: GatherNdOp(d, i, batch_dims), [data, tuples_first(indices)])
    theirs = run_onnx("GatherND", [data, indices], batch_dims=batch_dims)
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    ("reduction", "onnx_reduction"),
    [("update", "none"), ("add", "add"), ("mul", "mul"), ("min", "min"), ("max", "max")],
)
def test_scatters_match_onnxruntime(reduction, onnx_reduction):
    data = random((4, 3))
    indices, updates = np.array([[1, 0, 3], [-1, 2, 0]]), random((2, 3))
    ours = run_relay(
        lambda d, i, u: ScatterElementsOp(d, i, u, 0, reduction), [data, indices, updates]
    )
    theirs = run_onnx("ScatterElements", [data, indices, updates], reduction=onnx_reduction)
    assert_same(ours, theirs)
    nd_indices, nd_updates = np.array([[2], [0], [-1]]), random((3, 3))
    nd_inputs = [data, tuples_first(nd_indices), nd_updates]
    ours = run_relay(lambda d, i, u: ScatterNdOp(d, i, u, reduction), nd_inputs)
    theirs = run_onnx("ScatterND", [data, nd_indices, nd_updates], reduction=onnx_reduction)
    assert_same(ours, theirs)


def test_broadcast_to_and_tile_match_expand_and_tile():
    data = random((3, 1))
    ours = run_relay(lambda d: BroadcastToOp(d, (2, 3, 4)), [data])
    assert_same(ours, run_onnx("Expand", [data, np.array([2, 3, 4], I64)]))
    ours = run_relay(lambda d: TileOp(d, (2, 3)), [data])
    assert_same(ours, run_onnx("Tile", [data, np.array([2, 3], I64)]))


def test_reverse_sequence_matches_onnxruntime():
    data, lengths = random((5, 3)), np.array([5, 0, 2], I64)
    ours = run_relay(lambda d, n: ReverseSequenceOp(d, n, 0, 1), [data, lengths])
    assert_same(ours, run_onnx("ReverseSequence", [data, lengths], time_axis=0, batch_axis=1))


@pytest.mark.parametrize(
    ("width", "mode"),
    [
        ((1, 0, 2, 3), "constant"),
        ((-1, 2, 0, -1), "constant"),
        ((2, 2, 1, 1), "reflect"),
        ((3, 0, 0, 2), "edge"),
        ((4, 1, 2, 5), "wrap"),
    ],
)
def test_pad_matches_onnxruntime(width, mode):
    data, value = random((3, 4)), np.array(0.5, np.float32)
    ours = run_relay(lambda d, v: PadOp(d, v, width, mode), [data, value])
    onnx_pads = np.array([width[0], width[2], width[1], width[3]], I64)
    assert_same(ours, run_onnx("Pad", [data, onnx_pads, value], mode=mode))


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space_matches_onnxruntime(mode):
    data = random((2, 8, 2, 3))
    ours = run_relay(lambda d: DepthToSpaceOp(d, 2, mode), [data])
    assert_same(ours, run_onnx("DepthToSpace", [data], blocksize=2, mode=mode))
    back = run_relay(lambda d: SpaceToDepthOp(d, 2, mode), ours)
    assert_same(back, [data])


@pytest.mark.parametrize(
    ("start", "stop", "step", "dtype"),
    [
        (1, 10, 3, "int64"),
        (10, 6, -3, "int32"),
        (0.5, -1.0, -0.25, "float32"),
        (2, 2, 1, "int64"),
    ],
)
def test_arange_matches_range(start, stop, step, dtype):
    ours = run_relay(lambda: ArangeOp(start, stop, step, dtype), [])
    bounds = [np.array(v, dtype) for v in (start, stop, step)]
    assert_same(ours, run_onnx("Range", bounds))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_matches_onnxruntime(axis):
    indices = np.array([[0, -1, 7], [3, -5, 2]], I64)
    on, off = np.array(2.0, np.float32), np.array(-1.0, np.float32)
    ours = run_relay(lambda i, a, b: OneHotOp(i, a, b, 5, axis), [indices, on, off])
    values = np.array([off, on], np.float32)
    assert_same(ours, run_onnx("OneHot", [indices, np.array(5, I64), values], axis=axis))


@pytest.mark.parametrize(("upper", "k"), [(True, 0), (False, 1), (True, -2)])
def test_trilu_matches_onnxruntime(upper, k):
    data = random((2, 3, 4))
    ours = run_relay(lambda d: TriluOp(d, upper, k), [data])
    assert_same(ours, run_onnx("Trilu", [data, np.array(k, I64)], upper=int(upper)))


ALIGN = {"coordinate_transformation_mode": "align_corners"}
ASYMMETRIC = {"coordinate_transformation_mode": "asymmetric"}
RESIZES = [
    # relay attributes, ONNX attributes, ONNX scales (None: sizes)
    ({"method": "nearest_neighbor"}, {"mode": "nearest"}, None),
    ({"method": "linear"}, {"mode": "linear"}, None),
    (
        {"method": "cubic", "cubic_alpha": -0.5, "cubic_exclude": True},
        {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1},
        None,
    ),
    ({"method": "linear"} | ALIGN, {"mode": "linear"} | ALIGN, None),
    ({"method": "linear", "scales": (0.6, 1.5)}, {"mode": "linear"}, [1, 1, 0.6, 1.5]),
    (
        {"method": "nearest_neighbor", "rounding_method": "floor"} | ASYMMETRIC,
        {"mode": "nearest", "nearest_mode": "floor"} | ASYMMETRIC,
        None,
    ),
]


@pytest.mark.parametrize(("ours_attrs", "onnx_attrs", "scales"), RESIZES)
def test_resize_matches_onnxruntime(ours_attrs, onnx_attrs, scales):
    data = random((1, 2, 5, 4))
    size = (3, 6) if scales is None else (int(5 * scales[2]), int(4 * scales[3]))
    ours = run_relay(lambda d: Resize2dOp(d, size, **ours_attrs), [data])
    extra = [np.array(scales, np.float32)] if scales else [None, np.array([1, 2, *size], I64)]
    theirs = run_onnx("Resize", [data, None, *extra], **onnx_attrs)
    assert_same(ours, theirs, rtol=1e-5, atol=1e-6)
