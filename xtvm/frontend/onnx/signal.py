"""Converters for the signal-processing ops: the window functions
``HannWindow``, ``HammingWindow`` and ``BlackmanWindow`` (a sum of cosines
of ``relay.arange``), ``MelWeightMatrix`` (a constant), and ``DFT`` and
``STFT`` (matrix products with constant DFT matrices: exact transforms,
O(n^2) per signal rather than an FFT's O(n log n)).

Each takes its sizes as inputs needed at compile time (``size``;
``num_mel_bins``, ``dft_length``, ...), so the backend specializes on them
when they are graph inputs. A window is computed by compiled code in
float64 and cast to ``output_datatype`` (default float32), as onnx's
reference computes it in the output type's precision or better.
"""

from __future__ import annotations

import math

import numpy as np
from onnx import TensorProto
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    ArangeOp,
    CastOp,
    ConcatenateOp,
    CosOp,
    MatmulOp,
    MultiplyOp,
    ReshapeOp,
    StridedSliceOp,
    SubtractOp,
    TakeOp,
    TransposeOp,
)
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


def _output_dtype(node: OnnxNode) -> str:
    return dtype_from_onnx(
        node.attr("output_datatype", TensorProto.FLOAT), f"{node.label}: output_datatype"
    )


class _CosineWindow(OnnxOpConverter):
    """``w[n] = sum_k a_k cos(2 pi k n / N)`` for ``n`` in ``[0, size)``,
    ``N = size`` when ``periodic`` (default) and ``size - 1`` otherwise."""

    COEFFICIENTS: tuple[float, ...] = ()
    """``a_0, a_1, ...``: the constant term, then the factor of each cosine."""

    @classmethod
    def _impl_v17(cls, node: OnnxNode) -> SSAValue:
        size = int(node.constant_scalar(0))
        if size < 1:
            raise node.error(f"{node.input_label(0)} = {size} must be >= 1")
        periodic = node.attr("periodic", 1)
        if periodic not in (0, 1):
            raise node.unsupported_attr("periodic", "expected 0 or 1", 1)
        dtype = _output_dtype(node)
        length = size if periodic else size - 1
        # size 1 and not periodic: N = 0; onnx divides by 0 (nan), torch gives 1.
        step = 2 * math.pi / length if length else math.nan
        n = node.emit(ArangeOp(0.0, float(size), 1.0, "float64"))
        window = node.const(np.array(cls.COEFFICIENTS[0], np.float64))
        for k, a in enumerate(cls.COEFFICIENTS[1:], start=1):
            angle = node.emit(MultiplyOp(n, node.const(np.array(k * step, np.float64))))
            term = node.emit(MultiplyOp(node.emit(CosOp(angle)), node.const(np.array(a))))
            window = node.emit(AddOp(window, term))
        return node.emit(CastOp(window, dtype))


class HannWindow(_CosineWindow):
    """``0.5 - 0.5 cos(2 pi n / N)``."""

    COEFFICIENTS = (0.5, -0.5)


class HammingWindow(_CosineWindow):
    """``25/46 - 21/46 cos(2 pi n / N)`` (ONNX's exact alpha, not 0.54)."""

    COEFFICIENTS = (25.0 / 46.0, -21.0 / 46.0)


class BlackmanWindow(_CosineWindow):
    """``0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)``."""

    COEFFICIENTS = (0.42, -0.5, 0.08)


