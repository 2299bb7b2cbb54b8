"""The pooling converters (MaxPool, AveragePool, LpPool, GlobalMaxPool,
GlobalAveragePool) against onnxruntime, and their errors. 1-d and 3-d
windows and LpPool also run compiled."""

from __future__ import annotations

import onnx
import pytest
from compiled_testing import compile_and_compare
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


ND_WINDOWS = [
    ((2, 3, 9), {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1}),
    ((1, 2, 11), {"kernel_shape": [3], "strides": [3], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 11), {"kernel_shape": [2], "dilations": [3], "pads": [1, 1]}),
    (
        (1, 2, 5, 6, 7),
        {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2], "dilations": [1, 2, 1]},
    ),
    (
        (1, 2, 5, 6, 7),
        {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2], "pads": [1, 1, 1, 1, 1, 0]},
    ),
]


@pytest.mark.parametrize(("shape", "attrs"), ND_WINDOWS)
@pytest.mark.parametrize(("op_type", "kind"), [("MaxPool", "max"), ("AveragePool", "avg")])
def test_pools_1d_and_3d(shape, attrs, op_type, kind):
    feeds = {"x": randn(*shape)}
    model = node_model(op_type, ["x"], feeds, opset=19, **attrs)
    compile_and_compare(model, feeds, [f"relay.nn.{kind}_pool{len(shape) - 2}d"])


@pytest.mark.parametrize(
    ("shape", "attrs"),
    [
        ((1, 3, 9), {"kernel_shape": [2], "p": 3}),
        ((1, 2, 8, 8), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]}),
        ((1, 2, 8, 8), {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "p": 1}),
        ((1, 2, 4, 5, 4), {"kernel_shape": [2, 2, 2], "p": 4}),
    ],
)
def test_lp_pool(shape, attrs):
    feeds = {"x": randn(*shape)}
    model = node_model("LpPool", ["x"], feeds, opset=18, **attrs)
    pool = f"relay.nn.avg_pool{len(shape) - 2}d"
    if attrs.get("p", 2) == 2:
        ops = ["relay.multiply", pool, "relay.const", "relay.multiply", "relay.sqrt"]
    else:
        ops = ["relay.abs", "relay.const", "relay.power", pool]
        ops += ["relay.const", "relay.multiply", "relay.const", "relay.power"]
    compile_and_compare(model, feeds, ops, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("op_type", "relay_op"), [("GlobalAveragePool", "relay.mean"), ("GlobalMaxPool", "relay.max")]
)
@pytest.mark.parametrize("shape", [(2, 3, 5), (1, 2, 3, 4, 5)])
def test_global_pools_1d_and_3d(op_type, relay_op, shape):
    feeds = {"x": randn(*shape)}
    compile_and_compare(node_model(op_type, ["x"], feeds), feeds, [relay_op])


@pytest.mark.parametrize(
    ("op_type", "x_shape", "attrs", "message"),
    [
        (
            "MaxPool",
            (1, 3, 2, 2, 2, 2),
            {"kernel_shape": [2, 2, 2, 2]},
            (
                "input 'X' ('x') has shape 1x3x2x2x2x2, but MaxPool needs 1 to 3 spatial "
                "axes (a rank-3, -4 or -5 channel-first input)"
            ),
        ),
        (
            "AveragePool",
            (1, 3, 4, 4, 4),
            {"kernel_shape": [2, 2]},
            (
                "attribute 'kernel_shape' = [2, 2] has 2 values, but input 'X' ('x') has "
                "3 spatial axes"
            ),
        ),
        (
            "GlobalAveragePool",
            (1, 3),
            {},
            "input 'X' ('x') must have rank >= 3 (N, C, spatial...), got rank 2",
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


@pytest.mark.parametrize(
    "attrs",
    [
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1},
        {"kernel_shape": [2, 2], "strides": [2, 2], "storage_order": 1},
        {"kernel_shape": [2, 2], "dilations": [2, 2], "storage_order": 1},
    ],
)
def test_max_pool_indices(attrs):
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **attrs)
    model = make_model(
        [node],
        [tensor("x", [2, 3, 7, 6])],
        [onnx.ValueInfoProto(name="y"), onnx.ValueInfoProto(name="i")],
    )
    model = onnx.shape_inference.infer_shapes(model)
    x = randn(2, 3, 7, 6)
    x[0, 0, :2, :2] = 1.5  # a tie: the first window element wins
    compile_and_compare(model, {"x": x}, ["relay.nn.max_pool2d_with_argmax"])


def test_max_pool_indices_of_3d_pooling_is_an_error():
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool", kernel_shape=[2, 2, 2])
    model = make_model(
        [node],
        [tensor("x", [1, 2, 4, 4, 4])],
        [tensor("y", [1, 2, 3, 3, 3]), tensor("i", [1, 2, 3, 3, 3], onnx.TensorProto.INT64)],
    )
    assert import_error(model) == (
        "node 'pool' (MaxPool, opset 13): output 'Indices' ('i') is used, which is supported "
        "for 2-d pooling only"
    )


def test_lp_pool_ceil_mode_overhang_is_an_error():
    feeds = {"x": randn(1, 3, 8, 8)}
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}
    assert import_error(node_model("LpPool", ["x"], feeds, opset=18, **attrs)) == (
        "node 'n' (LpPool, opset 18): attribute 'ceil_mode' = 1 is not supported: a window "
        "would reach beyond the padding"
    )


