"""AffineGrid (a constant base grid times theta, relay.nn.matmul) against
onnx's reference evaluator and onnxruntime, 2-d and 3-d, with and without
align_corners (an axis of one sample with align_corners: against onnx's
reference only, where onnxruntime differs)."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model, randn
from onnx.reference import ReferenceEvaluator
from onnx_testing import import_error, run_ort


@pytest.mark.parametrize("align_corners", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [1, 1, 1, 3], [2, 1, 3, 2, 4]])
def test_affine_grid(align_corners, size):
    k = len(size) - 2
    feeds = {"theta": randn(size[0], k, k + 1)}
    model = node_model(
        "AffineGrid",
        ["theta", "size"],
        feeds,
        {"size": np.array(size, np.int64)},
        opset=20,
        align_corners=align_corners,
    )
    (got,) = run_compiled(model, feeds)
    assert got.shape == (size[0], *size[2:], k)
    wants = [ReferenceEvaluator(model).run(None, feeds)[0]]
    if not (align_corners and 1 in size[2:]):
        wants += run_ort(model, feeds)
    for want in wants:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_affine_grid_theta_shape_is_checked():
    feeds = {"theta": randn(2, 2, 3)}
    model = node_model(
        "AffineGrid", ["theta", "size"], feeds, {"size": np.array([3, 1, 4, 4])}, opset=20
    )
    assert "expected size [N, C, H, W]" in import_error(model)


@pytest.mark.parametrize(
    ("xshape", "gshape", "attrs"),
    [
        ((2, 3, 4, 5), (2, 3, 6, 2), {"mode": "linear", "padding_mode": "zeros"}),
        ((1, 2, 3, 4, 2), (1, 2, 2, 3, 3), {"mode": "nearest", "padding_mode": "border"}),
        ((1, 2, 4, 3), (1, 5, 2, 2), {"mode": "linear", "padding_mode": "reflection"}),
        pytest.param(
            (1, 1, 4, 4),
            (1, 3, 3, 2),
            {"mode": "cubic", "padding_mode": "zeros", "align_corners": 1},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_grid_sample(xshape, gshape, attrs):
    rng = np.random.default_rng(6)
    feeds = {
        "x": rng.standard_normal(xshape).astype(np.float32),
        # Coordinates beyond [-1, 1] exercise the padding modes.
        "grid": rng.uniform(-1.6, 1.6, gshape).astype(np.float32),
    }
    model = node_model("GridSample", ["x", "grid"], feeds, opset=22, **attrs)
    (got,) = run_compiled(model, feeds)
    (want,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if len(xshape) == 4:  # onnxruntime samples 2-d images only
        (ort,) = run_ort(model, feeds)
        np.testing.assert_allclose(got, ort, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("opset", "attrs"),
    [
        (16, {"mode": "avg", "sampling_ratio": 2}),
        (
            16,
            {
                "mode": "max",
                "sampling_ratio": 1,
                "coordinate_transformation_mode": "output_half_pixel",
            },
        ),
        (10, {"mode": "avg", "sampling_ratio": 3, "spatial_scale": 0.5}),
    ],
)
def test_roi_align(opset, attrs):
    rng = np.random.default_rng(8)
    feeds = {
        "x": rng.standard_normal((2, 3, 8, 7)).astype(np.float32),
        # Regions partly outside the image exercise the clamping.
        "rois": np.array(
            [[0, 0, 6, 5], [2.5, 1.2, 9.0, 7.7], [-2, -1, 3, 4], [1, 1, 1.5, 1.5]], np.float32
        )
        / attrs.get("spatial_scale", 1.0),
        "batch": np.array([0, 1, 1, 0], np.int64),
    }
    model = node_model(
        "RoiAlign",
        ["x", "rois", "batch"],
        feeds,
        opset=opset,
        output_height=3,
        output_width=2,
        **attrs,
    )
    (got,) = run_compiled(model, feeds)
    assert got.shape == (4, 3, 3, 2)
    if opset >= 16:  # onnx's reference applies opset 16's half_pixel default to opset 10 too
        (want,) = ReferenceEvaluator(model).run(None, feeds)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if attrs["mode"] == "avg":  # onnxruntime's max mode takes the max of the taps differently
        (ort,) = run_ort(model, feeds)
        np.testing.assert_allclose(got, ort, rtol=1e-4, atol=1e-4)


def test_roi_align_adaptive_sampling_is_unsupported():
    feeds = {
        "x": randn(1, 1, 4, 4),
        "rois": np.zeros((1, 4), np.float32),
        "batch": np.zeros(1, np.int64),
    }
    model = node_model("RoiAlign", ["x", "rois", "batch"], feeds, opset=16)
    assert "sampling_ratio" in import_error(model)


@pytest.mark.parametrize(
    ("group", "offset_group", "attrs", "masked"),
    [
        (1, 1, {"pads": [1, 1, 1, 1]}, False),
        pytest.param(
            2,
            2,
            {"strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 0, 1]},
            True,
            marks=pytest.mark.slow,  # onnx's reference loops over every tap: ~10 s
        ),
    ],
)
def test_deform_conv(group, offset_group, attrs, masked):
    rng = np.random.default_rng(9)
    n, c, h, w, oc, k = 1, 4, 4, 5, 2, 2
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    weight = rng.standard_normal((oc, c // group, k, k)).astype(np.float32)
    strides, dil, pads = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1]), attrs["pads"]
    oh = (h + pads[0] + pads[2] - dil[0] * (k - 1) - 1) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - dil[1] * (k - 1) - 1) // strides[1] + 1
    feeds = {
        "x": x,
        "w": weight,
        # Offsets of a few pixels move taps across the image's edges.
        "offset": rng.uniform(-2, 2, (n, offset_group * k * k * 2, oh, ow)).astype(np.float32),
        "b": rng.standard_normal(oc).astype(np.float32),
    }
    inputs = ["x", "w", "offset", "b"]
    if masked:
        feeds["mask"] = rng.random((n, offset_group * k * k, oh, ow)).astype(np.float32)
        inputs.append("mask")
    model = node_model(
        "DeformConv",
        inputs,
        feeds,
        opset=22,
        kernel_shape=[k, k],
        group=group,
        offset_group=offset_group,
        **attrs,
    )
    (got,) = run_compiled(model, feeds)
    (want,) = ReferenceEvaluator(model).run(None, feeds)
    assert got.shape == (n, oc, oh, ow)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
