"""NumPy semantics of the ``qnn`` ops, keyed by op name (pure NumPy).

Rounding is ONNX's: halves to even (``np.rint``), then saturation to the
output type. Float arithmetic is ``float32`` where onnxruntime's is, so the
references reproduce ONNX's reference and onnxruntime bit for bit:
``quantize`` divides by the scale (``QuantizeLinear``), ``requantize`` with
``compute_dtype="float32"`` multiplies the centred integers by ``float32(
scale_in / scale_out)`` (MLAS's requantization), ``add``/``mul``/
``avg_pool2d`` compute their reals in ``float32`` and quantize them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from ml_dtypes import iinfo

F32 = np.float32


def along(param: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A per-tensor or per-axis parameter shaped to broadcast against a
    tensor of ``rank`` along ``axis`` (a parameter of that rank, block-wise
    expanded, as it is)."""
    param = np.asarray(param)
    if param.ndim == rank:
        return param
    if param.size == 1:
        return param.reshape(())
    shape = [1] * rank
    shape[axis % rank] = param.size
    return param.reshape(shape)


def blocks(param: np.ndarray, axis: int, block_size: int, size: int) -> np.ndarray:
    """Block-wise parameters repeated ``block_size`` times along ``axis``,
    cut to the data's ``size`` there."""
    repeated = np.repeat(np.asarray(param), block_size, axis=axis)
    return np.take(repeated, np.arange(size), axis=axis)


def saturate(values: np.ndarray, dtype: str | np.dtype) -> np.ndarray:
    """``values`` (already rounded) clipped to ``dtype``'s range and cast."""
    info = iinfo(dtype)  # ml_dtypes': int4 and int2 too
    return np.clip(values, info.min, info.max).astype(dtype)


def quantize(
    data: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    axis: int = 1,
    out_dtype: str = "int8",
    block_size: int = 0,
) -> np.ndarray:
    """ONNX ``QuantizeLinear``: ``saturate(round(x / scale) + zero_point)``."""
    rank = data.ndim
    if block_size:
        size = data.shape[axis]
        scale, zero_point = (blocks(p, axis, block_size, size) for p in (scale, zero_point))
    scaled = np.rint(data.astype(F32) / along(scale, axis, rank).astype(F32))
    return saturate(scaled.astype(np.float64) + along(zero_point, axis, rank), out_dtype)


def dequantize(
    data: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    axis: int = 1,
    block_size: int = 0,
) -> np.ndarray:
    """ONNX ``DequantizeLinear``: ``(x - zero_point) * scale`` in ``float32``."""
    rank = data.ndim
    if block_size:
        size = data.shape[axis]
        scale, zero_point = (blocks(p, axis, block_size, size) for p in (scale, zero_point))
    centred = data.astype(np.int64) - along(zero_point, axis, rank).astype(np.int64)
    return centred.astype(F32) * along(scale, axis, rank).astype(F32)


