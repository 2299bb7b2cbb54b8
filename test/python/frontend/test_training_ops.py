"""ai.onnx.preview.training Adagrad, Adam and Momentum, compiled, against
onnx's reference evaluator (onnxruntime has no training ops): two tensors
per node, a run-time step count ``T`` of 0 and > 0, and the L2 terms."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnx_testing import tensor

DOMAIN = "ai.onnx.preview.training"


def _model(op: str, states: list[str], shapes: list[tuple[int, ...]], **attrs):
    groups = ["x", "g", *states]
    names = [f"{k}{i}" for k in groups for i in range(len(shapes))]
    outs = [f"{k}{i}_new" for k in ["x", *states] for i in range(len(shapes))]
    inputs = [tensor("r", []), tensor("t", [], TensorProto.INT64)]
    inputs += [tensor(n, shapes[int(n[-1])]) for n in names]
    node = helper.make_node(op, ["r", "t", *names], outs, domain=DOMAIN, **attrs)
    outputs = [tensor(o, shapes[int(o.split("_")[0][-1])]) for o in outs]
    graph = helper.make_graph([node], op.lower(), inputs, outputs)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)]
    )
    model.ir_version = 8
    return model, names


CASES = [
    ("Adagrad", ["h"], {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.01}),
    ("Momentum", ["v"], {"alpha": 0.9, "beta": 0.1, "mode": "standard", "norm_coefficient": 0.02}),
    ("Momentum", ["v"], {"alpha": 0.8, "beta": 0.3, "mode": "nesterov", "norm_coefficient": 0.0}),
    (
        "Adam",
        ["v", "h"],
        {"alpha": 0.9, "beta": 0.99, "norm_coefficient": 0.01, "norm_coefficient_post": 0.05},
    ),
]


@pytest.mark.parametrize(("op", "states", "attrs"), CASES)
@pytest.mark.parametrize("step", [0, 3])
def test_optimizer_matches_reference(op, states, attrs, step):
    shapes = [(3, 4), (5,)]
    model, names = _model(op, states, shapes, **attrs)
    rng = np.random.default_rng(7)
    feeds = {"r": np.array(0.1, np.float32), "t": np.array(step, np.int64)}
    for n in names:
        value = rng.standard_normal(shapes[int(n[-1])]).astype(np.float32)
        feeds[n] = np.abs(value) if n.startswith("h") else value  # squared-gradient sums
    got = run_compiled(model, feeds)
    want = ReferenceEvaluator(model).run(None, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w.astype(np.float32), rtol=1e-5, atol=1e-6)


def test_optimizer_rejects_uneven_groups():
    from onnx_testing import import_error

    model, _ = _model("Adagrad", ["h"], [(3,)])
    del model.graph.node[0].input[-1]
    assert "expected R, T and 3 groups" in import_error(model)
