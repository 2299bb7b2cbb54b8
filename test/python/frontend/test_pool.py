"""The pooling converters (MaxPool, AveragePool, GlobalMaxPool,
GlobalAveragePool) against onnxruntime, and their errors."""

from __future__ import annotations

import onnx
import pytest
from node_testing import node_model, randn
from onnx import helper
from onnx_testing import import_and_compare, import_error, make_model, run_ort, tensor

WINDOWS = [
    {"kernel_shape": [2, 2], "strides": [2, 2]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    # asymmetric pads and a rectangular window
    {"kernel_shape": [3, 2], "pads": [0, 1, 2, 0]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1},
    {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1},
    {"kernel_shape": [3, 3], "strides": [2, 1], "auto_pad": "SAME_UPPER"},
    {"kernel_shape": [2, 2], "strides": [2, 2], "auto_pad": "SAME_LOWER"},
    {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "VALID"},
]


@pytest.mark.parametrize("attrs", WINDOWS + [{"kernel_shape": [2, 2], "dilations": [2, 2]}])
@pytest.mark.parametrize("opset", [12, 22])
def test_max_pool(attrs, opset):
    feeds = {"x": randn(2, 3, 9, 8)}
    model = node_model("MaxPool", ["x"], feeds, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.nn.max_pool2d"])


@pytest.mark.parametrize("opset", [1, 8])
def test_max_pool_early_opsets(opset):
    feeds = {"x": randn(1, 2, 7, 7)}
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    model = node_model("MaxPool", ["x"], feeds, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.nn.max_pool2d"])


def test_max_pool_unused_indices_output_is_fine():
    # `Indices` is listed but nothing reads it.
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2])
    model = make_model([node], [tensor("x", [1, 2, 4, 4])], [tensor("y", [1, 2, 3, 3])])
    import_and_compare(model, {"x": randn(1, 2, 4, 4)}, ["relay.nn.max_pool2d"])


@pytest.mark.parametrize("count_include_pad", [0, 1])
@pytest.mark.parametrize("attrs", WINDOWS)
def test_average_pool(attrs, count_include_pad):
    feeds = {"x": randn(2, 3, 9, 8)}
    model = node_model(
        "AveragePool", ["x"], feeds, opset=11, count_include_pad=count_include_pad, **attrs
    )
    import_and_compare(model, feeds, ["relay.nn.avg_pool2d"])


def test_average_pool_opset1_excludes_padding():
    # onnxruntime has no AveragePool-1; opset 7's default count_include_pad = 0
    # is opset 1's behaviour.
    feeds = {"x": randn(1, 2, 7, 7)}
    attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    want = run_ort(node_model("AveragePool", ["x"], feeds, opset=7, **attrs), feeds)
    model = node_model("AveragePool", ["x"], feeds, opset=1, **attrs)
    import_and_compare(model, feeds, ["relay.nn.avg_pool2d"], expected=want)


@pytest.mark.parametrize(
    ("opset", "attrs"),
    [
        (7, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
        (19, {"kernel_shape": [2, 2], "dilations": [2, 2], "pads": [1, 0, 1, 0]}),
        (22, {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ],
)
def test_average_pool_opsets(opset, attrs):
    feeds = {"x": randn(1, 2, 7, 7)}
    model = node_model("AveragePool", ["x"], feeds, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.nn.avg_pool2d"])


@pytest.mark.parametrize(
    ("op_type", "relay_op"),
    [
        ("GlobalAveragePool", "relay.nn.global_avg_pool2d"),
        ("GlobalMaxPool", "relay.nn.global_max_pool2d"),
    ],
)
@pytest.mark.parametrize("opset", [1, 22])
def test_global_pools(op_type, relay_op, opset):
    feeds = {"x": randn(2, 5, 7, 6)}
    import_and_compare(node_model(op_type, ["x"], feeds, opset=opset), feeds, [relay_op])


@pytest.mark.parametrize(
    ("op_type", "x_shape", "attrs", "message"),
    [
        (
            "MaxPool",
            (1, 3, 8),
            {"kernel_shape": [2]},
            (
                "attribute 'kernel_shape' = [2] is not supported: "
                "only 2-d pooling is supported (1-d kernel)"
            ),
        ),
        (
            "AveragePool",
            (1, 3, 4, 4, 4),
            {"kernel_shape": [2, 2, 2]},
            (
                "attribute 'kernel_shape' = [2, 2, 2] is not supported: "
                "only 2-d pooling is supported (3-d kernel)"
            ),
        ),
        (
            "GlobalAveragePool",
            (1, 3, 8),
            {},
            (
                "only 2-d pooling is supported, but input 'X' ('x') has shape 1x3x8 "
                "(2-d needs a rank-4 NCHW input)"
            ),
        ),
        (
            "MaxPool",
            (1, 3, 8, 8),
            {"kernel_shape": [2, 2], "storage_order": 1},
            (
                "attribute 'storage_order' = 1 is not supported: "
                "only 0 (row major) is, and only the Indices output uses it"
            ),
        ),
        (
            "AveragePool",
            (1, 3, 8, 8),
            {"kernel_shape": [2, 2], "ceil_mode": 2},
            "attribute 'ceil_mode' = 2 is not supported: expected 0 or 1",
        ),
        (
            "AveragePool",
            (1, 3, 8, 8),
            {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]},
            (
                "'relay.nn.avg_pool2d' padding [2, 0, 0, 0] must be smaller than the pool "
                "window [2, 2]"
            ),
        ),
    ],
)
def test_pool_errors_name_the_node(op_type, x_shape, attrs, message):
    model = node_model(op_type, ["x"], {"x": randn(*x_shape)}, **attrs)
    assert import_error(model) == f"node 'n' ({op_type}, opset 13): {message}"


def test_max_pool_indices_output_used_is_an_error():
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool", kernel_shape=[2, 2])
    model = make_model(
        [node],
        [tensor("x", [1, 2, 4, 4])],
        [tensor("y", [1, 2, 3, 3]), tensor("i", [1, 2, 3, 3], onnx.TensorProto.INT64)],
    )
    assert import_error(model) == (
        "node 'pool' (MaxPool, opset 13): output 'Indices' ('i') is used, but it is not supported"
    )
