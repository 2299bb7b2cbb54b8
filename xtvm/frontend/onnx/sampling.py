"""Converters of ONNX's random ops — ``RandomUniform[Like]``,
``RandomNormal[Like]``, ``Bernoulli``, ``Multinomial`` — and of training
``Dropout``'s mask, all built on one counter-based generator written in
relay ops.

The generator is SplitMix64 (Steele, Lea, Flood, 2014) as a function of
position: element ``i`` (row-major) of a stream with key ``k`` is
``mix(k + (i + 1) * 0x9E3779B97F4A7C15)`` with ``mix`` SplitMix64's
xor-shift-multiply finalizer, all in ``uint64`` (``relay.arange``,
``relay.multiply``, ``relay.right_shift``, ``relay.bitwise_xor``, which wrap
as C does); its top 53 bits scaled by ``2**-53`` are a float64 uniform in
``[0, 1)``. Being a pure function of position, the stream needs no state,
and ops on it vectorize and parallelize as any elementwise op. With static
shapes the stream has no run-time operand, so ``relay-fold-constant``
computes it at compile time with the same integer arithmetic (bit-exact
with the kernels); what it feeds (``u < p`` of a run-time ``p``, the
dropout of a run-time ``x``) runs in compiled code.

Seeding: the key is the node's ``seed`` attribute (a float, taken by its
bits), mixed once more; without ``seed`` it comes from the node's first
output name, so two unseeded nodes draw different streams, and each compiled
model draws the same values on every run (xtvm keeps no generator state
between runs). The values are not NumPy's or onnxruntime's: the ONNX spec
leaves them to the implementation even for a given seed, so the node tests
of these ops are judged by shape, dtype and what values are possible (see
``conformance``), and the pytest tests check the distributions.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    ArangeOp,
    BitwiseXorOp,
    CastOp,
    ClipOp,
    CosOp,
    CumsumOp,
    ExpandDimsOp,
    GreaterEqualOp,
    LessOp,
    LogOp,
    MultiplyOp,
    ReshapeOp,
    RightShiftOp,
    SoftmaxOp,
    SqrtOp,
    SubtractOp,
    SumOp,
    WhereOp,
)
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK64 = (1 << 64) - 1


def _mix(z: int) -> int:
    """SplitMix64's finalizer on a Python int (for keys at compile time)."""
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def stream_key(node: OnnxNode, stream: int = 0) -> int:
    """The key of the node's ``stream``-th uniform stream (module docstring)."""
    seed = node.attr("seed")
    if seed is not None:
        base = int.from_bytes(np.float64(seed).tobytes(), "little")
    else:
        digest = hashlib.sha256(node.proto.output[0].encode()).digest()
        base = int.from_bytes(digest[:8], "little")
    return _mix((base + stream * _GOLDEN) & _MASK64)


def uniform(node: OnnxNode, shape: tuple[int, ...], stream: int = 0) -> SSAValue:
    """A float64 tensor of ``shape`` holding uniform draws in ``[0, 1)``
    from the node's ``stream``-th stream."""
    count = math.prod(shape)

    def u64(value: int) -> SSAValue:
        return node.const(np.array(value, np.uint64))

    def xorshift(z: SSAValue, bits: int) -> SSAValue:
        return node.emit(BitwiseXorOp(z, node.emit(RightShiftOp(z, u64(bits)))))

    index = node.emit(ArangeOp(1, count + 1, 1, "uint64"))
    z = node.emit(AddOp(u64(stream_key(node, stream)), node.emit(MultiplyOp(index, u64(_GOLDEN)))))
    z = node.emit(MultiplyOp(xorshift(z, 30), u64(_MIX1)))
    z = node.emit(MultiplyOp(xorshift(z, 27), u64(_MIX2)))
    z = xorshift(z, 31)
    top = node.emit(CastOp(node.emit(RightShiftOp(z, u64(11))), "float64"))
    u = node.emit(MultiplyOp(top, node.const(np.array(2.0**-53))))
    return node.emit(ReshapeOp(u, list(shape)))


def normal(node: OnnxNode, shape: tuple[int, ...]) -> SSAValue:
    """Standard normal float64 draws of ``shape`` by Box–Muller on two
    streams: ``sqrt(-2 log(1 - u1)) * cos(2 pi u2)``."""
    u1, u2 = uniform(node, shape, 0), uniform(node, shape, 1)
    one = node.const(np.array(1.0))
    radius = node.emit(LogOp(node.emit(SubtractOp(one, u1))))
    radius = node.emit(SqrtOp(node.emit(MultiplyOp(radius, node.const(np.array(-2.0))))))
    angle = node.emit(CosOp(node.emit(MultiplyOp(u2, node.const(np.array(2 * math.pi))))))
    return node.emit(MultiplyOp(radius, angle))


def _dtype(value: SSAValue) -> np.dtype:
    ty = value.type
    assert isinstance(ty, TensorType)
    return numpy_dtype(ty.get_element_type())


def _attr_dtype(node: OnnxNode, default: np.dtype) -> np.dtype:
    """The ``dtype`` attribute (an ONNX element type) as a NumPy dtype."""
    code = node.attr("dtype")
    if code is None:
        return np.dtype(default)
    return np.dtype(dtype_from_onnx(code, f"{node.label}: attribute 'dtype'"))


