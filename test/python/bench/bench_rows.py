"""What the benchmarks' printed rows can be checked against."""

from __future__ import annotations


def _half_unit(ms: float) -> float:
    """Half a unit of the last digit ``xtvm.bench``'s ``_ms`` prints: three
    decimals below 1 ms, one above."""
    return 0.0005 if ms < 1 else 0.05


def printed_ratio_fits(ratio: float, num_ms: float, den_ms: float) -> bool:
    """Whether a printed ratio (two decimals) is the ratio of two times
    as they were before ``_ms`` rounded them for printing, give or take 5%."""
    low = (num_ms - _half_unit(num_ms)) / (den_ms + _half_unit(den_ms))
    high = (num_ms + _half_unit(num_ms)) / (den_ms - _half_unit(den_ms))
    return 0.95 * low - 0.005 <= ratio <= 1.05 * high + 0.005