def fixed_point(multiplier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TVM's ``GetFixedPointMultiplierShift``: ``m = q * 2**s`` with ``q`` a
    Q31 integer in ``[2**30, 2**31)`` (``int64``) and ``s`` the exponent."""
    m = np.asarray(multiplier, np.float64)
    mantissa, exponent = np.frexp(m)
    q = np.round(mantissa * (1 << 31)).astype(np.int64)
    overflow = q == (1 << 31)
    q = np.where(overflow, q // 2, q)
    exponent = np.where(overflow, exponent + 1, exponent)
    return q, exponent.astype(np.int64)


def requantize(
    data: np.ndarray,
    input_scale: np.ndarray,
    input_zero_point: np.ndarray,
    output_scale: np.ndarray,
    output_zero_point: np.ndarray,
    axis: int = 1,
    out_dtype: str = "int8",
    compute_dtype: str = "float32",
) -> np.ndarray:
    """``saturate(round((x - zp_in) * s_in / s_out) + zp_out)``; see
    :class:`xtvm.dialects.qnn.RequantizeOp` for the two ``compute_dtype``s."""
    rank = data.ndim
    centred = data.astype(np.int64) - along(input_zero_point, axis, rank).astype(np.int64)
    s_in = along(input_scale, axis, rank).astype(F32)
    s_out = along(output_scale, axis, rank).astype(F32)
    if compute_dtype == "float32":
        scaled = np.rint(centred.astype(F32) * (s_in / s_out)).astype(np.int64)
    else:
        q, shift = fixed_point(s_in.astype(np.float64) / s_out.astype(np.float64))
        total = 31 - shift
        scaled = (centred * q + (np.int64(1) << (total - 1))) >> total
    return saturate(scaled + along(output_zero_point, axis, rank).astype(np.int64), out_dtype)


def conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    data_zero_point: np.ndarray,
    weight_zero_point: np.ndarray,
    data_scale: np.ndarray,
    weight_scale: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    out_dtype: str = "int32",
) -> np.ndarray:
    """``conv(x - zp_x, w - zp_w)`` in ``int32`` (padding holds real zeros)."""
    from xtvm.reference.relay import conv as relay_conv  # here: relay's table imports this one

    x = data.astype(np.int32) - along(data_zero_point, 1, 4).astype(np.int32)
    w = weight.astype(np.int32) - along(weight_zero_point, 0, 4).astype(np.int32)
    return relay_conv.conv(x, w, strides, padding, dilation, groups, out_dtype)


def dense(
    data: np.ndarray,
    weight: np.ndarray,
    data_zero_point: np.ndarray,
    weight_zero_point: np.ndarray,
    data_scale: np.ndarray,
    weight_scale: np.ndarray,
    out_dtype: str = "int32",
) -> np.ndarray:
    """``(x - zp_x) · (w - zp_w)ᵀ`` in ``int32``."""
    x = data.astype(np.int64) - np.asarray(data_zero_point).reshape(()).astype(np.int64)
    w = weight.astype(np.int64) - along(weight_zero_point, 0, 2).astype(np.int64)
    return (x @ w.T).astype(out_dtype)


def matmul(a, b, a_zero_point, b_zero_point, a_scale, b_scale) -> np.ndarray:
    """``(a - a_zp) @ (b - b_zp)`` in ``int32``."""
    x = a.astype(np.int64) - np.asarray(a_zero_point).astype(np.int64).reshape(())
    w = b.astype(np.int64) - along(b_zero_point, -1, b.ndim).astype(np.int64)
    return np.matmul(x, w).astype(np.int32)


def _real(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    centred = q.astype(np.int32) - np.asarray(zero_point).astype(np.int32).reshape(())
    return centred.astype(F32) * np.asarray(scale, F32).reshape(())


def _quantize_real(real: np.ndarray, scale, zero_point, dtype) -> np.ndarray:
    scaled = np.rint(real / np.asarray(scale, F32).reshape(())).astype(np.int64)
    return saturate(scaled + np.asarray(zero_point).astype(np.int64).reshape(()), dtype)


def add(lhs, rhs, ls, lz, rs, rz, os, oz) -> np.ndarray:
    """``com.microsoft.QLinearAdd``: ``q(real(lhs) + real(rhs))`` in ``float32``."""
    return _quantize_real(_real(lhs, ls, lz) + _real(rhs, rs, rz), os, oz, lhs.dtype)


def mul(lhs, rhs, ls, lz, rs, rz, os, oz) -> np.ndarray:
    """``com.microsoft.QLinearMul``: the integer product of the centred
    values, scaled by ``float32(ls * rs / os)``."""
    centred = (lhs.astype(np.int64) - np.asarray(lz).astype(np.int64).reshape(())) * (
        rhs.astype(np.int64) - np.asarray(rz).astype(np.int64).reshape(())
    )
    ratio = np.asarray(ls, F32).reshape(()) * np.asarray(rs, F32).reshape(()) / np.asarray(
        os, F32
    ).reshape(())
    scaled = np.rint(centred.astype(F32) * ratio).astype(np.int64)
    return saturate(scaled + np.asarray(oz).astype(np.int64).reshape(()), lhs.dtype)


def concatenate(args: Sequence[np.ndarray], axis: int = 0) -> np.ndarray:
    """Each input requantized (``float32``) to the output's parameters, then
    concatenated."""
    n = (len(args) - 2) // 3
    inputs, scales, zps, (os, oz) = args[:n], args[n : 2 * n], args[2 * n : 3 * n], args[-2:]
    parts = [requantize(x, s, z, os, oz, 0, str(x.dtype)) for x, s, z in zip(inputs, scales, zps)]
    return np.concatenate(parts, axis=axis)


def avg_pool2d(data, in_scale, in_zp, out_scale, out_zp, **pool: Any) -> np.ndarray:
    """The mean of each window of ``data - zp_in`` (``float32``), scaled by
    ``s_in / s_out``, rounded, plus ``zp_out``, saturated."""
    from xtvm.reference.relay import pool as relay_pool  # here: relay's table imports this one

    centred = (data.astype(np.int32) - np.asarray(in_zp).astype(np.int32).reshape(())).astype(F32)
    mean = relay_pool.REFERENCES["relay.nn.avg_pool2d"]([centred], pool)
    ratio = np.asarray(in_scale, F32).reshape(()) / np.asarray(out_scale, F32).reshape(())
    scaled = np.rint(mean.astype(F32) * ratio).astype(np.int64)
    return saturate(scaled + np.asarray(out_zp).astype(np.int64).reshape(()), data.dtype)


Reference = Callable[[Sequence[np.ndarray], Mapping[str, Any]], np.ndarray]

REFERENCES: dict[str, Reference] = {
    "qnn.quantize": lambda x, a: quantize(*x, a["axis"], a["out_dtype"], a["block_size"]),
    "qnn.dequantize": lambda x, a: dequantize(*x, a["axis"], a["block_size"]),
    "qnn.requantize": lambda x, a: requantize(
        *x, a["axis"], a["out_dtype"], a["compute_dtype"]
    ),
    "qnn.conv2d": lambda x, a: conv2d(
        *x, a["strides"], a["padding"], a["dilation"], a["groups"], a["out_dtype"]
    ),
    "qnn.dense": lambda x, a: dense(*x, a["out_dtype"]),
    "qnn.matmul": lambda x, a: matmul(*x),
    "qnn.add": lambda x, a: add(*x),
    "qnn.mul": lambda x, a: mul(*x),
    "qnn.concatenate": lambda x, a: concatenate(x, a["axis"]),
    "qnn.avg_pool2d": lambda x, a: avg_pool2d(*x, **a),
}
