"""Converters of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
(decomposed into gather/take/where/sum/log_softmax) against onnxruntime,
evaluated with the NumPy references and compiled."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model, randn
from onnx_testing import import_error, op_names, run_ort, run_relay

from xtvm.frontend.onnx import from_onnx

RNG = np.random.default_rng(5)


def _compare(model, feeds, expected_ops) -> None:
    """The imported IR holds ``expected_ops``; its NumPy evaluation and the
    compiled module both equal onnxruntime's outputs."""
    module, _ = from_onnx(model, freeze_params=True)
    assert set(expected_ops) <= set(op_names(module))
    reference = run_ort(model, feeds)
    for results in (run_relay(module, feeds), run_compiled(model, feeds)):
        assert len(results) == len(reference)
        for got, want in zip(results, reference, strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _feeds(shape, weighted, ignore_index, dtype=np.int64):
    n, c, *rest = shape
    target = RNG.integers(0, c, (n, *rest)).astype(dtype)
    if ignore_index is not None:
        target.flat[::3] = ignore_index
    feeds = {"x": randn(*shape), "t": target}
    if weighted:
        feeds["w"] = RNG.random(c).astype(np.float32) + 0.5
    return feeds


@pytest.mark.parametrize("op", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize(
    ("weighted", "ignore_index", "shape"),
    [(False, None, (4, 5)), (True, 2, (2, 3, 4, 2)), (False, -5, (3, 4, 2))],
)
def test_loss(op, reduction, weighted, ignore_index, shape):
    feeds = _feeds(shape, weighted, ignore_index)
    attrs = {"reduction": reduction}
    if ignore_index is not None:
        attrs["ignore_index"] = ignore_index
    model = node_model(op, list(feeds), feeds, opset=13, **attrs)
    _compare(model, feeds, ["relay.gather"])


def test_softmax_cross_entropy_log_prob_output():
    feeds = _feeds((3, 4, 5), True, 1, np.int32)
    model = node_model(
        "SoftmaxCrossEntropyLoss", list(feeds), feeds, outputs=("loss", "log_prob"), opset=13
    )
    _compare(model, feeds, ["relay.nn.log_softmax", "relay.take"])


def test_loss_shape_mismatch_is_an_error():
    feeds = {"x": randn(4, 5), "t": np.zeros(3, np.int64)}
    model = node_model("NegativeLogLikelihoodLoss", ["x", "t"], feeds, opset=13)
    assert "expected input of shape [N, C, d1..dk]" in import_error(model)
