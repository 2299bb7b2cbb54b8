"""Converters of the normalizations (BatchNormalization's training mode,
InstanceNormalization, LayerNormalization, GroupNormalization,
RMSNormalization, MeanVarianceNormalization, LpNormalization) against
onnxruntime or ONNX's reference, evaluated with the NumPy references and
compiled."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import compile_and_compare, run_compiled
from node_testing import node_model, randn
from onnx.reference import ReferenceEvaluator
from onnx_testing import import_error

STATS = ["relay.mean", "relay.subtract", "relay.multiply", "relay.mean"]
INV_STD = ["relay.const", "relay.add", "relay.sqrt", "relay.const", "relay.divide"]


def test_batch_norm_training_mode():
    feeds = {
        "x": randn(2, 3, 4, 5),
        "scale": randn(3),
        "bias": randn(3),
        "mean": randn(3),
        "var": (np.abs(randn(3)) + 0.5).astype(np.float32),
    }
    model = node_model(
        "BatchNormalization",
        list(feeds),
        feeds,
        outputs=("y", "running_mean", "running_var"),
        opset=15,
        training_mode=1,
        momentum=0.8,
    )
    expected = ReferenceEvaluator(model).run(None, feeds)
    got = run_compiled(model, feeds)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 2, 2)])
def test_instance_norm(shape):
    feeds = {"x": randn(*shape), "s": randn(shape[1]), "b": randn(shape[1])}
    model = node_model("InstanceNormalization", ["x", "s", "b"], feeds, epsilon=1e-3)
    ops = [*STATS, *INV_STD, "relay.multiply", "relay.reshape", "relay.multiply"]
    compile_and_compare(model, feeds, [*ops, "relay.reshape", "relay.add"], atol=1e-5)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("with_bias", [False, True])
def test_layer_norm(axis, with_bias):
    shape = (2, 3, 4)
    normalized = shape[axis % 3 :]
    feeds = {"x": randn(*shape), "w": randn(*normalized)}
    if with_bias:
        feeds["b"] = randn(*normalized)
    model = node_model(
        "LayerNormalization",
        list(feeds),
        feeds,
        outputs=("y", "mean", "inv_std"),
        opset=17,
        axis=axis,
        epsilon=1e-4,
    )
    ops = [*STATS, *INV_STD, "relay.multiply", "relay.multiply"]
    compile_and_compare(model, feeds, ops + ["relay.add"] * with_bias, atol=1e-5)


def test_layer_norm_stash_type_casts_float64_statistics():
    feeds = {"x": randn(2, 6, dtype=np.float64), "w": randn(6, dtype=np.float64)}
    model = node_model("LayerNormalization", ["x", "w"], feeds, opset=17)
    expected = ReferenceEvaluator(model).run(None, feeds)
    (got,) = run_compiled(model, feeds)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_group_norm(groups):
    feeds = {"x": randn(3, 4, 2, 5), "scale": randn(4), "bias": randn(4)}
    model = node_model(
        "GroupNormalization", list(feeds), feeds, opset=21, num_groups=groups, epsilon=1e-3
    )
    expected = ReferenceEvaluator(model).run(None, feeds)
    (got,) = run_compiled(model, feeds)
    np.testing.assert_allclose(got, expected[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [0, -1, 1])
def test_rms_norm(axis):
    feeds = {"x": randn(2, 3, 4), "w": randn(*(2, 3, 4)[axis % 3 :])}
    model = node_model("RMSNormalization", ["x", "w"], feeds, opset=23, axis=axis, epsilon=1e-3)
    expected = ReferenceEvaluator(model).run(None, feeds)
    (got,) = run_compiled(model, feeds)
    np.testing.assert_allclose(got, expected[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axes", [None, [0, 1], [-1]])
def test_mean_variance_norm(axes):
    feeds = {"x": randn(3, 2, 4, 2)}
    attrs = {} if axes is None else {"axes": axes}
    model = node_model("MeanVarianceNormalization", ["x"], feeds, **attrs)
    ops = [*STATS, "relay.sqrt", "relay.const", "relay.add", "relay.divide"]
    compile_and_compare(model, feeds, ops, rtol=1e-4, atol=1e-5)


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # 0 / 0, replaced
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [0, -1])
def test_lp_norm_is_zero_where_the_norm_is(p, axis):
    x = randn(3, 4)
    x[:, 1] = 0
    x[2, :] = 0
    feeds = {"x": x}
    model = node_model("LpNormalization", ["x"], feeds, p=p, axis=axis)
    norm = ["relay.abs", "relay.sum"] if p == 1 else ["relay.multiply", "relay.sum", "relay.sqrt"]
    ops = [*norm, "relay.const", "relay.equal", "relay.divide", "relay.where"]
    compile_and_compare(model, feeds, ops)


def test_normalization_errors_name_the_node():
    feeds = {"x": randn(2, 6, 3), "s": randn(6), "b": randn(6)}
    assert import_error(
        node_model("GroupNormalization", ["x", "s", "b"], feeds, opset=21, num_groups=4)
    ) == (
        "node 'n' (GroupNormalization, opset 21): attribute 'num_groups' = 4 must divide "
        "the channels (axis 1) of input 'X' ('x') of shape 2x6x3"
    )
    assert import_error(
        node_model("LayerNormalization", ["x", "s"], feeds, opset=17, stash_type=11)
    ) == (
        "node 'n' (LayerNormalization, opset 17): attribute 'stash_type' = 11 is not "
        "supported: only 1 (float32) is supported"
    )
    assert import_error(node_model("LpNormalization", ["x"], feeds, p=3)) == (
        "node 'n' (LpNormalization, opset 13): attribute 'p' = 3 is not supported: "
        "expected 1 or 2"
    )
    bad = {"x": randn(2, 6, 3), "s": randn(5), "b": randn(6)}
    assert import_error(node_model("InstanceNormalization", ["x", "s", "b"], bad)) == (
        "node 'n' (InstanceNormalization, opset 13): input 'scale' ('s') must have shape 6 "
        "(the channels), got 5"
    )
    ints = {"x": np.ones((2, 3), np.int32)}
    assert import_error(node_model("MeanVarianceNormalization", ["x"], ints)) == (
        "node 'n' (MeanVarianceNormalization, opset 13): input 'X' ('x') must be a float "
        "tensor, got int32"
    )
