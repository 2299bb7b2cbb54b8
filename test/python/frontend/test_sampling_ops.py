"""ONNX's random ops and training Dropout, compiled: the stream equals an
independent NumPy SplitMix64, seeds reproduce and differ, and the
distributions hold (moments and frequencies within several standard
errors: a correct generator fails these with probability < 1e-6)."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx_testing import tensor

M64 = (1 << 64) - 1


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _uniform_reference(seed: float, count: int, stream: int = 0) -> np.ndarray:
    """The documented stream (xtvm/frontend/onnx/sampling.py), written again."""
    base = int.from_bytes(np.float64(seed).tobytes(), "little")
    key = _splitmix(np.array([(base + stream * 0x9E3779B97F4A7C15) & M64], np.uint64))[0]
    with np.errstate(over="ignore"):
        i = np.arange(1, count + 1, dtype=np.uint64)
        z = _splitmix(key + i * np.uint64(0x9E3779B97F4A7C15))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _model(op, inputs, outputs, opset=22, **attrs):
    node = helper.make_node(op, [i.name for i in inputs], [o.name for o in outputs], **attrs)
    graph = helper.make_graph([node], op.lower(), inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _uniform(n: int, seed: float, dtype=TensorProto.FLOAT, **attrs) -> np.ndarray:
    model = _model(
        "RandomUniform", [], [tensor("y", [n], dtype)], shape=[n], seed=seed, dtype=dtype, **attrs
    )
    return run_compiled(model, {})[0]


def test_uniform_is_the_documented_stream():
    got = _uniform(64, 5.0, TensorProto.DOUBLE)
    np.testing.assert_array_equal(got, _uniform_reference(5.0, 64))


def test_uniform_seeds_reproduce_and_differ():
    a, b, c = _uniform(256, 1.0), _uniform(256, 1.0), _uniform(256, 2.0)
    np.testing.assert_array_equal(a, b)
    assert (a != c).mean() > 0.99


def test_uniform_distribution():
    n = 40000
    y = _uniform(n, 3.0, low=-2.0, high=3.0)
    assert y.dtype == np.float32 and y.min() >= -2.0 and y.max() <= 3.0
    assert abs(y.mean() - 0.5) < 6 * 5 / np.sqrt(12 * n)
    counts = np.histogram(y, bins=10, range=(-2, 3))[0]
    expected = n / 10
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 40  # 9 degrees of freedom: P(chi2 > 40) < 1e-5


@pytest.mark.parametrize("like", [False, True])
def test_normal_distribution(like):
    n = 40000
    if like:
        model = _model(
            "RandomNormalLike",
            [tensor("x", [n], TensorProto.DOUBLE)],
            [tensor("y", [n], TensorProto.DOUBLE)],
            mean=1.5,
            scale=2.0,
            seed=4.0,
        )
        (y,) = run_compiled(model, {"x": np.zeros(n)})
        assert y.dtype == np.float64
    else:
        model = _model(
            "RandomNormal", [], [tensor("y", [n])], shape=[n], mean=1.5, scale=2.0, seed=4.0
        )
        (y,) = run_compiled(model, {})
        assert y.dtype == np.float32
    assert abs(y.mean() - 1.5) < 6 * 2.0 / np.sqrt(n)
    assert abs(y.std() - 2.0) < 0.05
    z = (y - 1.5) / 2.0
    assert abs((np.abs(z) < 1).mean() - 0.6827) < 0.015  # the normal's shape, not just moments


def test_bernoulli_frequencies_follow_runtime_p():
    p = np.repeat(np.array([0.0, 0.2, 0.7, 1.0]), 10000).reshape(4, 10000)
    model = _model(
        "Bernoulli",
        [tensor("p", [4, 10000], TensorProto.DOUBLE)],
        [tensor("y", [4, 10000], TensorProto.FLOAT)],
        dtype=TensorProto.FLOAT,
        seed=9.0,
    )
    (y,) = run_compiled(model, {"p": p})
    assert y.dtype == np.float32 and np.isin(y, [0, 1]).all()
    freq = y.mean(axis=1)
    assert freq[0] == 0 and freq[3] == 1
    for f, q in zip(freq[1:3], [0.2, 0.7]):
        assert abs(f - q) < 6 * np.sqrt(q * (1 - q) / 10000)


def test_multinomial_frequencies():
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    n = 20000
    model = _model(
        "Multinomial",
        [tensor("x", [2, 3])],
        [tensor("y", [2, n], TensorProto.INT64)],
        opset=7,
        sample_size=n,
        dtype=TensorProto.INT64,
        seed=2.0,
    )
    (y,) = run_compiled(model, {"x": np.log(probs).astype(np.float32)})
    assert y.dtype == np.int64 and y.min() >= 0 and y.max() <= 2
    for row, q in zip(y, probs):
        freq = np.bincount(row, minlength=3) / n
        assert np.all(np.abs(freq - q) < 6 * np.sqrt(q * (1 - q) / n))


def test_training_dropout_mask_and_scale():
    x = np.random.default_rng(0).standard_normal((100, 200)).astype(np.float32)
    inputs = [
        tensor("x", [100, 200]),
        tensor("r", [], TensorProto.FLOAT),
        tensor("t", [], TensorProto.BOOL),
    ]
    outputs = [tensor("y", [100, 200]), tensor("m", [100, 200], TensorProto.BOOL)]
    model = _model("Dropout", inputs, outputs, seed=0)
    from onnx import numpy_helper

    # ratio and training_mode as initializers: known at compile time.
    model.graph.initializer.extend(
        [
            numpy_helper.from_array(np.array(0.3, np.float32), "r"),
            numpy_helper.from_array(np.array(True), "t"),
        ]
    )
    del model.graph.input[1:]
    y, mask = run_compiled(model, {"x": x})
    assert mask.dtype == bool
    assert abs(mask.mean() - 0.7) < 6 * np.sqrt(0.21 / mask.size)
    np.testing.assert_allclose(y, np.where(mask, x / np.float32(0.7), 0), rtol=1e-6)


def test_inference_dropout_mask_is_all_true():
    model = _model(
        "Dropout",
        [tensor("x", [3, 4])],
        [tensor("y", [3, 4]), tensor("m", [3, 4], TensorProto.BOOL)],
    )
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    y, mask = run_compiled(model, {"x": x})
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == bool and mask.all()


def test_conformance_judges_random_outputs_by_possible_values():
    from xtvm.frontend.onnx.conformance import compare_random

    model = _model("Bernoulli", [tensor("p", [4])], [tensor("y", [4])])
    want = [np.array([0, 1, 1, 0], np.float32)]
    compare_random(
        "Bernoulli", model, [np.full(4, 0.5)], want, [np.array([1, 1, 0, 0], np.float32)], 0, 0
    )
    with pytest.raises(AssertionError, match="other than 0 and 1"):
        compare_random(
            "Bernoulli", model, [np.full(4, 0.5)], want, [np.full(4, 0.5, np.float32)], 0, 0
        )
    with pytest.raises(AssertionError, match="float64"):
        compare_random("Bernoulli", model, [np.full(4, 0.5)], want, [np.zeros(4)], 0, 0)
    drop = _model("Dropout", [tensor("x", [4]), tensor("r", [])], [tensor("y", [4])])
    x, r = np.array([1, 2, 3, 4], np.float32), np.array(0.5, np.float32)
    compare_random("Dropout", drop, [x, r], [x], [np.array([2, 0, 6, 0], np.float32)], 1e-6, 0)
    with pytest.raises(AssertionError):
        compare_random("Dropout", drop, [x, r], [x], [x], 1e-6, 0)  # unscaled: inference
