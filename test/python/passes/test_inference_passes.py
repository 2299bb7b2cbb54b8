"""relay-simplify-inference, relay-fold-scale-axis and relay-eliminate-common-subexpr
keep a graph's meaning (checked with the NumPy evaluator) and do their job."""

from __future__ import annotations

import numpy as np
import pytest
from relay_graphs import GraphBuilder, random_graph
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects.relay import (
    AddOp,
    BatchNormOp,
    BiasAddOp,
    Conv2dOp,
    DropoutOp,
    MultiplyOp,
    ReluOp,
)
from xtvm.passes.registry import PASSES
from xtvm.passes.relay.eliminate_common_subexpr import EliminateCommonSubexprPass
from xtvm.passes.relay.evaluate import evaluate_function
from xtvm.passes.relay.fold_constant import FoldConstantPass
from xtvm.passes.relay.fold_scale_axis import FoldScaleAxisPass, channel_vector
from xtvm.passes.relay.simplify_inference import SimplifyInferencePass

TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
"""float32 folding reassociates products: relative error a few ulps, plus an
absolute term for outputs that cancel to near zero."""


def _run(module: ModuleOp, *passes: ModulePass) -> None:
    for p in passes:
        p.apply(Context(), module)
        module.verify()


def _ops(module: ModuleOp) -> list[str]:
    main = next(iter(module.ops))
    assert isinstance(main, func.FuncOp)
    return [op.name for op in main.body.block.ops]


def _random(rng: np.random.Generator, *shape: int, low: float = -1.0) -> np.ndarray:
    return rng.uniform(low, 1.0, shape).astype(np.float32)


