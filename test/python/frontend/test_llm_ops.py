"""The ONNX ops of recent language and state-space models — RotaryEmbedding,
SwiGLU, TensorScatter, CausalConvWithState, LinearAttention,
ai.onnx.preview FlexAttention — and Det, compiled, against onnx's reference
evaluator on inputs other than the node tests' (other shapes, attribute
combinations, pivoting and singular matrices); bad attributes and shapes
are import errors naming the problem."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnx_testing import import_error, tensor

RNG = np.random.default_rng(23)
_ELEM = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
         np.dtype(np.float16): TensorProto.FLOAT16, np.dtype(np.int64): TensorProto.INT64}


def _model(op, feeds, outputs, opset, domain="", **attrs) -> onnx.ModelProto:
    names = [n if v is not None else "" for n, v in feeds.items()]
    node = helper.make_node(op, names, outputs, domain=domain, **attrs)
    inputs = [tensor(n, v.shape, _ELEM[v.dtype]) for n, v in feeds.items() if v is not None]
    first = next(v for v in feeds.values() if v is not None)
    outs = [tensor(o, [], _ELEM[first.dtype]) for o in outputs]  # _check sets the real types
    imports = [helper.make_opsetid("", opset)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    graph = helper.make_graph([node], op.lower(), inputs, outs)
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 10
    return model


def _check(model, feeds, rtol=1e-5, atol=1e-6) -> None:
    present = {n: v for n, v in feeds.items() if v is not None}
    want = ReferenceEvaluator(model).run(None, present)
    # The graph outputs get the reference's types (the checker wants them).
    del model.graph.output[:]
    for o, w in zip(model.graph.node[0].output, want):
        model.graph.output.append(tensor(o, w.shape, _ELEM[w.dtype]))
    got = run_compiled(model, present)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _normal(*shape, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def test_det_pivots_and_singular_matrices():
    x = _normal(4, 3, 3, dtype=np.float64)
    x[0] = [[0, 2, 1], [3, 0, 4], [1, 5, 0]]  # a zero first pivot: rows must swap
    x[1] = [[1, 2, 3], [2, 4, 6], [7, 8, 9]]  # singular
    x[2, :, 0] = 0  # a zero column
    feeds = {"x": x}
    _check(_model("Det", feeds, ["y"], 22), feeds, rtol=1e-10, atol=1e-12)


def test_det_batch_float32_and_5x5():
    feeds = {"x": _normal(2, 3, 5, 5)}
    _check(_model("Det", feeds, ["y"], 22), feeds, rtol=1e-4, atol=1e-5)


def test_det_of_a_non_square_matrix_is_an_error():
    feeds = {"x": _normal(2, 3)}
    assert "square matrices" in import_error(_model("Det", feeds, ["y"], 22))


def test_swiglu_alpha():
    feeds = {"a": _normal(3, 5), "b": _normal(3, 5)}
    _check(_model("SwiGLU", feeds, ["y"], 28, alpha=1.7), feeds)


@pytest.mark.parametrize(
    ("shape", "attrs"),
    [
        ((2, 3, 4, 12), {"interleaved": 1, "rotary_embedding_dim": 8}),
        ((1, 5, 2 * 6), {"num_heads": 2}),
    ],
)
def test_rotary_embedding(shape, attrs):
    seq = shape[2] if len(shape) == 4 else shape[1]
    half = attrs.get("rotary_embedding_dim", 6) // 2
    angles = RNG.uniform(0, 3, (9, half)).astype(np.float32)
    feeds = {
        "x": _normal(*shape),
        "cos": np.cos(angles),
        "sin": np.sin(angles),
        "pos": RNG.integers(0, 9, (shape[0], seq)).astype(np.int64),
    }
    _check(_model("RotaryEmbedding", feeds, ["y"], 23, **attrs), feeds)


@pytest.mark.parametrize(
    ("mode", "axis", "starts"),
    [("circular", 2, [3, 1]), ("linear", -2, [0, 2]), ("linear", 1, None)],
)
def test_tensor_scatter(mode, axis, starts):
    cache = _normal(2, 5, 4, 3) if axis == 1 else _normal(2, 3, 5, 4)[..., :4]
    shape = list(cache.shape)
    shape[axis] = 2
    feeds = {
        "past": cache,
        "update": _normal(*shape),
        "starts": None if starts is None else np.array(starts, np.int64),
    }
    _check(_model("TensorScatter", feeds, ["y"], 24, mode=mode, axis=axis), feeds)


def test_causal_conv_with_state_silu_bias_past():
    feeds = {"x": _normal(2, 3, 5), "w": _normal(3, 1, 3), "bias": _normal(3),
             "past": _normal(2, 3, 2)}
    model = _model("CausalConvWithState", feeds, ["y", "state"], 27, activation="silu")
    _check(model, feeds)


@pytest.mark.parametrize(
    ("rule", "decay_per_head"),
    [("gated_delta", False), ("gated", True), ("linear", False), ("delta", False)],
)
def test_linear_attention(rule, decay_per_head):
    b, t, hq, hkv, dk, dv = 2, 3, 4, 2, 4, 3
    gated, delta = "gated" in rule, "delta" in rule
    feeds = {
        "q": _normal(b, t, hq * dk),
        "k": _normal(b, t, hkv * dk) * 0.5,
        "v": _normal(b, t, hkv * dv),
        "past": _normal(b, hkv, dk, dv),
        "decay": -np.abs(_normal(b, t, hkv if decay_per_head else hkv * dk)) if gated else None,
        "beta": RNG.uniform(0, 1, (b, t, hkv)).astype(np.float32) if delta else None,
    }
    model = _model("LinearAttention", feeds, ["y", "state"], 27, q_num_heads=hq,
                   kv_num_heads=hkv, update_rule=rule)
    _check(model, feeds, rtol=1e-4, atol=1e-5)


def test_linear_attention_needs_decay_for_gated_rules():
    feeds = {"q": _normal(1, 2, 4), "k": _normal(1, 2, 4), "v": _normal(1, 2, 4)}
    model = _model("LinearAttention", feeds, ["y", "state"], 27, q_num_heads=1,
                   kv_num_heads=1, update_rule="gated")
    assert "needs input 'decay'" in import_error(model)


def _mod_graph(name: str, op_nodes: list[onnx.NodeProto], inits) -> onnx.GraphProto:
    io = [helper.make_tensor_value_info(x, TensorProto.FLOAT, None) for x in ("s", "out")]
    return helper.make_graph(op_nodes, name, [io[0]], [io[1]], initializer=inits)


def test_flex_attention_mods_and_grouped_heads():
    cap = onnx.numpy_helper.from_array(np.array(5.0, np.float32), "cap")
    score_mod = _mod_graph(
        "softcap",
        [helper.make_node("Div", ["s", "cap"], ["t"]), helper.make_node("Tanh", ["t"], ["u"]),
         helper.make_node("Mul", ["u", "cap"], ["out"])],
        [cap],
    )
    prob_mod = _mod_graph("square", [helper.make_node("Mul", ["s", "s"], ["out"])], [])
    feeds = {"q": _normal(1, 4, 3, 8), "k": _normal(1, 2, 5, 8), "v": _normal(1, 2, 5, 6)}
    model = _model("FlexAttention", feeds, ["y"], 24, domain="ai.onnx.preview",
                   score_mod=score_mod, prob_mod=prob_mod, scale=0.3)
    _check(model, feeds)
