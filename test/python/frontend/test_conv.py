"""The ``Conv`` converter: relay.nn.conv2d (+ bias_add) against onnxruntime,
for every attribute, and the errors for what it does not support."""

from __future__ import annotations

import pytest
from node_testing import node_model, randn
from onnx import numpy_helper
from onnx_testing import import_and_compare, import_error, run_ort

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
    ("x_shape", "w_shape", "attrs", "message"),
    [
        (
            (1, 3, 8),
            (4, 3, 3),
            {},
            (
                "only 2-d convolution is supported, but input 'X' ('x') has shape 1x3x8 "
                "(2-d needs a rank-4 NCHW input)"
            ),
        ),
        (
            (1, 3, 8),
            (4, 3, 3),
            {"kernel_shape": [3]},
            (
                "attribute 'kernel_shape' = [3] is not supported: "
                "only 2-d convolution is supported (1-d kernel)"
            ),
        ),
        (
            (1, 3, 4, 4, 4),
            (4, 3, 3, 3, 3),
            {"kernel_shape": [3, 3, 3]},
            (
                "attribute 'kernel_shape' = [3, 3, 3] is not supported: "
                "only 2-d convolution is supported (3-d kernel)"
            ),
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
