"""The ``Conv``, ``ConvInteger`` and ``ConvTranspose`` converters against
onnxruntime, for every attribute, and the errors for what they do not
support. 1-d and 3-d windows and transposed convolutions also run compiled."""

from __future__ import annotations

import pytest
import numpy as np
from compiled_testing import compile_and_compare, run_compiled
from node_testing import node_model, randn
from onnx import numpy_helper
from onnx_testing import import_and_compare, import_error, op_names, run_ort

from xtvm.frontend import from_onnx
from xtvm.reference.relay.conv import conv

CONV = ["relay.nn.conv2d"]
CONV_BIAS = ["relay.nn.conv2d", "relay.nn.bias_add"]


def conv_model(x_shape, w_shape, bias: bool = False, opset: int = 13, **attrs):
    """``Conv(x, w[, b])`` with the weights as initializers; its feeds."""
    feeds = {"x": randn(*x_shape)}
    inits = {"w": randn(*w_shape)}
    if bias:
        inits["b"] = randn(w_shape[0])
    names = ["x", "w", "b"] if bias else ["x", "w"]
    return node_model("Conv", names, feeds, inits, opset=opset, **attrs), feeds


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((1, 3, 8, 8), (4, 3, 3, 3), {}),
        ((2, 3, 9, 7), (5, 3, 3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
        # asymmetric pads [top, left, bottom, right]
        ((1, 2, 6, 6), (3, 2, 3, 3), {"pads": [0, 1, 2, 1]}),
        ((1, 2, 9, 9), (3, 2, 3, 3), {"dilations": [2, 2], "pads": [2, 2, 2, 2]}),
        ((1, 2, 9, 8), (3, 2, 3, 1), {"strides": [2, 1], "dilations": [1, 3]}),
        # grouped and depthwise
        ((1, 4, 8, 8), (6, 2, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
        ((1, 4, 8, 8), (4, 1, 3, 3), {"group": 4, "strides": [2, 2]}),
        ((1, 4, 8, 8), (8, 1, 3, 3), {"group": 4}),
        # kernel_shape given (it must agree with W)
        ((1, 3, 8, 8), (4, 3, 3, 3), {"kernel_shape": [3, 3]}),
        # auto_pad: SAME pads so that out = ceil(in / stride); odd totals
        # put the extra element at the end (UPPER) or the beginning (LOWER)
        ((1, 2, 7, 8), (3, 2, 3, 3), {"auto_pad": "SAME_UPPER"}),
        ((1, 2, 7, 8), (3, 2, 4, 4), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
        ((1, 2, 7, 8), (3, 2, 4, 4), {"auto_pad": "SAME_LOWER", "strides": [2, 2]}),
        ((1, 2, 7, 8), (3, 2, 3, 3), {"auto_pad": "VALID", "strides": [2, 2]}),
        ((1, 2, 7, 8), (3, 2, 3, 3), {"auto_pad": "NOTSET", "pads": [1, 0, 1, 0]}),
    ],
)
@pytest.mark.parametrize("bias", [False, True])
def test_conv(x_shape, w_shape, attrs, bias):
    model, feeds = conv_model(x_shape, w_shape, bias, **attrs)
    import_and_compare(model, feeds, CONV_BIAS if bias else CONV, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("auto_pad", "pads"), [("SAME_UPPER", [1, 1, 2, 2]), ("SAME_LOWER", [2, 2, 1, 1])]
)
def test_conv_same_with_dilation_is_explicit_padding(auto_pad, pads):
    # onnxruntime rejects dilated SAME convolutions; the ONNX formula gives
    # out = ceil(8 / 2) = 4 and a total padding of 3 * 2 + (3 - 1) * 2 + 1 - 8 = 3
    # per axis, the odd element at the end (UPPER) or the beginning (LOWER).
    attrs = {"strides": [2, 2], "dilations": [2, 2]}
    model, feeds = conv_model((1, 2, 8, 8), (3, 2, 3, 3), auto_pad=auto_pad, **attrs)
    explicit = node_model("Conv", ["x", "w"], feeds, _inits(model), pads=pads, **attrs)
    want = run_ort(explicit, feeds)
    import_and_compare(model, feeds, CONV, expected=want, rtol=1e-4, atol=1e-5)


def _inits(model) -> dict:
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


@pytest.mark.parametrize("opset", [1, 11, 22])
def test_conv_opsets(opset):
    model, feeds = conv_model((1, 3, 8, 8), (4, 3, 3, 3), True, opset, pads=[1, 1, 1, 1])
    import_and_compare(model, feeds, CONV_BIAS, rtol=1e-4, atol=1e-5)


def test_conv_weight_as_graph_input():
    feeds = {"x": randn(1, 3, 6, 6), "w": randn(2, 3, 3, 3)}
    model = node_model("Conv", ["x", "w"], feeds)
    import_and_compare(model, feeds, CONV, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((2, 4, 9), (6, 2, 3), {"group": 2, "strides": [2], "pads": [1, 2]}),
        ((1, 3, 10), (2, 3, 3), {"strides": [3], "auto_pad": "SAME_LOWER"}),
        ((1, 3, 12), (2, 3, 4), {"dilations": [3]}),
        (
            (1, 2, 5, 6, 5),
            (3, 2, 2, 3, 2),
            {"pads": [1, 0, 1, 0, 1, 1], "dilations": [2, 1, 1]},
        ),
        ((1, 3, 4, 4, 4), (3, 1, 3, 3, 3), {"group": 3, "strides": [2, 2, 2]}),
    ],
)
def test_conv_1d_and_3d(x_shape, w_shape, attrs):
    model, feeds = conv_model(x_shape, w_shape, True, **attrs)
    op = f"relay.nn.conv{len(x_shape) - 2}d"
    compile_and_compare(model, feeds, [op, "relay.nn.bias_add"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("per_channel", [False, True])
def test_conv_integer_shifts_by_the_zero_points(per_channel):
    rng = np.random.default_rng(0)
    feeds = {"x": rng.integers(0, 255, (1, 2, 5, 5)).astype(np.uint8)}
    w = rng.integers(0, 255, (3, 2, 2, 2)).astype(np.uint8)
    wz = np.array([1, 2, 3] if per_channel else 2, np.uint8)
    inits = {"w": w, "xz": np.array(3, np.uint8), "wz": wz}
    model = node_model(
        "ConvInteger", ["x", "w", "xz", "wz"], feeds, inits, opset=10, pads=[1, 1, 1, 1]
    )
    # onnxruntime has no per-channel weight zero points: compare with NumPy.
    shifted_w = w.astype(np.int32) - wz.astype(np.int32).reshape(-1, 1, 1, 1)
    want = conv(feeds["x"].astype(np.int32) - 3, shifted_w, padding=(1, 1, 1, 1))
    (got,) = run_compiled(model, feeds)
    np.testing.assert_array_equal(got, want)
    module, _ = from_onnx(model, freeze_params=True)
    assert [n for n in op_names(module) if n != "relay.const"] == ["qnn.conv2d"]


TRANSPOSE = {
    # name: (x shape, w shape, attrs)
    "plain": ((1, 2, 3, 3), (2, 3, 3, 3), {}),
    "strided_padded": ((1, 2, 4, 4), (2, 3, 3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "output_padding": ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [3, 2], "output_padding": [1, 1]}),
    "output_shape": ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [3, 2], "output_shape": [10, 8]}),
    "cropped": ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [3, 2], "output_shape": [7, 5]}),
    "same_upper": ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    "dilated": ((1, 1, 3, 3), (1, 1, 2, 2), {"dilations": [2, 2]}),
    "grouped": ((2, 4, 3, 3), (4, 1, 3, 3), {"group": 2, "strides": [2, 1]}),
    "1d": ((1, 2, 5), (2, 3, 3), {"strides": [2], "pads": [1, 0]}),
    "3d": ((1, 1, 3, 4, 3), (1, 2, 3, 3, 2), {"strides": [1, 2, 1]}),
}