def _conv_bn_graph(rng: np.random.Generator) -> tuple[ModuleOp, np.ndarray]:
    """A random CNN trunk: blocks of [input scale] conv [bias] batch_norm [relu],
    with random groups (depthwise included), strides, padding and dilation."""
    n, c, size = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(6, 10))
    g = GraphBuilder(TensorType(f32, [n, c, size, size]))
    x: SSAValue = g.args[0]
    for _ in range(int(rng.integers(1, 4))):
        channels = x.type.get_shape()[1]
        if rng.random() < 0.3:  # a per-input-channel scale, folded forward
            x = g.add(MultiplyOp(x, g.const(_random(rng, channels, 1, 1, low=0.1))))
        groups = int(rng.choice([d for d in range(1, channels + 1) if channels % d == 0]))
        out = groups * int(rng.integers(1, 4))
        height, width = x.type.get_shape()[2:]
        k = int(rng.integers(1, min(3, height, width) + 1))
        weight = g.const(_random(rng, out, channels // groups, k, k))
        pad = [int(p) for p in rng.integers(0, 2, 4)]
        stride = [int(s) for s in rng.integers(1, 3, 2)]
        dilated = 2 * (k - 1) + 1 <= height and rng.random() < 0.5
        dilation = [2, 1] if dilated else [1, 1]
        x = g.add(Conv2dOp(x, weight, stride, pad, dilation, groups))
        bias = rng.choice(["none", "bias_add", "add"])
        if bias == "bias_add":
            x = g.add(BiasAddOp(x, g.const(_random(rng, out))))
        elif bias == "add":
            x = g.add(AddOp(x, g.const(_random(rng, out, 1, 1))))
        gamma, beta, mean = (g.const(_random(rng, out)) for _ in range(3))
        var = g.const(_random(rng, out, low=0.5))
        epsilon = float(rng.choice([1e-5, 1e-3]))
        center, scale = (bool(rng.random() < 0.8) for _ in range(2))
        x = g.add(BatchNormOp(x, gamma, beta, mean, var, 1, epsilon, center, scale))
        if rng.random() < 0.5:
            x = g.add(ReluOp(x))
    return g.module([x]), _random(rng, n, c, size, size)


@pytest.mark.parametrize("seed", range(12))
def test_conv_batch_norm_pipeline_keeps_semantics(seed: int) -> None:
    rng = np.random.default_rng(seed)
    module, data = _conv_bn_graph(rng)
    expected = evaluate_function(module, "main", [data])

    _run(
        module,
        SimplifyInferencePass(),
        FoldConstantPass(),
        FoldScaleAxisPass(),
        FoldConstantPass(),
    )

    ops = _ops(module)
    assert "relay.nn.batch_norm" not in ops
    assert "relay.multiply" not in ops, ops  # every scale went into a conv weight
    (got,) = evaluate_function(module, "main", [data])
    np.testing.assert_allclose(got, expected[0], **TOLERANCE)


@pytest.mark.parametrize(
    ("shape", "axis", "center", "scale"),
    [
        ((2, 3, 4, 4), 1, True, True),
        ((2, 4, 4, 3), -1, True, True),
        ((2, 3, 5), 1, False, True),
        ((3, 4), 0, True, False),
        ((2, 3, 4, 4), 1, False, False),
    ],
)
def test_simplify_inference_matches_batch_norm(
    shape: tuple[int, ...], axis: int, center: bool, scale: bool
) -> None:
    rng = np.random.default_rng(1)
    c = shape[axis]
    param = TensorType(f32, [c])
    g = GraphBuilder(TensorType(f32, shape), param, param, param, param)
    x, gamma, beta, mean, var = g.args
    y = g.add(BatchNormOp(x, gamma, beta, mean, var, axis, 1e-3, center, scale))
    module = g.module([g.add(DropoutOp(y, 0.25))])
    inputs = [_random(rng, *shape), *(_random(rng, c) for _ in range(3))]
    inputs.append(_random(rng, c, low=0.1))  # the variance
    expected = evaluate_function(module, "main", inputs)

    _run(module, SimplifyInferencePass())

    ops = _ops(module)
    assert "relay.nn.batch_norm" not in ops and "relay.nn.dropout" not in ops
    assert ops[-3:] == ["relay.multiply", "relay.add", "func.return"]
    (got,) = evaluate_function(module, "main", inputs)
    np.testing.assert_allclose(got, expected[0], **TOLERANCE)


def test_channel_vector() -> None:
    ones = np.ones
    assert channel_vector(ones(()), 8).shape == (1,)
    assert channel_vector(ones((8, 1, 1)), 8).shape == (8,)
    assert channel_vector(ones((1, 8, 1, 1)), 8).shape == (8,)
    assert channel_vector(ones((1, 1, 1)), 8).shape == (1,)
    assert channel_vector(ones(8), 8) is None  # broadcasts along the width
    assert channel_vector(ones((4, 1, 1)), 8) is None
    assert channel_vector(ones((8, 2, 1)), 8) is None  # per spatial position
    assert channel_vector(ones((2, 8, 1, 1)), 8) is None  # per batch element
    assert channel_vector(ones((1, 1, 8, 1, 1)), 8) is None  # broadcasts to rank 5


def test_eliminate_common_subexpr_undoes_duplication() -> None:
    """Copy every op of random graphs, move half of each value's uses to the
    copy: CSE gives back the original ops and the same results."""
    rng = np.random.default_rng(7)
    for _ in range(5):
        module = random_graph(rng, 25)
        _run(module, EliminateCommonSubexprPass())  # a random graph may repeat itself
        original = _ops(module)
        inputs = [_random(rng, 4, 8), _random(rng, 4, 8)]
        expected = evaluate_function(module, "main", inputs)
        block = next(iter(module.ops)).body.block
        for op in list(block.ops)[:-1]:
            copy = op.clone()
            block.insert_op_after(copy, op)
            for old, new in zip(op.results, copy.results):
                uses = list(old.uses)
                for use in uses[len(uses) // 2:]:
                    use.operation.operands[use.index] = new
        module.verify()
        assert len(_ops(module)) == 2 * len(original) - 1

        _run(module, EliminateCommonSubexprPass())

        assert _ops(module) == original
        for got, want in zip(evaluate_function(module, "main", inputs), expected, strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("relay-simplify-inference", SimplifyInferencePass),
        ("relay-eliminate-common-subexpr", EliminateCommonSubexprPass),
        ("relay-fold-scale-axis", FoldScaleAxisPass),
    ],
)
def test_registered(name: str, cls: type[ModulePass]) -> None:
    assert PASSES[name]() is cls and cls.name == name
