"""Converters of Resize (opsets 10, 11, 13, 18, 19) and Upsample against
onnxruntime, by the NumPy references and compiled."""

from __future__ import annotations

import numpy as np
import pytest
from shape_op_testing import check
from node_testing import node_model, randn
from onnx_testing import import_error

F32, I64 = np.float32, np.int64
X = randn(1, 2, 4, 5)
LINEAR = {"mode": "linear"}
CUBIC_EXCLUDE = {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1}
SYMMETRIC = "half_pixel_symmetric"
ASYMMETRIC_FLOOR = {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}


def resize_model(opset: int, scales=None, sizes=None, roi=None, x=X, **attrs):
    """``Resize(x, roi, scales, sizes)`` with the given inputs as initializers."""
    inits = {}
    names = ["x", "", "", ""]
    for k, (name, value, dtype) in enumerate(
        [("roi", roi, F32), ("scales", scales, F32), ("sizes", sizes, I64)], start=1
    ):
        if value is not None:
            names[k] = name
            inits[name] = np.array(value, dtype)
    if opset < 13:  # roi and scales are required (possibly empty) before opset 13
        for k, name in ((1, "roi"), (2, "scales")):
            if not names[k]:
                names[k], inits[name] = name, np.array([], F32)
    while not names[-1]:
        names.pop()
    return node_model("Resize", names, {"x": x}, inits, opset=opset, **attrs)


@pytest.mark.parametrize(
    ("opset", "scales", "sizes", "attrs"),
    [
        (11, [1, 1, 2, 3], None, {}),
        (11, None, [1, 2, 7, 3], {"nearest_mode": "round_prefer_ceil"}),
        (13, [1, 1, 0.6, 1.5], None, {"mode": "linear"}),
        (13, None, [1, 2, 3, 8], LINEAR | {"coordinate_transformation_mode": "align_corners"}),
        (13, [1, 1, 1.4, 0.8], None, LINEAR | {"coordinate_transformation_mode": "asymmetric"}),
        (13, None, [1, 2, 2, 1], LINEAR | {"coordinate_transformation_mode": "pytorch_half_pixel"}),
        (13, None, [1, 2, 8, 10], {"mode": "cubic"}),
        (13, [1, 1, 0.5, 0.5], None, CUBIC_EXCLUDE),
        (13, None, [1, 2, 3, 3], ASYMMETRIC_FLOOR),
        (18, None, [3, 3], {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}),
        (18, [2.0, 1.5], None, {"axes": [-1, -2], "mode": "linear"}),
        (19, [1, 1, 1.7, 1.7], None, LINEAR | {"coordinate_transformation_mode": SYMMETRIC}),
        (18, [1, 1, 0.6, 0.4], None, {"mode": "linear", "antialias": 1}),
        (18, None, [1, 2, 3, 2], {"mode": "cubic", "antialias": 1}),
        (18, None, [1, 2, 2, 8], {"mode": "cubic", "antialias": 1, "exclude_outside": 1}),
    ],
)
def test_resize(opset, scales, sizes, attrs):
    model = resize_model(opset, scales, sizes, **attrs)
    check(model, {"x": X}, ["relay.image.resize2d"], rtol=1e-5, atol=1e-5)


def test_resize_tf_crop_and_resize_extrapolates():
    roi = [0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7]
    attrs = {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"}
    model = resize_model(13, None, [1, 2, 3, 3], roi, extrapolation_value=10.0, **attrs)
    check(model, {"x": X}, ["relay.image.resize2d"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("shape", "sizes", "ops"),
    [
        ((2, 6), [2, 9], ["relay.reshape", "relay.image.resize1d", "relay.reshape"]),
        ((2, 3, 5), [2, 3, 8], ["relay.image.resize1d"]),
        ((1, 1, 2, 3, 4), [1, 1, 3, 5, 2], ["relay.image.resize3d"]),
        ((2, 3, 4, 5), [2, 3, 4, 5], []),  # nothing resized: the input itself
    ],
)
def test_resize_ranks(shape, sizes, ops):
    x = randn(*shape)
    model = resize_model(13, None, sizes, x=x, mode="linear")
    check(model, {"x": x}, ops, rtol=1e-5, atol=1e-5)


def test_resize_opset10_and_upsample_use_asymmetric_floor():
    inits = {"s": np.array([1, 1, 2, 1.5], F32)}
    model = node_model("Resize", ["x", "s"], {"x": X}, inits, opset=10)
    check(model, {"x": X}, ["relay.image.resize2d"])
    for opset, inputs, inits, attrs in [
        (7, ["x"], {}, {"scales": [1.0, 1.0, 2.0, 3.0]}),
        (9, ["x", "s"], {"s": np.array([1, 1, 3, 2], F32)}, {"mode": "linear"}),
    ]:
        model = node_model("Upsample", inputs, {"x": X}, inits, opset=opset, **attrs)
        scales = attrs.get("scales") or inits["s"].tolist()
        want = _upsample(X, scales, attrs.get("mode", "nearest"))
        check(model, {"x": X}, ["relay.image.resize2d"], expected=[want], rtol=1e-5, atol=1e-6)


def _upsample(x: np.ndarray, scales: list[float], mode: str) -> np.ndarray:
    """Upsample's asymmetric sampling of the last two axes."""
    out = x
    for axis in (2, 3):
        n, s = x.shape[axis], scales[axis]
        pos = np.arange(int(n * s)) / s
        lo = np.floor(pos).astype(int)
        if mode == "nearest":
            out = np.take(out, lo, axis=axis)
            continue
        hi = np.minimum(lo + 1, n - 1)
        t = (pos - lo).reshape([-1 if d == axis else 1 for d in range(4)])
        out = np.take(out, lo, axis=axis) * (1 - t) + np.take(out, hi, axis=axis) * t
    return out.astype(np.float32)


def test_resize_errors():
    model = resize_model(13, [2, 1, 1, 1])
    assert import_error(model) == (
        "node 'n' (Resize, opset 13): resizing axes [0] of a rank-4 input is not supported: "
        "only the last 1 to 3 axes may be resized"
    )
    model = resize_model(13, None, None)
    assert import_error(model) == "node 'n' (Resize, opset 13): needs input 'scales' or 'sizes'"
