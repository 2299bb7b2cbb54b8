"""Attention (opsets 23-25, decomposed into relay ops) against onnx's
reference evaluator and onnxruntime: 3-d and 4-d inputs, grouped-query
heads, a KV cache, boolean and additive masks (one masking whole rows),
is_causal, softcap, the qk output modes and a sliding window."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model
from onnx.reference import ReferenceEvaluator
from onnx_testing import run_ort

RNG = np.random.default_rng(12)


def _randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


CASES = [
    # 4-d, 4 query heads over 2 KV heads, a cache, a boolean mask with a fully masked row.
    (
        23,
        {
            "q": (2, 4, 3, 8),
            "k": (2, 2, 5, 8),
            "v": (2, 2, 5, 6),
            "past_key": (2, 2, 2, 8),
            "past_value": (2, 2, 2, 6),
            "mask": ("bool", (3, 7)),
        },
        {"qk_matmul_output_mode": 3},
        4,
    ),
    # 3-d inputs split in heads, causal, softcap, an explicit scale.
    (
        23,
        {"q": (1, 4, 12), "k": (1, 6, 12), "v": (1, 6, 6)},
        {"q_num_heads": 3, "kv_num_heads": 3, "is_causal": 1, "softcap": 2.0, "scale": 0.3},
        1,
    ),
    # An additive mask shorter than the keys (padded with -inf), qk output with its bias.
    (
        23,
        {"q": (1, 2, 4, 4), "k": (1, 2, 6, 4), "v": (1, 2, 6, 4), "mask": ("float", (1, 1, 4, 5))},
        {"qk_matmul_output_mode": 2},
        4,
    ),
    # Opset 25's sliding window with causality.
    (
        25,
        {"q": (1, 2, 5, 4), "k": (1, 2, 5, 4), "v": (1, 2, 5, 4)},
        {"left_window_size": 2, "is_causal": 1},
        1,
    ),
]


@pytest.mark.parametrize(("opset", "shapes", "attrs", "outputs"), CASES)
def test_attention(opset, shapes, attrs, outputs):
    feeds = {name: _randn(*shapes[name]) for name in ("q", "k", "v")}
    names = ["q", "k", "v", "", "", ""]
    if "mask" in shapes:
        kind, shape = shapes["mask"]
        if kind == "bool":
            mask = RNG.random(shape) > 0.3
            mask[1] = False  # a row that attends to nothing
        else:
            mask = _randn(*shape)
        feeds["mask"] = mask
        names[3] = "mask"
    for i, name in ((4, "past_key"), (5, "past_value")):
        if name in shapes:
            feeds[name] = _randn(*shapes[name])
            names[i] = name
    while names[-1] == "":
        names.pop()
    outs = ("y", "present_key", "present_value", "qk")[:outputs]
    model = node_model("Attention", names, feeds, outputs=outs, opset=opset, **attrs)
    got = run_compiled(model, feeds)
    wants = [ReferenceEvaluator(model).run(None, feeds)]
    total = shapes["k"][-2] + (shapes["past_key"][2] if "past_key" in shapes else 0)
    if opset < 25 and ("mask" not in shapes or shapes["mask"][1][-1] == total):
        # onnxruntime has no opset 25 and wants masks of the full key length.
        wants.append(run_ort(model, feeds))
    for want in wants:
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
