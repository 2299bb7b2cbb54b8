"""NumPy semantics of the reductions (TVM's ``axis``/``keepdims``/``exclude``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def reduced_axes(ndim: int, axis: Sequence[int] | None, exclude: bool) -> tuple[int, ...]:
    """Axes to reduce: all when ``axis`` is None, the complement with ``exclude``."""
    chosen = set(range(ndim)) if axis is None else {a % ndim for a in axis}
    if exclude:
        chosen = set(range(ndim)) - chosen
    return tuple(sorted(chosen))


def _reduce(fn: Callable[..., np.ndarray]):
    def reference(ins: Sequence[np.ndarray], attrs: dict) -> np.ndarray:
        x = ins[0]
        axes = reduced_axes(x.ndim, attrs.get("axis"), attrs.get("exclude", False))
        out = fn(x, axis=axes, keepdims=attrs.get("keepdims", False))
        return np.asarray(out).astype(x.dtype)

    return reference


REFERENCES = {
    "relay.sum": _reduce(np.sum),
    "relay.mean": _reduce(np.mean),
    "relay.max": _reduce(np.max),
    "relay.min": _reduce(np.min),
}
