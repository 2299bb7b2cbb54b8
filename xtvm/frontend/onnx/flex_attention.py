"""Converter for ``ai.onnx.preview`` ``FlexAttention`` (opset 1), composed
of relay ops as ONNX's reference computes it: ``softmax(score_mod(Q K^T *
scale))`` (``Q`` and ``K`` each scaled by ``sqrt(scale)`` in the input
type), ``prob_mod`` of the probabilities, times ``V``. Scores,
probabilities and the second product are in ``softmax_precision``
(float32 for float16 and float32 inputs, float64 for float64). The
``score_mod`` and ``prob_mod`` graphs (one tensor in, one out) are
converted inline on the scores or probabilities, as an unrolled
``Loop`` body is (:func:`~xtvm.frontend.onnx.control.convert_subgraph`)."""

from __future__ import annotations

import math

import numpy as np
import onnx
from xdsl.ir import SSAValue

from xtvm.dialects.relay import CastOp, MatmulOp, MultiplyOp, SoftmaxOp
from xtvm.frontend.onnx.attention import repeat_heads
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.control import convert_subgraph
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.tensor import element_dtype


def _apply_mod(node: OnnxNode, name: str, value: SSAValue) -> SSAValue:
    """``value`` through the graph attribute ``name`` when the node has it."""
    graph = node.attr(name)
    if graph is None:
        return value
    if not isinstance(graph, onnx.GraphProto) or len(graph.output) != 1:
        raise node.error(f"attribute '{name}' must be a graph with one output")
    scope = convert_subgraph(node, graph, node.scope.block, [value])
    result = scope.output(graph.output[0].name)
    if not isinstance(result, SSAValue):  # a constant: the mod ignores its input
        result = node.const(np.broadcast_to(result, value.type.get_shape()))  # type: ignore[attr-defined]
    if result.type != value.type:
        raise node.error(f"graph '{name}' returns {result.type}, expected {value.type}")
    return result


class FlexAttention(OnnxOpConverter):
    """``FlexAttention(Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S,
    Ev])`` → ``Y [B, Hq, L, Ev]`` (see the module docstring)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        q, k, v = node.input(0), node.input(1), node.input(2)
        shapes = [node.input_shape(i) for i in range(3)]
        if any(len(s) != 4 for s in shapes):
            raise node.error(f"Q, K and V must be 4-d, got shapes {[list(s) for s in shapes]}")
        (_, q_heads, _, size), (_, kv_heads, keys, k_size), (_, v_heads, v_keys, _) = shapes
        if k_size != size or v_heads != kv_heads or v_keys != keys:
            raise node.error(
                f"K {list(shapes[1])} must match Q {list(shapes[0])} in head size "
                f"and V {list(shapes[2])} in heads and keys"
            )
        if q_heads % kv_heads:
            raise node.error(f"{q_heads} query heads are not a multiple of {kv_heads} KV heads")
        if q_heads != kv_heads:
            k = repeat_heads(node, k, q_heads // kv_heads)
            v = repeat_heads(node, v, q_heads // kv_heads)
        dtype = element_dtype(q)
        scale = node.attr("scale")
        scale = 1 / math.sqrt(size) if scale is None else float(scale)
        root = node.const(np.asarray(np.sqrt(np.float32(scale)), dtype))
        scores = node.emit(
            MatmulOp(node.emit(MultiplyOp(q, root)), node.emit(MultiplyOp(k, root)), transpose_b=True)
        )
        precision = node.attr("softmax_precision")
        if precision is not None:
            compute = dtype_from_onnx(precision, f"{node.label}: softmax_precision")
        else:
            compute = "float64" if dtype == np.float64 else "float32"
        if str(dtype) != compute:
            scores = node.emit(CastOp(scores, compute))
        scores = _apply_mod(node, "score_mod", scores)
        probs = _apply_mod(node, "prob_mod", node.emit(SoftmaxOp(scores, axis=-1)))
        if str(element_dtype(v)) != compute:
            v = node.emit(CastOp(v, compute))
        y = node.emit(MatmulOp(probs, v))
        return y if compute == str(element_dtype(node.input(2))) else node.emit(
            CastOp(y, str(element_dtype(node.input(2))))
        )


PREVIEW_CONVERTERS: dict[str, type[OnnxOpConverter]] = {"FlexAttention": FlexAttention}
"""The ``ai.onnx.preview`` domain's converters."""
