"""Converter for ``LinearAttention`` (opset 27), the recurrent attention
of linear-attention and gated-delta-net models, unrolled over the
(static) sequence into relay ops in float32 as ONNX's reference computes
it. Per step ``t``, with the state ``S`` of ``[B, H_kv, d_k, d_v]``:

* ``gated``/``gated_delta``: ``S *= exp(decay_t)`` (per head or per key
  feature);
* ``delta``/``gated_delta``: ``v_t = beta_t * (v_t - k_t S)``;
* ``S += k_t^T v_t``; ``o_t = scale * q_t S``, each group of
  ``q_num_heads / kv_num_heads`` query heads reading its KV head's state.

The unrolled steps are as many as the sequence is long (at most
:data:`MAX_STEPS`): prefill of long sequences wants a chunked kernel, decode
(one step) is what this form is fast for."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AddOp,
    CastOp,
    ConcatenateOp,
    ExpOp,
    FullOp,
    MatmulOp,
    MultiplyOp,
    ReshapeOp,
    StridedSliceOp,
    SubtractOp,
    TransposeOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.tensor import element_dtype

MAX_STEPS = 1024
"""The longest sequence the converter unrolls (as ``Loop``'s limit)."""

_RULES = {"linear": (False, False), "gated": (True, False), "delta": (False, True),
          "gated_delta": (True, True)}
"""update_rule → (gated, delta-corrected)."""


class LinearAttention(OnnxOpConverter):
    """``LinearAttention(query [B, T, Hq * d_k], key [B, T, Hkv * d_k],
    value [B, T, Hkv * d_v], past_state?, decay?, beta?)`` → ``output [B,
    T, Hq * d_v], present_state [B, Hkv, d_k, d_v]`` (see the module
    docstring)."""

    @classmethod
    def _impl_v27(cls, node: OnnxNode) -> list[SSAValue]:
        rule = node.attr("update_rule", "gated_delta")
        if rule not in _RULES:
            raise node.error(f"update_rule must be one of {sorted(_RULES)}, got {rule!r}")
        gated, delta = _RULES[rule]
        for i, needed, what in ((4, gated, "decay"), (5, delta, "beta")):
            if node.has_input(i) != needed:
                verb = "needs" if needed else "takes no"
                raise node.error(f"update_rule {rule!r} {verb} input '{what}'")
        q_heads, kv_heads = node.attr("q_num_heads"), node.attr("kv_num_heads")
        if not q_heads or not kv_heads or q_heads <= 0 or kv_heads <= 0 or q_heads % kv_heads:
            raise node.error(
                f"q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads ({kv_heads})"
            )
        shapes = [node.input_shape(i) for i in range(3)]
        if any(len(s) != 3 for s in shapes):
            raise node.error(
                f"query, key and value must be [batch, seq, heads * size], got "
                f"{[list(s) for s in shapes]}"
            )
        batch, steps, q_hidden = shapes[0]
        if q_hidden % q_heads or shapes[1][2] % kv_heads or shapes[2][2] % kv_heads:
            raise node.error("the hidden sizes must be multiples of their head counts")
        d_k, d_v = q_hidden // q_heads, shapes[2][2] // kv_heads
        if shapes[1][2] != kv_heads * d_k:
            raise node.error(f"key's hidden size must be {kv_heads * d_k}, got {shapes[1][2]}")
        if steps > MAX_STEPS:
            raise node.error(f"a sequence of {steps} steps is too long to unroll (at most {MAX_STEPS})")
        out_dtype = element_dtype(node.input(0))
        group = q_heads // kv_heads

        def f32(x: SSAValue) -> SSAValue:
            return x if element_dtype(x) == np.float32 else node.emit(CastOp(x, "float32"))

        def heads(x: SSAValue, count: int) -> SSAValue:  # [B, T, H*D] -> [B, H, T, D]
            b, t, hidden = x.type.get_shape()  # type: ignore[attr-defined]
            x = node.emit(ReshapeOp(f32(x), [b, t, count, hidden // count]))
            return node.emit(TransposeOp(x, [0, 2, 1, 3]))

        # Queries grouped by their KV head: [B, Hkv, T, group, d_k].
        q = node.emit(ReshapeOp(f32(node.input(0)), [batch, steps, kv_heads, group, d_k]))
        q = node.emit(TransposeOp(q, [0, 2, 1, 3, 4]))
        k, v = heads(node.input(1), kv_heads), heads(node.input(2), kv_heads)
        factor = None
        if gated:
            last = node.input_shape(4)[-1]
            if node.input_shape(4) != (batch, steps, last) or last not in (kv_heads, kv_heads * d_k):
                raise node.error(
                    f"decay must be [{batch}, {steps}, {kv_heads} or {kv_heads * d_k}], "
                    f"got {list(node.input_shape(4))}"
                )
            factor = node.emit(ExpOp(heads(node.input(4), kv_heads)))  # [B, Hkv, T, 1 or d_k]
        beta = None
        if delta:
            last = node.input_shape(5)[-1]
            if node.input_shape(5) != (batch, steps, last) or last not in (kv_heads, 1):
                raise node.error(
                    f"beta must be [{batch}, {steps}, {kv_heads} or 1], "
                    f"got {list(node.input_shape(5))}"
                )
            beta = heads(node.input(5), last)  # [B, Hkv or 1, T, 1]
        state_shape = [batch, kv_heads, d_k, d_v]
        if node.has_input(3):
            if list(node.input_shape(3)) != state_shape:
                raise node.error(
                    f"past_state must be {state_shape}, got {list(node.input_shape(3))}"
                )
            state_dtype = element_dtype(node.input(3))
            state = f32(node.input(3))
        else:
            state_dtype = out_dtype
            state = node.emit(FullOp(node.const(np.zeros((), np.float32)), state_shape))
        scale = node.attr("scale")
        scale = 1 / math.sqrt(d_k) if not scale else float(scale)
        scale_c = node.const(np.asarray(scale, np.float32))

        def step(x: SSAValue, t: int, axis: int = 2) -> SSAValue:
            return node.emit(StridedSliceOp(x, [t], [t + 1], axes=[axis]))

        outputs = []
        for t in range(steps):
            k_t, v_t = step(k, t), step(v, t)  # [B, Hkv, 1, d]
            if factor is not None:
                f_t = step(factor, t)
                f_t = node.emit(ReshapeOp(f_t, [batch, kv_heads, f_t.type.get_shape()[3], 1]))  # type: ignore[attr-defined]
                state = node.emit(MultiplyOp(state, f_t))
            if beta is not None:
                retrieved = node.emit(MatmulOp(k_t, state))  # [B, Hkv, 1, d_v]
                v_t = node.emit(MultiplyOp(step(beta, t), node.emit(SubtractOp(v_t, retrieved))))
            column = node.emit(ReshapeOp(k_t, [batch, kv_heads, d_k, 1]))
            state = node.emit(AddOp(state, node.emit(MultiplyOp(column, v_t))))
            q_t = node.emit(ReshapeOp(step(q, t), [batch, kv_heads, group, d_k]))
            o_t = node.emit(MultiplyOp(node.emit(MatmulOp(q_t, state)), scale_c))
            outputs.append(node.emit(ReshapeOp(o_t, [batch, 1, q_heads * d_v])))
        y = outputs[0] if steps == 1 else node.emit(ConcatenateOp(outputs, 1))
        if out_dtype != np.float32:
            y = node.emit(CastOp(y, str(out_dtype)))
        if state_dtype != np.float32:
            state = node.emit(CastOp(state, str(state_dtype)))
        return [y, state]


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"LinearAttention": LinearAttention}
