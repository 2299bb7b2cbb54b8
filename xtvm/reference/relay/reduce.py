"""NumPy semantics of the reductions (TVM's ``axis``/``keepdims``/``exclude``)
and of the index reductions ``argmax``/``argmin``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def reduced_axes(ndim: int, axis: Sequence[int] | None, exclude: bool) -> tuple[int, ...]:
    """Axes to reduce: all when ``axis`` is None, the complement with ``exclude``."""
    chosen = set(range(ndim)) if axis is None else {a % ndim for a in axis}
    if exclude:
        chosen = set(range(ndim)) - chosen
    return tuple(sorted(chosen))


def _lowest(dtype: np.dtype) -> float | int | bool:
    if dtype == np.bool_:
        return False
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _highest(dtype: np.dtype) -> float | int | bool:
    if dtype == np.bool_:
        return True
    return np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def _mean(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """The mean; over an empty set 0, as the compiled kernel (the sum over
    a count of at least 1) and onnxruntime give, not NumPy's NaN."""
    if any(x.shape[a] == 0 for a in axis):
        return np.zeros_like(np.sum(x, axis=axis, keepdims=keepdims))
    return np.mean(x, axis=axis, keepdims=keepdims)


def _reduce(
    fn: Callable[..., np.ndarray], initial: Callable[[np.dtype], float | int | bool] | None = None
):
    """A reference of reduction ``fn``; ``initial(dtype)`` is its value over
    an empty set (``max`` and ``min`` have none in NumPy)."""

    def reference(ins: Sequence[np.ndarray], attrs: dict) -> np.ndarray:
        x = ins[0]
        axes = reduced_axes(x.ndim, attrs.get("axis"), attrs["exclude"])
        extra = {} if initial is None else {"initial": initial(x.dtype)}
        out = fn(x, axis=axes, keepdims=attrs["keepdims"], **extra)
        return np.asarray(out).astype(x.dtype)

    return reference


def arg_reduce(
    x: np.ndarray,
    largest: bool,
    axis: Sequence[int] | None = None,
    keepdims: bool = False,
    exclude: bool = False,
    select_last_index: bool = False,
) -> np.ndarray:
    """The ``int64`` position of the maximum (``largest``) or minimum over the
    reduced axes, counted row-major over them; ties give the first position,
    or the last with ``select_last_index``."""
    axes = reduced_axes(x.ndim, axis, exclude)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = moved.reshape(*moved.shape[: len(kept)], int(np.prod(moved.shape[len(kept) :])))
    if select_last_index:
        flat = flat[..., ::-1]
    index = (np.argmax if largest else np.argmin)(flat, axis=-1)
    if select_last_index:
        index = flat.shape[-1] - 1 - index
    if keepdims:
        index = np.expand_dims(index, axes)
    return np.asarray(index, dtype=np.int64)


def _arg(largest: bool):
    def reference(ins: Sequence[np.ndarray], attrs: dict) -> np.ndarray:
        return arg_reduce(ins[0], largest, **attrs)

    return reference


REFERENCES = {
    "relay.sum": _reduce(np.sum),
    "relay.mean": _reduce(_mean),
    "relay.prod": _reduce(np.prod),
    "relay.max": _reduce(np.max, _lowest),
    "relay.min": _reduce(np.min, _highest),
    "relay.argmax": _arg(True),
    "relay.argmin": _arg(False),
}
