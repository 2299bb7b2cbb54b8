"""relay-fuse-ops keeps a graph's meaning and honours max-depth."""

from __future__ import annotations

import numpy as np
import pytest
from relay_graphs import GraphBuilder, random_graph
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.relay import ConstOp, RelayOp, ReluOp, TupleOp
from xtvm.dialects.relay.primitive import (
    MAX_NAME_LENGTH,
    PRIMITIVE_ATTR,
    kernel_name,
    unique_name,
)
from xtvm.passes.relay.evaluate import EvaluationError, evaluate_function
from xtvm.passes.relay.fuse_ops import FuseOpsPass
from xtvm.transform import PassContext


def _fuse(module: ModuleOp, **options: int) -> ModuleOp:
    fused = module.clone()
    FuseOpsPass(**options).apply(Context(), fused)
    fused.verify()
    return fused


def _primitive_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in module.ops if isinstance(f, func.FuncOp) and PRIMITIVE_ATTR in f.attributes]


def _group_sizes(module: ModuleOp) -> list[int]:
    return [len(f.body.block.ops) - 1 for f in _primitive_functions(module)]


def _compute_ops(module: ModuleOp) -> int:
    return sum(
        isinstance(op, RelayOp) and not isinstance(op, ConstOp | TupleOp) for op in module.walk()
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_depth", [1, 2, 3, 256])
def test_random_graph_keeps_semantics(seed: int, max_depth: int) -> None:
    rng = np.random.default_rng(seed)
    module = random_graph(rng, num_ops=30)
    inputs = [rng.standard_normal((4, 8)).astype(np.float32) for _ in range(2)]
    expected = evaluate_function(module, "main", inputs)

    fused = _fuse(module, max_depth=max_depth)

    for got, want in zip(evaluate_function(fused, "main", inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    sizes = _group_sizes(fused)
    assert max(sizes) <= max_depth
    assert sum(sizes) == _compute_ops(module) == _compute_ops(fused)
    main = next(f for f in fused.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    assert all(isinstance(op, func.CallOp | ConstOp | func.ReturnOp) for op in main.body.block.ops)
    if max_depth == 256:
        assert len(sizes) < _compute_ops(module)  # something did fuse


def test_fusing_twice_changes_nothing() -> None:
    fused = _fuse(random_graph(np.random.default_rng(7), num_ops=20))
    again = _fuse(fused)
    assert str(again) == str(fused)


def _relu_chain(length: int) -> ModuleOp:
    g = GraphBuilder(TensorType(f32, [8]))
    value = g.args[0]
    for _ in range(length):
        value = g.add(ReluOp(value))
    return g.module([value])


def test_pass_context_config_sets_max_depth() -> None:
    with PassContext(config={"relay.FuseOps.max_depth": 3}):
        assert _group_sizes(_fuse(_relu_chain(7))) == [3, 3, 1]
        # An explicit option wins over the config.
        assert _group_sizes(_fuse(_relu_chain(7), max_depth=7)) == [7]
    assert _group_sizes(_fuse(_relu_chain(7))) == [7]


def test_opt_level_zero_does_not_fuse() -> None:
    with PassContext(opt_level=0):
        assert _group_sizes(_fuse(_relu_chain(4))) == [1, 1, 1, 1]


@pytest.mark.parametrize("bad", [0, -3, "8", True])
def test_invalid_max_depth_is_reported(bad: object) -> None:
    with PassContext(config={"relay.FuseOps.max_depth": bad}):
        with pytest.raises(PassFailedException, match="max-depth must be a positive integer"):
            _fuse(_relu_chain(2))


def test_evaluator_rejects_wrong_inputs() -> None:
    module = _relu_chain(1)
    message = r"@main input 0 has shape \(3,\), expected tensor<8xf32>"
    with pytest.raises(EvaluationError, match=message):
        evaluate_function(module, "main", [np.zeros(3, np.float32)])
    with pytest.raises(EvaluationError, match="@main takes 1 inputs, got 2"):
        evaluate_function(module, "main", [np.zeros(8), np.zeros(8)])
    with pytest.raises(EvaluationError, match="no function body for @other"):
        evaluate_function(module, "other", [])


def test_kernel_names_are_tvms() -> None:
    # One naming for fused groups (relay-fuse-ops) and single ops (convert-relay-to-tir).
    assert kernel_name("relay.nn.dense", "relay.add") == "fused_nn_dense_add"
    assert kernel_name("relay.nn.relu") == "fused_nn_relu"
    long = kernel_name(*["relay.nn.batch_flatten"] * 8)
    assert len(long) == MAX_NAME_LENGTH + 9 and long.startswith("fused_nn_batch_flatten_nn")
    assert unique_name("fused_add", {"fused_add", "fused_add_1"}) == "fused_add_2"
    assert unique_name("fused_add", set()) == "fused_add"
