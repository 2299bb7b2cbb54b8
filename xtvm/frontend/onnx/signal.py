"""Converters for the signal-processing generators: the window functions
``HannWindow``, ``HammingWindow`` and ``BlackmanWindow`` (a sum of cosines
of ``relay.arange``) and ``MelWeightMatrix`` (a constant).

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
from xdsl.ir import SSAValue

from xtvm.dialects.relay import AddOp, ArangeOp, CastOp, CosOp, MultiplyOp
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


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


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "HannWindow": HannWindow,
    "HammingWindow": HammingWindow,
    "BlackmanWindow": BlackmanWindow,
    "MelWeightMatrix": MelWeightMatrix,
}