def mel_weight_matrix(
    num_mel_bins: int,
    dft_length: int,
    sample_rate: float,
    lower_edge_hertz: float,
    upper_edge_hertz: float,
) -> np.ndarray:
    """The ``[dft_length // 2 + 1, num_mel_bins]`` float64 matrix of ONNX's
    ``MelWeightMatrix``: band ``i`` rises linearly from spectrogram bin
    ``f[i]`` to 1 at ``f[i + 1]`` and falls to 0 at ``f[i + 2]``, where
    ``f`` are ``num_mel_bins + 2`` points evenly spaced on the mel scale
    (``2595 log10(1 + hz / 700)``) mapped back to bins (floored)."""
    bins = dft_length // 2 + 1
    low_mel = 2595 * np.log1p(lower_edge_hertz / 700) / np.log(10)
    high_mel = 2595 * np.log1p(upper_edge_hertz / 700) / np.log(10)
    points = np.arange(num_mel_bins + 2)
    mels = points * ((high_mel - low_mel) / (num_mel_bins + 2)) + low_mel
    hertz = 700 * np.expm1(mels / 2595 * np.log(10))
    edges = (((dft_length + 1) * hertz) // sample_rate).astype(np.int64)
    if edges.min() < 0 or edges[:-1].max() >= bins or edges[-1] > bins:
        raise ValueError(
            f"the band edges fall outside the {bins} spectrogram bins "
            f"(bins {int(edges.min())}..{int(edges.max())}): check the edge frequencies "
            "against sample_rate"
        )
    out = np.zeros((bins, num_mel_bins))
    for i in range(num_mel_bins):
        low, center, high = (int(e) for e in edges[i : i + 3])
        if center == low:
            out[center, i] = 1
        else:
            j = np.arange(low, center + 1)
            out[j, i] = (j - low) / (center - low)
        if high > center:
            j = np.arange(center, high)
            out[j, i] = (high - j) / (high - center)
    return out


class MelWeightMatrix(OnnxOpConverter):
    """``MelWeightMatrix`` → a constant: every input is a scalar needed at
    compile time, and the matrix depends on nothing else (a generator,
    like a shape computation), so it is built at import time and compiled
    into the module."""

    @classmethod
    def _impl_v17(cls, node: OnnxNode) -> np.ndarray:
        num_mel_bins, dft_length = (int(node.constant_scalar(i)) for i in (0, 1))
        sample_rate = float(node.constant_scalar(2))
        lower, upper = (float(node.constant_scalar(i)) for i in (3, 4))
        if num_mel_bins < 1 or dft_length < 1 or sample_rate <= 0:
            raise node.error(
                f"num_mel_bins ({num_mel_bins}), dft_length ({dft_length}) and "
                f"sample_rate ({sample_rate}) must be positive"
            )
        if not 0 <= lower < upper:
            raise node.error(
                f"expected 0 <= lower_edge_hertz < upper_edge_hertz, got {lower} and {upper}"
            )
        try:
            matrix = mel_weight_matrix(num_mel_bins, dft_length, sample_rate, lower, upper)
        except ValueError as e:
            raise node.error(str(e)) from None
        return matrix.astype(_output_dtype(node))


def dft_matrix(n: int, length: int, inverse: bool, onesided: bool) -> np.ndarray:
    """The complex ``[n, k]`` matrix ``M`` with ``X = x @ M`` for a signal
    ``x`` of ``n`` samples (zero-padded or truncated to ``length``):
    ``exp(-2 pi i k t / length)``, the inverse's ``exp(+...) / length``;
    ``onesided`` keeps the first ``length // 2 + 1`` frequencies, and the
    onesided inverse reads them as a Hermitian spectrum (NumPy's
    ``irfft``: a real signal of ``length`` samples, the imaginary parts of
    the DC and Nyquist terms ignored)."""
    rows = np.arange(n)
    if inverse and onesided:
        half = length // 2 + 1
        k = rows[:, None]
        t = np.arange(length)[None, :]
        weight = np.where((k == 0) | (2 * k == length), 1.0, 2.0) * (k < half)
        angle = 2 * np.pi * ((k * t) % length) / length
        real = weight * np.cos(angle) / length
        imag = np.where((k == 0) | (2 * k == length), 0.0, weight * np.sin(angle) / length)
        return real + 1j * imag
    t = rows[:, None]
    count = length // 2 + 1 if onesided else length
    k = np.arange(count)[None, :]
    angle = 2 * np.pi * ((k * t) % length) / length
    sign = 1.0 if inverse else -1.0
    matrix = (np.cos(angle) + 1j * sign * np.sin(angle)) * (t < length)
    return matrix / length if inverse else matrix


def transform_last_axes(
    node: OnnxNode, x: SSAValue, matrix: np.ndarray, real_output: bool
) -> SSAValue:
    """``x`` (``[..., n, 1 or 2]``: real, or real and imaginary parts) times
    the complex ``matrix`` along axis ``-2``: ``[..., k, 2]``, or the real
    part only (``[..., k, 1]``) with ``real_output``. Computed in float64
    and rounded once to the input's type, as onnx's reference (whose FFT
    gives exact zeros that float32 sums would miss by an ulp)."""
    shape = static_shape(x)
    ty = x.type
    assert isinstance(ty, TensorType)
    dtype = str(numpy_dtype(ty.get_element_type()))
    if dtype != "float64":
        x = node.emit(CastOp(x, "float64"))
    parts = []
    for c in range(shape[-1]):
        begin, end = [0] * len(shape), list(shape)
        begin[-1], end[-1] = c, c + 1
        part = node.emit(StridedSliceOp(x, begin, end))
        parts.append(node.emit(ReshapeOp(part, [int(np.prod(shape[:-2])), shape[-2]])))

    def product(part: SSAValue, m: np.ndarray) -> SSAValue:
        return node.emit(MatmulOp(part, node.const(m)))

    real = product(parts[0], matrix.real)
    imag = product(parts[0], matrix.imag)
    if len(parts) == 2:  # (a + bi)(c + di) = (ac - bd) + (ad + bc)i
        real = node.emit(SubtractOp(real, product(parts[1], matrix.imag)))
        imag = node.emit(AddOp(imag, product(parts[1], matrix.real)))
    outputs = [real] if real_output else [real, imag]
    columns = [node.emit(ReshapeOp(v, [*shape[:-2], matrix.shape[1], 1])) for v in outputs]
    y = columns[0] if len(columns) == 1 else node.emit(ConcatenateOp(columns, -1))
    return y if dtype == "float64" else node.emit(CastOp(y, dtype))


class DFT(OnnxOpConverter):
    """``DFT(input, dft_length?, axis?)``: the discrete Fourier transform
    along ``axis`` (an attribute before opset 20, default 1; an input
    after, default -2) of a real (``[..., 1]``) or complex (``[..., 2]``)
    signal, zero-padded or truncated to ``dft_length``; ``inverse`` and
    ``onesided`` as ONNX (a onesided inverse is NumPy's ``irfft``)."""

    @classmethod
    def _dft(cls, node: OnnxNode, axis: int) -> SSAValue:
        x = node.input(0)
        shape = node.input_shape(0)
        rank = len(shape)
        if rank < 2 or shape[-1] not in (1, 2):
            raise node.error(
                f"the input's last axis must hold 1 (real) or 2 (complex) values, got {list(shape)}"
            )
        if not -rank <= axis < rank - 1 or axis == -1:
            raise node.error(f"axis {axis} must be a signal axis of the rank-{rank} input")
        axis %= rank
        inverse, onesided = bool(node.attr("inverse", 0)), bool(node.attr("onesided", 0))
        n = shape[axis]
        if node.has_input(1):
            length = int(node.constant_scalar(1))
        else:
            length = 2 * (n - 1) if inverse and onesided else n
        if length < 1:
            raise node.error(f"dft_length {length} must be >= 1")
        if onesided and not inverse and shape[-1] != 1:
            raise node.error("a onesided forward DFT takes a real signal ([..., 1])")
        perm = [d for d in range(rank - 1) if d != axis] + [axis, rank - 1]
        moved = node.emit(TransposeOp(x, perm)) if perm != list(range(rank)) else x
        matrix = dft_matrix(n, length, inverse, onesided)
        y = transform_last_axes(node, moved, matrix, real_output=inverse and onesided)
        if perm == list(range(rank)):
            return y
        return node.emit(TransposeOp(y, [perm.index(d) for d in range(rank)]))

    @classmethod
    def _impl_v17(cls, node: OnnxNode) -> SSAValue:
        return cls._dft(node, int(node.attr("axis", 1)))

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> SSAValue:
        axis = int(node.constant_scalar(2)) if node.has_input(2) else -2
        return cls._dft(node, axis)


class STFT(OnnxOpConverter):
    """``STFT(signal [B, L, 1|2], frame_step, window?, frame_length?)``: the
    DFT of each frame ``signal[:, f * step : f * step + frame_length]``
    times ``window``, ``[B, frames, k, 2]`` with ``frames = (L -
    frame_length) // step + 1``; ``onesided`` (default 1) keeps ``k =
    frame_length // 2 + 1`` frequencies. Frames are a ``relay.take`` of
    constant positions."""

    @classmethod
    def _impl_v17(cls, node: OnnxNode) -> SSAValue:
        signal = node.input(0)
        shape = node.input_shape(0)
        if len(shape) != 3 or shape[-1] not in (1, 2):
            raise node.error(f"signal must be [batch, length, 1 or 2], got {list(shape)}")
        step = int(node.constant_scalar(1))
        window = node.input(2) if node.has_input(2) else None
        if node.has_input(3):
            frame_length = int(node.constant_scalar(3))
        elif window is not None:
            frame_length = node.input_shape(2)[0]
        else:
            raise node.error("either window or frame_length must be given")
        if window is not None and node.input_shape(2) != (frame_length,):
            raise node.error(
                f"window of shape {list(node.input_shape(2))} must be [{frame_length}]"
            )
        if step < 1 or not 1 <= frame_length <= shape[1]:
            raise node.error(
                f"frame_step {step} must be >= 1 and frame_length {frame_length} in [1, {shape[1]}]"
            )
        onesided = bool(node.attr("onesided", 1))
        if onesided and shape[-1] != 1:
            raise node.error("a onesided STFT takes a real signal ([batch, length, 1])")
        frames = (shape[1] - frame_length) // step + 1
        positions = np.arange(frames)[:, None] * step + np.arange(frame_length)[None, :]
        framed = node.emit(TakeOp(signal, node.const(positions.astype(np.int64)), axis=1))
        if window is not None:
            framed = node.emit(MultiplyOp(framed, node.emit(ReshapeOp(window, [frame_length, 1]))))
        matrix = dft_matrix(frame_length, frame_length, inverse=False, onesided=onesided)
        return transform_last_axes(node, framed, matrix, real_output=False)


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "DFT": DFT,
    "STFT": STFT,
    "HannWindow": HannWindow,
    "HammingWindow": HammingWindow,
    "BlackmanWindow": BlackmanWindow,
    "MelWeightMatrix": MelWeightMatrix,
}
