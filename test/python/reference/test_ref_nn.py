"""relay.nn normalization and shape ops: batch_norm, lrn, dropout and
batch_flatten against onnxruntime ``BatchNormalization``, ``LRN``,
``Dropout`` and ``Flatten``."""

from __future__ import annotations

import numpy as np
import pytest
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects.relay import BatchFlattenOp, BatchNormOp, DropoutOp, LrnOp
from xtvm.reference.relay.nn import batch_norm


@pytest.mark.parametrize("shape", [(2, 5, 4, 3), (3, 5), (1, 5, 7)])
def test_batch_norm_matches_onnxruntime(shape):
    data = random(shape, low=-3, high=3)
    gamma, beta, mean = random((5,)), random((5,)), random((5,))
    var = random((5,), low=0.1, high=2)
    ours = run_relay(lambda *v: BatchNormOp(*v, epsilon=1e-3), [data, gamma, beta, mean, var])
    theirs = run_onnx("BatchNormalization", [data, gamma, beta, mean, var], epsilon=1e-3)
    assert_same(ours, theirs)


def test_batch_norm_axis_center_scale():
    data = random((2, 3, 4))
    gamma, beta, mean = random((4,)), random((4,)), random((4,))
    var = random((4,), low=0.5, high=1)
    (got,) = run_relay(
        lambda *v: BatchNormOp(*v, axis=-1, center=False, scale=True),
        [data, gamma, beta, mean, var],
    )
    want = (data - mean) / np.sqrt(var + 1e-5) * gamma
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    without_scale = batch_norm(data, gamma, beta, mean, var, axis=2, scale=False)
    np.testing.assert_allclose(without_scale, (data - mean) / np.sqrt(var + 1e-5) + beta, rtol=1e-5)


@pytest.mark.parametrize("size", [1, 3, 5, 9])
def test_lrn_matches_onnxruntime(size):
    data = random((2, 7, 3, 4), low=-2, high=2)
    ours = run_relay(lambda x: LrnOp(x, size=size, alpha=1e-2, beta=0.6, bias=1.5), [data])
    theirs = run_onnx("LRN", [data], size=size, alpha=1e-2, beta=0.6, bias=1.5)
    assert_same(ours, theirs)


@pytest.mark.parametrize("size", [2, 4])
def test_lrn_even_size_follows_the_onnx_formula(size):
    """onnxruntime implements odd sizes only. For an even size the ONNX window
    is lopsided: ``[c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]``."""
    data = random((1, 6, 2, 2))
    (got,) = run_relay(lambda x: LrnOp(x, size=size, alpha=0.1, beta=0.75, bias=1.0), [data])
    want = np.empty_like(data)
    for c in range(6):
        lo, hi = max(0, c - (size - 1) // 2), min(5, c + size // 2)
        square_sum = (data[:, lo : hi + 1] ** 2).sum(axis=1)
        want[:, c] = data[:, c] / (1.0 + 0.1 / size * square_sum) ** 0.75
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_lrn_along_another_axis():
    """Axis 2 of x is axis 1 of x moved: the results move with it."""
    data = random((2, 3, 6, 4))
    (along_2,) = run_relay(lambda x: LrnOp(x, size=3, axis=2), [data])
    (along_1,) = run_relay(lambda x: LrnOp(x, size=3, axis=1), [np.moveaxis(data, 2, 1).copy()])
    np.testing.assert_allclose(along_2, np.moveaxis(along_1, 1, 2), rtol=1e-6)


def test_dropout_is_the_identity_at_inference():
    data = random((3, 8))
    ours = run_relay(lambda x: DropoutOp(x, rate=0.3), [data])
    theirs = run_onnx("Dropout", [data, np.array(0.3, np.float32)])
    assert_same(ours, theirs)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (4, 7), (3,)])
def test_batch_flatten_matches_onnxruntime_flatten(shape):
    data = random(shape)
    assert_same(run_relay(BatchFlattenOp, [data]), run_onnx("Flatten", [data], axis=1))
