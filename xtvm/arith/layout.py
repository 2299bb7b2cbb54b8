"""Row-major (compact) buffer layouts."""

from __future__ import annotations

from collections.abc import Sequence


def compact_strides(shape: Sequence[int]) -> list[int]:
    """Row-major element strides of a shape (`[4, 8]` -> `[8, 1]`, `[]` -> `[]`)."""
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides
