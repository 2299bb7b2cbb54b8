"""Numerical cases of the shape, indexing, scatter, layout, creation and
image ops for ``test_topi_relay_ops`` (same tuple format as its ``CASES``).

Indices are random integers in [-50, 50): far outside most axes, so the
cases check that gathers and scatters wrap them like the references."""

from __future__ import annotations

from typing import Any

from xtvm.dialects import relay

F32, F64, I32, I64 = "float32", "float64", "int32", "int64"

Case = tuple[str, type[relay.RelayOp], list[tuple[tuple[int, ...], str]], dict[str, Any]]

SHAPE_CASES: list[Case] = [
    # An input empty along the axis is not read (its condition would be constant).
    ("concatenate-empty-input", relay.ConcatenateOp, [((2, 0), F32), ((2, 3), F32)], {"axis": 1}),
    (
        "reshape-allowzero",
        relay.ReshapeOp,
        [((0, 3), F32)],
        {"newshape": (3, 0), "allowzero": True},
    ),
    ("gather", relay.GatherOp, [((3, 4), F32), ((3, 2), I64)], {"axis": 1}),
    ("gather-axis0-shorter", relay.GatherOp, [((4, 5), I32), ((2, 3), I32)], {"axis": 0}),
    ("gather-negative-axis", relay.GatherOp, [((2, 3, 4), F64), ((2, 3, 6), I64)], {"axis": -1}),
    ("gather_nd", relay.GatherNdOp, [((3, 4, 2), F32), ((2, 5), I64)], {}),
    ("gather_nd-full-tuples", relay.GatherNdOp, [((3, 4), I64), ((2, 2, 3), I32)], {}),
    ("gather_nd-batch", relay.GatherNdOp, [((2, 3, 4), F32), ((1, 2, 3), I64)], {"batch_dims": 1}),
    (
        "scatter_elements",
        relay.ScatterElementsOp,
        [((4, 3), F32), ((2, 3), I64), ((2, 3), F32)],
        {},
    ),
    (
        "scatter_elements-axis1-add",
        relay.ScatterElementsOp,
        [((3, 5), F32), ((2, 4), I64), ((2, 4), F32)],
        {"axis": 1, "reduction": "add"},
    ),
    (
        "scatter_elements-mul",
        relay.ScatterElementsOp,
        [((6,), F64), ((9,), I32), ((9,), F64)],
        {"reduction": "mul"},
    ),
    (
        "scatter_elements-max-int",
        relay.ScatterElementsOp,
        [((2, 7), I32), ((2, 9), I64), ((2, 9), I32)],
        {"axis": -1, "reduction": "max"},
    ),
    (
        "scatter_elements-min",
        relay.ScatterElementsOp,
        [((5, 2), F32), ((8, 2), I64), ((8, 2), F32)],
        {"reduction": "min"},
    ),
    ("scatter_nd", relay.ScatterNdOp, [((4, 3), F32), ((1, 5), I64), ((5, 3), F32)], {}),
    (
        "scatter_nd-elements-add",
        relay.ScatterNdOp,
        [((3, 4), F32), ((2, 2, 3), I64), ((2, 3), F32)],
        {"reduction": "add"},
    ),
    ("scatter_nd-one-tuple", relay.ScatterNdOp, [((3, 4), I32), ((1,), I64), ((4,), I32)], {}),
    (
        "scatter_nd-mul",
        relay.ScatterNdOp,
        [((2, 3, 2), F64), ((2, 4), I32), ((4, 2), F64)],
        {"reduction": "mul"},
    ),
    ("broadcast_to", relay.BroadcastToOp, [((3, 1), F32)], {"shape": (2, 3, 4)}),
    ("broadcast_to-int64", relay.BroadcastToOp, [((1,), I64)], {"shape": (5,)}),
    ("tile", relay.TileOp, [((2, 3), F32)], {"reps": (2, 3)}),
    ("tile-more-reps", relay.TileOp, [((2,), I32)], {"reps": (3, 1, 2)}),
    (
        "reverse_sequence",
        relay.ReverseSequenceOp,
        [((5, 3, 2), F32), ((3,), I64)],
        {"seq_axis": 0, "batch_axis": 1},
    ),
    (
        "reverse_sequence-batch-first",
        relay.ReverseSequenceOp,
        [((4, 6), I32), ((4,), I32)],
        {"seq_axis": 1, "batch_axis": 0},
    ),
    ("pad", relay.PadOp, [((2, 3), F32), ((), F32)], {"pad_width": (1, 0, 2, 3)}),
    ("pad-crop", relay.PadOp, [((4, 5), I64), ((), I64)], {"pad_width": (-1, 2, 1, -2)}),
    (
        "pad-edge",
        relay.PadOp,
        [((2, 3), F32), ((), F32)],
        {"pad_width": (2, 1, 0, 4), "pad_mode": "edge"},
    ),
    (
        "pad-reflect-wide",
        relay.PadOp,
        [((3, 3), F32), ((), F32)],
        {"pad_width": (5, 1, 2, 6), "pad_mode": "reflect"},
    ),
    (
        "pad-reflect-single",
        relay.PadOp,
        [((1, 3), F32), ((), F32)],
        {"pad_width": (2, 1, 0, 0), "pad_mode": "reflect"},
    ),
    (
        "pad-wrap",
        relay.PadOp,
        [((2, 3), I32), ((), I32)],
        {"pad_width": (3, 2, 4, 1), "pad_mode": "wrap"},
    ),
    ("depth_to_space", relay.DepthToSpaceOp, [((1, 8, 2, 3), F32)], {"block_size": 2}),
    (
        "depth_to_space-crd",
        relay.DepthToSpaceOp,
        [((2, 18, 2, 1), I32)],
        {"block_size": 3, "mode": "CRD"},
    ),
    ("space_to_depth", relay.SpaceToDepthOp, [((1, 2, 4, 6), F32)], {"block_size": 2}),
    (
        "space_to_depth-crd",
        relay.SpaceToDepthOp,
        [((2, 3, 6, 3), F64)],
        {"block_size": 3, "mode": "CRD"},
    ),
    ("arange", relay.ArangeOp, [], {"start": 1.0, "stop": 12.0, "step": 3.0, "dtype": "int64"}),
    ("arange-float", relay.ArangeOp, [], {"start": 0.5, "stop": -2.0, "step": -0.3, "dtype": F32}),
    ("one_hot", relay.OneHotOp, [((2, 3), I64), ((), F32), ((), F32)], {"depth": 40}),
    (
        "one_hot-axis0",
        relay.OneHotOp,
        [((5,), I32), ((), I64), ((), I64)],
        {"depth": 60, "axis": 0},
    ),
    ("trilu", relay.TriluOp, [((2, 4, 5), F32)], {}),
    ("trilu-lower-k", relay.TriluOp, [((5, 3), I64)], {"upper": False, "k": -1}),
    ("trilu-upper-k", relay.TriluOp, [((3, 6), F32)], {"k": 2}),
]


def _resize(name: str, in_shape: tuple[int, ...], size: tuple[int, ...], **attrs: Any) -> Case:
    op = {3: relay.Resize1dOp, 4: relay.Resize2dOp, 5: relay.Resize3dOp}[len(in_shape)]
    return (f"resize-{name}", op, [(in_shape, F32)], {"size": size, **attrs})


LINEAR, CUBIC = {"method": "linear"}, {"method": "cubic"}
TF_CROP = {"method": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"}

RESIZE_CASES: list[Case] = [
    _resize("nearest", (1, 2, 3, 4), (5, 7)),
    _resize(
        "nearest-asymmetric-floor",
        (1, 1, 4, 4),
        (3, 8),
        coordinate_transformation_mode="asymmetric",
        rounding_method="floor",
    ),
    _resize(
        "nearest-ceil-1d",
        (2, 2, 5),
        (9,),
        rounding_method="ceil",
        coordinate_transformation_mode="align_corners",
    ),
    _resize("nearest-nhwc", (1, 3, 5, 2), (6, 2), layout="NHWC"),
    _resize("linear", (1, 2, 4, 4), (3, 6), **LINEAR),
    _resize("linear-scales", (1, 1, 2, 4), (1, 2), scales=(0.6, 0.6), **LINEAR),
    _resize(
        "linear-align-corners",
        (1, 1, 3, 4),
        (5, 7),
        coordinate_transformation_mode="align_corners",
        **LINEAR,
    ),
    _resize(
        "linear-pytorch",
        (1, 1, 4, 4),
        (3, 1),
        coordinate_transformation_mode="pytorch_half_pixel",
        **LINEAR,
    ),
    _resize(
        "linear-symmetric",
        (1, 1, 4, 4),
        (6, 6),
        coordinate_transformation_mode="half_pixel_symmetric",
        scales=(1.7, 1.7),
        **LINEAR,
    ),
    _resize("linear-3d", (1, 1, 2, 3, 4), (3, 2, 6), **LINEAR),
    _resize("linear-antialias", (1, 1, 6, 7), (2, 4), antialias=True, **LINEAR),
    _resize("cubic", (1, 1, 4, 4), (8, 6), **CUBIC),
    _resize(
        "cubic-exclude", (1, 2, 4, 5), (3, 9), cubic_alpha=-0.5, cubic_exclude=True, **CUBIC
    ),
    _resize(
        "cubic-asymmetric",
        (1, 1, 4, 4),
        (8, 8),
        coordinate_transformation_mode="asymmetric",
        **CUBIC,
    ),
    _resize("cubic-antialias", (1, 2, 8, 5), (3, 5), antialias=True, **CUBIC),
    _resize("tf-crop", (1, 1, 4, 4), (3, 3), roi=(0.4, 0.6, 0.6, 0.8), **TF_CROP),
    _resize(
        "tf-crop-extrapolate",
        (1, 1, 4, 4),
        (3, 3),
        roi=(0.4, 0.6, 1.2, 1.7),
        extrapolation_value=10.0,
        **TF_CROP,
    ),
]
