"""The CNN normalization and regularization converters: BatchNormalization,
LRN and Dropout (inference only) against onnxruntime, and their errors."""

from __future__ import annotations

import numpy as np
import pytest
from node_testing import node_model, randn
from onnx import helper
from onnx_testing import import_and_compare, import_error, make_model, run_ort, tensor


def bn_inits(channels: int) -> dict[str, np.ndarray]:
    return {
        "s": randn(channels),
        "b": randn(channels),
        "m": randn(channels),
        "v": np.abs(randn(channels)) + 0.5,
    }


BN_INPUTS = ["x", "s", "b", "m", "v"]


@pytest.mark.parametrize("opset", [7, 9, 14, 15])
@pytest.mark.parametrize("x_shape", [(2, 3, 4, 5), (4, 3), (2, 3, 5)])
def test_batch_norm(opset, x_shape):
    feeds = {"x": randn(*x_shape)}
    model = node_model("BatchNormalization", BN_INPUTS, feeds, bn_inits(3), opset=opset)
    import_and_compare(model, feeds, ["relay.nn.batch_norm"], rtol=1e-4, atol=1e-5)


def test_batch_norm_epsilon_and_inputs_as_graph_inputs():
    feeds = {"x": randn(2, 3, 4, 4), **bn_inits(3)}
    model = node_model("BatchNormalization", BN_INPUTS, feeds, epsilon=0.5)
    import_and_compare(model, feeds, ["relay.nn.batch_norm"], rtol=1e-4, atol=1e-5)


def test_batch_norm_opset6_inference():
    # onnxruntime has no BatchNormalization-6; opset 7 computes the same.
    feeds = {"x": randn(2, 3, 4, 4)}
    inits = bn_inits(3)
    want = node_model("BatchNormalization", BN_INPUTS, feeds, inits, opset=7)
    model = node_model("BatchNormalization", BN_INPUTS, feeds, inits, opset=6, is_test=1)
    import_and_compare(
        model, feeds, ["relay.nn.batch_norm"], expected=run_ort(want, feeds), rtol=1e-4
    )


def _bn_error(opset: int, outputs=("y",), **attrs) -> str:
    feeds = {"x": randn(2, 3, 4, 4)}
    model = node_model("BatchNormalization", BN_INPUTS, feeds, bn_inits(3), outputs, opset, **attrs)
    return import_error(model)


def test_batch_norm_training_before_opset_14_is_an_error():
    assert _bn_error(6) == (
        "node 'n' (BatchNormalization, opset 6): attribute 'is_test' = 0 is not "
        "supported: training mode is not supported; inference needs is_test = 1"
    )
    assert _bn_error(6, is_test=0).startswith(
        "node 'n' (BatchNormalization, opset 6): attribute 'is_test' = 0 is not supported"
    )
    assert _bn_error(9, ("y", "mean", "var", "saved_mean", "saved_var")) == (
        "node 'n' (BatchNormalization, opset 9): output 'mean' ('mean') is present, which "
        "selects training mode; only inference (output 'Y' alone) and opset 14+ training "
        "mode are supported"
    )
    assert _bn_error(14, training_mode=2) == (
        "node 'n' (BatchNormalization, opset 14): attribute 'training_mode' = 2 is not "
        "supported: expected 0 or 1"
    )
    assert _bn_error(6, is_test=1, spatial=0) == (
        "node 'n' (BatchNormalization, opset 6): attribute 'spatial' = 0 is not supported: "
        "only per-channel statistics (spatial = 1) are supported"
    )


@pytest.mark.parametrize(
    "attrs",
    [
        {"size": 5},
        {"size": 3, "alpha": 1e-3, "beta": 0.5, "bias": 2.0},
        {"size": 1},
    ],
)
@pytest.mark.parametrize("opset", [1, 13])
def test_lrn(attrs, opset):
    feeds = {"x": randn(2, 6, 3, 4)}
    model = node_model("LRN", ["x"], feeds, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.nn.lrn"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("opset", "node_inputs", "inits", "attrs"),
    [
        (7, ["x"], {}, {"ratio": 0.25}),
        (10, ["x"], {}, {}),
        (12, ["x"], {}, {"seed": 3}),
        (13, ["x", "r"], {"r": np.array(0.3, np.float32)}, {}),
        (13, ["x", "", "t"], {"t": np.array(False)}, {}),
        (22, ["x", "r", "t"], {"r": np.array(0.1, np.float32), "t": np.array(False)}, {}),
    ],
)
def test_dropout_is_identity(opset, node_inputs, inits, attrs):
    feeds = {"x": randn(3, 4)}
    model = node_model("Dropout", node_inputs, feeds, inits, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.nn.dropout"])


def test_dropout_keeps_the_ratio():
    feeds = {"x": randn(3, 4)}
    model = node_model("Dropout", ["x", "r"], feeds, {"r": np.array(0.25, np.float32)})
    module = import_and_compare(model, feeds, ["relay.nn.dropout"])
    assert "relay.nn.dropout %x {rate = 2.500000e-01 : f64}" in str(module)


def test_dropout_with_unused_mask_is_identity():
    # The light models list Dropout's mask output without reading it.
    node = helper.make_node("Dropout", ["x"], ["y", "mask"], ratio=0.5)
    model = make_model([node], [tensor("x", [2, 3])], [tensor("y", [2, 3])], opset=9)
    import_and_compare(model, {"x": randn(2, 3)}, ["relay.nn.dropout"])


def test_dropout_errors():
    feeds = {"x": randn(3, 4)}
    dynamic = node_model("Dropout", ["x", "r"], {**feeds, "r": np.array(0.5, np.float32)})
    assert import_error(dynamic) == (
        "node 'n' (Dropout, opset 13): input 'ratio' ('r') must be known at compile time "
        "(an initializer, a Constant node's output or a specialized graph input); "
        "computed values are not supported here"
    )
    legacy = node_model("Dropout", ["x"], feeds, opset=6)
    assert import_error(legacy) == (
        "node 'n' (Dropout, opset 6): attribute 'is_test' = 0 is not supported: "
        "training mode is not supported; inference needs is_test = 1"
    )


def test_dropout_opset6_inference():
    feeds = {"x": randn(3, 4)}
    model = node_model("Dropout", ["x"], feeds, opset=6, is_test=1, ratio=0.2)
    import_and_compare(model, feeds, ["relay.nn.dropout"], expected=[feeds["x"]])


def test_lrn_even_size_follows_the_onnx_formula():
    # onnxruntime accepts odd sizes only; ONNX sums the squares over channels
    # [c - (size - 1) // 2, c + size // 2], here [c, c + 1].
    x = randn(1, 4, 2, 3)
    sq = np.square(x)
    window = sq + np.concatenate([sq[:, 1:], np.zeros_like(sq[:, :1])], axis=1)
    want = x / (1.0 + 1e-4 / 2 * window) ** 0.75
    model = node_model("LRN", ["x"], {"x": x}, size=2)
    import_and_compare(model, {"x": x}, ["relay.nn.lrn"], expected=[want], rtol=1e-5)