# Windows larger than the padded input: onnxruntime computes
# (padded - span) / stride + 1 dividing toward zero (ceil in ceil_mode), so a
# window that overhangs by less than a stride still has a position (over the
# elements it covers), one that leaves none gives an empty output, and a
# negative count is refused.
LARGE_WINDOWS = [
    ({"kernel_shape": [4, 4]}, (1, 2, 3, 3)),
    ({"kernel_shape": [4, 4], "ceil_mode": 1}, (1, 2, 3, 3)),
    ({"kernel_shape": [4, 4], "strides": [2, 2]}, (1, 2, 3, 3)),
    ({"kernel_shape": [4, 4], "strides": [2, 2], "ceil_mode": 1}, (1, 2, 3, 3)),
    ({"kernel_shape": [5, 5], "strides": [2, 2]}, (1, 2, 3, 3)),
    ({"kernel_shape": [6, 6], "pads": [1, 1, 1, 1]}, (1, 2, 3, 3)),
    ({"kernel_shape": [6, 6], "pads": [1, 1, 1, 1], "ceil_mode": 1}, (1, 2, 3, 3)),
    ({"kernel_shape": [5, 3], "strides": [3, 1], "pads": [1, 0, 0, 0]}, (1, 2, 3, 5)),
    ({"kernel_shape": [4, 4], "auto_pad": "VALID"}, (1, 2, 3, 3)),
    ({"kernel_shape": [5], "strides": [3]}, (2, 3, 3)),
]


@pytest.mark.parametrize("op_type", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize(("attrs", "shape"), LARGE_WINDOWS)
def test_window_larger_than_padded_input(op_type, attrs, shape):
    feeds = {"x": randn(*shape)}
    model = node_model(op_type, ["x"], feeds, opset=19, **attrs)
    kind = "max" if op_type == "MaxPool" else "avg"
    compile_and_compare(model, feeds, [f"relay.nn.{kind}_pool{len(shape) - 2}d"])


@pytest.mark.parametrize("op_type", ["MaxPool", "AveragePool"])
def test_window_leaving_no_position_is_an_error(op_type):
    feeds = {"x": randn(1, 2, 3, 3)}
    model = node_model(op_type, ["x"], feeds, kernel_shape=[5, 5])
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime refuses it too
        run_ort(model, feeds)
    kind = "max" if op_type == "MaxPool" else "avg"
    assert import_error(model) == (
        f"node 'n' ({op_type}, opset 13): 'relay.nn.{kind}_pool2d' window height 5 "
        "(with dilation) is larger than the padded input height 3"
    )


def test_lp_pool_window_beyond_the_padding_is_an_error():
    feeds = {"x": randn(1, 2, 3, 3)}
    attrs = {"kernel_shape": [4, 4], "strides": [2, 2]}
    assert import_error(node_model("LpPool", ["x"], feeds, opset=18, **attrs)) == (
        "node 'n' (LpPool, opset 18): attribute 'kernel_shape' = [4, 4]: a window reaches "
        "beyond the padded input input 'X' ('x'), which LpPool does not support"
    )
