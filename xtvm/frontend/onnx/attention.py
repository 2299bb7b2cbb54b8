"""Converter for ``Attention`` (opsets 23 to 25), decomposed into existing
relay ops as ONNX's function body: heads split from 3-d inputs, the KV
cache concatenated, grouped-query heads repeated (``relay.broadcast_to``),
``softmax(Q K^T * scale + bias) V`` with the boolean or additive mask,
``is_causal`` (a constant bias, or one built from ``nonpad_kv_seqlen``),
the padding mask of ``nonpad_kv_seqlen``, ``softcap`` and
``softmax_precision``; rows whose bias masks every key give 0 (not NaN).
Opset 25's sliding windows (``left_window_size``, ``right_window_size``)
are biases of the same kind as ``is_causal``."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    ArangeOp,
    BroadcastToOp,
    CastOp,
    ConcatenateOp,
    DivideOp,
    EqualOp,
    LessEqualOp,
    LessOp,
    MatmulOp,
    MaxOp,
    MultiplyOp,
    PadOp,
    ReshapeOp,
    SoftmaxOp,
    SubtractOp,
    TanhOp,
    TransposeOp,
    WhereOp,
)
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


def repeat_heads(node: OnnxNode, x: SSAValue, reps: int) -> SSAValue:
    """``[b, h, s, d]`` → ``[b, h * reps, s, d]``, each head ``reps`` times
    in a row (``np.repeat`` on axis 1): the KV heads of grouped-query
    attention, one per query head."""
    b, h, s, d = static_shape(x)
    x = node.emit(ReshapeOp(x, [b, h, 1, s, d]))
    x = node.emit(BroadcastToOp(x, [b, h, reps, s, d]))
    return node.emit(ReshapeOp(x, [b, h * reps, s, d]))


class Attention(OnnxOpConverter):
    """``Attention(Q, K, V, attn_mask?, past_key?, past_value?,
    nonpad_kv_seqlen?)`` → ``Y, present_key?, present_value?,
    qk_matmul_output?`` (see the module docstring)."""

    @classmethod
    def _impl_v23(cls, node: OnnxNode) -> list[SSAValue]:
        left = int(node.attr("left_window_size", -1))
        right = int(node.attr("right_window_size", -1))
        if left < -1 or right < -1:
            raise node.error(f"window sizes must be -1 or >= 0, got {left} and {right}")
        q, k, v = node.input(0), node.input(1), node.input(2)
        qty = q.type
        assert isinstance(qty, TensorType)
        dtype = numpy_dtype(qty.get_element_type())

        def const(value: float | np.ndarray, dt: np.dtype = dtype) -> SSAValue:
            return node.const(np.asarray(value, dt))

        rank = len(node.input_shape(0))
        if rank == 3:
            qh, kvh = node.attr("q_num_heads"), node.attr("kv_num_heads")
            if not qh or not kvh:
                raise node.error("3-d inputs need the q_num_heads and kv_num_heads attributes")

            def heads(x: SSAValue, count: int) -> SSAValue:
                b, s, hidden = static_shape(x)
                x = node.emit(ReshapeOp(x, [b, s, count, hidden // count]))
                return node.emit(TransposeOp(x, [0, 2, 1, 3]))

            q, k, v = heads(q, qh), heads(k, kvh), heads(v, kvh)
        elif rank != 4:
            raise node.error(f"Q must be 3-d or 4-d, got rank {rank}")
        if node.has_input(4) != node.has_input(5):
            raise node.error("past_key and past_value must be given together")
        past = 0
        if node.has_input(4):
            past = node.input_shape(4)[2]
            k = node.emit(ConcatenateOp([node.input(4), k], 2))
            v = node.emit(ConcatenateOp([node.input(5), v], 2))
        present_k, present_v = k, v
        batch, q_heads, q_len, head_size = static_shape(q)
        kv_heads, kv_len = static_shape(k)[1], static_shape(k)[2]
        scale = node.attr("scale")
        scale = 1 / math.sqrt(head_size) if scale is None else float(scale)
        root = const(math.sqrt(scale))
        q = node.emit(MultiplyOp(q, root))
        k = node.emit(MultiplyOp(k, root))

        neg_inf = const(-np.inf)
        zero = const(0.0)
        bias = None
        if node.has_input(3):
            mask = node.input(3)
            mty = mask.type
            assert isinstance(mty, TensorType)
            if (
                isinstance(mty.get_element_type(), IntegerType)
                and mty.get_element_type().width.data == 1
            ):
                mask = node.emit(WhereOp(mask, zero, neg_inf))
            mshape = static_shape(mask)
            if mshape[-1] < kv_len:
                widths = [0] * (2 * len(mshape))
                widths[-1] = kv_len - mshape[-1]
                mask = node.emit(PadOp(mask, neg_inf, widths))
            bias = mask
        seqlen = None
        if node.has_input(6):
            seqlen = node.emit(ReshapeOp(node.input(6), [batch, 1, 1, 1]))
            seqlen = node.emit(CastOp(seqlen, "int64"))
        cols = node.emit(ArangeOp(0.0, float(kv_len), 1.0, "int64"))
        cols = node.emit(ReshapeOp(cols, [1, 1, 1, kv_len]))
        rows = node.emit(ArangeOp(0.0, float(q_len), 1.0, "int64"))
        rows = node.emit(ReshapeOp(rows, [1, 1, q_len, 1]))
        if seqlen is not None and not past:
            offset = node.emit(SubtractOp(seqlen, const(q_len, np.int64)))
        else:
            offset = const(past, np.int64)
        position = node.emit(AddOp(rows, offset))  # a query's absolute position

        def restrict(allowed: SSAValue) -> None:
            nonlocal bias
            term = node.emit(WhereOp(allowed, zero, neg_inf))
            bias = term if bias is None else node.emit(AddOp(bias, term))

        if node.attr("is_causal", 0):
            restrict(node.emit(LessEqualOp(cols, position)))
        if left >= 0:  # keys at most `left` before the query
            restrict(
                node.emit(LessEqualOp(node.emit(SubtractOp(position, cols)), const(left, np.int64)))
            )
        if right >= 0:  # keys at most `right` after the query
            restrict(
                node.emit(
                    LessEqualOp(node.emit(SubtractOp(cols, position)), const(right, np.int64))
                )
            )
        if seqlen is not None:
            padding = node.emit(WhereOp(node.emit(LessOp(cols, seqlen)), zero, neg_inf))
            bias = padding if bias is None else node.emit(AddOp(bias, padding))

        if q_heads != kv_heads:
            if q_heads % kv_heads:
                raise node.error(f"{q_heads} query heads are not a multiple of {kv_heads} KV heads")
            reps = q_heads // kv_heads
            k, v = repeat_heads(node, k, reps), repeat_heads(node, v, reps)
        qk = node.emit(MatmulOp(q, k, transpose_b=True))
        softcap = float(node.attr("softcap", 0.0))
        if softcap > 0:
            capped = node.emit(TanhOp(node.emit(DivideOp(qk, const(softcap)))))
            qk = node.emit(MultiplyOp(capped, const(softcap)))
        scores = qk if bias is None else node.emit(AddOp(qk, bias))
        mode = int(node.attr("qk_matmul_output_mode", 0))
        qk_output = scores if mode == 2 else qk
        precision = node.attr("softmax_precision")
        if precision is not None:
            scores = node.emit(
                CastOp(scores, dtype_from_onnx(precision, f"{node.label}: softmax_precision"))
            )
        probs = node.emit(SoftmaxOp(scores, axis=-1))
        if bias is not None:
            # A row whose bias masks every key attends to nothing: 0, not NaN.
            row_max = node.emit(MaxOp(bias, [-1], keepdims=True))
            masked = node.emit(EqualOp(row_max, neg_inf))
            pty = probs.type
            assert isinstance(pty, TensorType)
            pzero = node.const(np.zeros((), numpy_dtype(pty.get_element_type())))
            probs = node.emit(WhereOp(masked, pzero, probs))
        if precision is not None:
            probs = node.emit(CastOp(probs, str(dtype)))
        if mode == 3:
            qk_output = probs
        y = node.emit(MatmulOp(probs, v))
        if rank == 3:
            y = node.emit(TransposeOp(y, [0, 2, 1, 3]))
            y = node.emit(ReshapeOp(y, [batch, q_len, q_heads * static_shape(v)[3]]))
        results = [y, present_k, present_v, qk_output]
        return results[: len(node.proto.output)]


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"Attention": Attention}
