"""Row-major (compact) buffer layouts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def compact_strides(shape: Sequence[int]) -> list[int]:
    """Row-major element strides of a shape (`[4, 8]` -> `[8, 1]`, `[]` -> `[]`)."""
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


def row_major_offset(
    indices: Sequence[T],
    shape: Sequence[int],
    scale: Callable[[T, int], T],
    add: Callable[[T, T], T],
    zero: Callable[[], T],
) -> T:
    """The element offset `sum(indices[k] * compact_strides(shape)[k])` of
    `indices` into a row-major buffer of `shape`, built with the caller's
    operations on index values (IR values, or plain ints):

    * `scale(index, stride)` multiplies by a stride; unit strides skip it;
    * `add(total, term)` adds the terms left to right, in index order;
    * `zero()` is the offset of a rank-0 access.

    `tir-flatten-buffer` builds `arith` ops with it, `convert-tir-to-llvm`
    llvm ops.
    """
    total: T | None = None
    for index, stride in zip(indices, compact_strides(shape), strict=True):
        term = index if stride == 1 else scale(index, stride)
        total = term if total is None else add(total, term)
    return zero() if total is None else total
