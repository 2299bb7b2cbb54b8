"""Converter for ``RotaryEmbedding`` (opset 23), composed of relay ops: the
first ``rotary_embedding_dim`` features of every head are rotated pairwise
by the angles whose cosines and sines the caches hold (picked by
``position_ids`` with ``relay.take``, or given per batch and position);
the pairs are the two halves of those features, or neighbours when
``interleaved``. The rest pass through."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AddOp,
    ConcatenateOp,
    ExpandDimsOp,
    MultiplyOp,
    ReshapeOp,
    StridedSliceOp,
    SubtractOp,
    TakeOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


class RotaryEmbedding(OnnxOpConverter):
    """``RotaryEmbedding(X, cos_cache, sin_cache, position_ids?)`` → ``Y``;
    ``X`` is ``[batch, heads, seq, head_size]``, or ``[batch, seq,
    heads * head_size]`` with ``num_heads``."""

    @classmethod
    def _impl_v23(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        shape = node.input_shape(0)
        if len(shape) == 4:
            batch, _, seq, head_size = shape
            cache_at = [batch, 1, seq]  # cos/sin broadcast over heads (axis 1)
        elif len(shape) == 3:
            heads = int(node.attr("num_heads", 0))
            if heads <= 0 or shape[2] % heads:
                raise node.error(
                    f"a 3-d input needs num_heads dividing its hidden size {shape[2]}, "
                    f"got num_heads = {heads}"
                )
            batch, seq, head_size = shape[0], shape[1], shape[2] // heads
            x = node.emit(ReshapeOp(x, [batch, seq, heads, head_size]))
            cache_at = [batch, seq, 1]  # heads are axis 2
        else:
            raise node.error(f"the input must be 3-d or 4-d, got rank {len(shape)}")
        rot = int(node.attr("rotary_embedding_dim", 0)) or head_size
        if rot % 2 or rot > head_size:
            raise node.error(
                f"rotary_embedding_dim {rot} must be even and at most the head size {head_size}"
            )
        half = rot // 2
        cos, sin = node.input(1), node.input(2)
        if node.has_input(3):
            ids = node.input(3)
            cos, sin = node.emit(TakeOp(cos, ids, axis=0)), node.emit(TakeOp(sin, ids, axis=0))
        for name, cache in (("cos_cache", cos), ("sin_cache", sin)):
            if static_shape(cache) != (batch, seq, half):
                raise node.error(
                    f"{name} gives {list(static_shape(cache))} per batch and position, "
                    f"expected {[batch, seq, half]}"
                )
        cos = node.emit(ReshapeOp(cos, [*cache_at, half]))
        sin = node.emit(ReshapeOp(sin, [*cache_at, half]))

        def features(begin: int, end: int, stride: int = 1) -> SSAValue:
            return node.emit(StridedSliceOp(x, [begin], [end], [stride], axes=[3]))

        interleaved = bool(node.attr("interleaved", 0))
        x1, x2 = (
            (features(0, rot, 2), features(1, rot, 2))
            if interleaved
            else (features(0, half), features(half, rot))
        )
        real = node.emit(
            SubtractOp(node.emit(MultiplyOp(cos, x1)), node.emit(MultiplyOp(sin, x2)))
        )
        imag = node.emit(AddOp(node.emit(MultiplyOp(sin, x1)), node.emit(MultiplyOp(cos, x2))))
        if interleaved:
            pairs = [node.emit(ExpandDimsOp(v, -1)) for v in (real, imag)]
            rotated = node.emit(ConcatenateOp(pairs, -1))
            rotated = node.emit(ReshapeOp(rotated, [*static_shape(rotated)[:3], rot]))
        else:
            rotated = node.emit(ConcatenateOp([real, imag], -1))
        if rot < head_size:
            rotated = node.emit(ConcatenateOp([rotated, features(rot, head_size)], -1))
        return node.emit(ReshapeOp(rotated, list(shape)))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"RotaryEmbedding": RotaryEmbedding}