def _scaled(
    node: OnnxNode, draws: SSAValue, scale: float, offset: float, dtype: np.dtype
) -> SSAValue:
    """``offset + scale * draws`` (float64) cast to ``dtype``."""
    y = node.emit(MultiplyOp(draws, node.const(np.array(scale))))
    y = node.emit(AddOp(y, node.const(np.array(offset))))
    return node.emit(CastOp(y, str(dtype)))


class RandomUniform(OnnxOpConverter):
    """``RandomUniform``: ``low + (high - low) * u`` of ``shape``, ``dtype``
    (default float32)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        low, high = float(node.attr("low", 0.0)), float(node.attr("high", 1.0))
        shape = tuple(int(d) for d in node.attr("shape", []))
        draws = uniform(node, shape)
        return _scaled(node, draws, high - low, low, _attr_dtype(node, np.dtype("float32")))


class RandomUniformLike(OnnxOpConverter):
    """``RandomUniformLike(input)``: as ``RandomUniform`` with the input's
    shape, and its type unless ``dtype`` is given."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        low, high = float(node.attr("low", 0.0)), float(node.attr("high", 1.0))
        draws = uniform(node, node.input_shape(0))
        return _scaled(node, draws, high - low, low, _attr_dtype(node, _dtype(node.input(0))))


class RandomNormal(OnnxOpConverter):
    """``RandomNormal``: ``mean + scale * n`` of ``shape``, ``dtype``
    (default float32)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        mean, scale = float(node.attr("mean", 0.0)), float(node.attr("scale", 1.0))
        shape = tuple(int(d) for d in node.attr("shape", []))
        return _scaled(
            node, normal(node, shape), scale, mean, _attr_dtype(node, np.dtype("float32"))
        )


class RandomNormalLike(OnnxOpConverter):
    """``RandomNormalLike(input)``: as ``RandomNormal`` with the input's
    shape, and its type unless ``dtype`` is given."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        mean, scale = float(node.attr("mean", 0.0)), float(node.attr("scale", 1.0))
        draws = normal(node, node.input_shape(0))
        return _scaled(node, draws, scale, mean, _attr_dtype(node, _dtype(node.input(0))))


class Bernoulli(OnnxOpConverter):
    """``Bernoulli(p)``: 1 where a uniform draw is below ``p``, else 0, in
    ``dtype`` (default: p's type)."""

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> SSAValue:
        p = node.input(0)
        wide = node.emit(CastOp(p, "float64"))
        hit = node.emit(LessOp(uniform(node, node.input_shape(0)), wide))
        return node.emit(CastOp(hit, str(_attr_dtype(node, _dtype(p)))))


class Multinomial(OnnxOpConverter):
    """``Multinomial(input)``: input ``[B, C]`` unnormalized log-probabilities
    → ``[B, sample_size]`` class indices of ``dtype`` (int32 by default):
    each draw ``u`` picks the number of classes whose cumulative
    probability (``cumsum(softmax(input))``) is ``<= u``, at most ``C - 1``."""

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        shape = node.input_shape(0)
        if len(shape) != 2:
            raise node.error(f"expected input of shape [batch, classes], got {list(shape)}")
        batch, classes = shape
        samples = int(node.attr("sample_size", 1))
        dtype = _attr_dtype(node, np.dtype("int32"))
        if dtype not in (np.int32, np.int64):
            raise node.unsupported_attr("dtype", "expected int32 or int64")
        probs = node.emit(SoftmaxOp(node.emit(CastOp(node.input(0), "float64")), 1))
        cdf = node.emit(ExpandDimsOp(node.emit(CumsumOp(probs, 1)), 1))  # [B, 1, C]
        draws = node.emit(ExpandDimsOp(uniform(node, (batch, samples)), 2))  # [B, S, 1]
        passed = node.emit(CastOp(node.emit(GreaterEqualOp(draws, cdf)), "float64"))
        index = node.emit(ClipOp(node.emit(SumOp(passed, [2])), 0.0, float(classes - 1)))
        return node.emit(CastOp(index, str(dtype)))


def dropout_training(node: OnnxNode, ratio: float) -> list[SSAValue]:
    """Training ``Dropout`` of input 0: ``mask = u >= ratio`` (bool) and
    ``output = mask ? x / (1 - ratio) : 0``."""
    x = node.input(0)
    dtype = _dtype(x)
    if not 0.0 <= ratio <= 1.0:
        raise node.error(f"ratio must lie in [0, 1], got {ratio}")
    mask = node.emit(
        GreaterEqualOp(uniform(node, node.input_shape(0)), node.const(np.array(ratio)))
    )
    scale = 0.0 if ratio == 1.0 else 1.0 / (1.0 - ratio)
    scaled = node.emit(MultiplyOp(x, node.const(np.array(scale, dtype))))
    output = node.emit(WhereOp(mask, scaled, node.const(np.array(0, dtype))))
    return [output, mask]


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "RandomUniform": RandomUniform,
    "RandomUniformLike": RandomUniformLike,
    "RandomNormal": RandomNormal,
    "RandomNormalLike": RandomNormalLike,
    "Bernoulli": Bernoulli,
    "Multinomial": Multinomial,
}