@pytest.mark.parametrize("case", TRANSPOSE)
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose(case, bias):
    x_shape, w_shape, attrs = TRANSPOSE[case]
    feeds = {"x": randn(*x_shape)}
    inits = {"w": randn(*w_shape)}
    if bias:
        inits["b"] = randn(w_shape[1] * attrs.get("group", 1))
    model = node_model("ConvTranspose", ["x", *inits], feeds, inits, **attrs)
    ops = [f"relay.nn.conv{len(x_shape) - 2}d_transpose"] + ["relay.nn.bias_add"] * bias
    compile_and_compare(model, feeds, ops, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs", "message"),
    [
        (
            (1, 3),
            (4, 3),
            {},
            (
                "input 'X' ('x') has shape 1x3, but Conv needs 1 to 3 spatial axes "
                "(a rank-3, -4 or -5 channel-first input)"
            ),
        ),
        (
            (1, 3, 8),
            (4, 3, 3),
            {"kernel_shape": [3, 3]},
            (
                "attribute 'kernel_shape' = [3, 3] has 2 values, but input 'X' ('x') has "
                "1 spatial axis"
            ),
        ),
        (
            (1, 3, 4, 4, 4),
            (4, 3, 3, 3),
            {},
            "input 'W' ('w') must have rank 5 like input 'X' ('x'), got shape 4x3x3x3",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"kernel_shape": [2, 2]},
            "attribute 'kernel_shape' = [2, 2] does not match input 'W' ('w') of shape 4x3x3x3",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]},
            "attributes 'auto_pad' = 'SAME_UPPER' and 'pads' exclude each other",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"auto_pad": "SAME"},
            (
                "attribute 'auto_pad' = 'SAME' is not supported: "
                "expected one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"
            ),
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"strides": [1, 1, 1]},
            "attribute 'strides' must have 2 values, got [1, 1, 1]",
        ),
        (
            (1, 3, 8, 8),
            (4, 3, 3, 3),
            {"pads": [1, -1, 1, 1]},
            "attribute 'pads' values must be >= 0, got [1, -1, 1, 1]",
        ),
        (
            (1, 4, 8, 8),
            (4, 3, 3, 3),
            {"group": 2},
            (
                "'relay.nn.conv2d' weight 4x3x3x3 has 3 input channels per group, but data "
                "1x4x8x8 with groups=2 needs 2"
            ),
        ),
    ],
)
def test_conv_errors_name_the_node(x_shape, w_shape, attrs, message):
    model, _ = conv_model(x_shape, w_shape, **attrs)
    assert import_error(model) == f"node 'n' (Conv, opset 13): {message}"
