"""NumPy semantics of the data-dependent ops (``relay.nonzero``,
``relay.compress``, ``relay.unique``) and their shape functions. The ops' shape operand is
checked against the shape the values give: a wrong one is a bug in
whatever made it."""

from __future__ import annotations

import numpy as np


def nonzero(data: np.ndarray) -> np.ndarray:
    """The ``rank x count`` positions of the nonzero elements, row-major."""
    return np.stack(np.nonzero(data)).astype(np.int64).reshape(data.ndim, -1)


def compress(data: np.ndarray, condition: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The slices (elements, without ``axis``) whose condition is true; a
    condition shorter than the axis leaves the rest out."""
    extent = data.size if axis is None else data.shape[axis]
    return np.compress(condition[:extent].astype(bool), data, axis=axis)


def unique(data: np.ndarray, axis: int | None = None, is_sorted: bool = True) -> list[np.ndarray]:
    """ONNX ``Unique``: the distinct slices (sorted, or in order of first
    occurrence), their first positions, each slice's index among them, and
    their counts."""
    y, indices, inverse, counts = np.unique(
        data, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = inverse.reshape(-1)
    if not is_sorted:
        order = np.argsort(indices, kind="stable")
        y = np.take(y, order, axis=0 if axis is None else axis)
        indices, counts = indices[order], counts[order]
        inverse = np.argsort(order)[inverse]
    return [y, indices.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)]


def _unique_checked(ins: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    results = unique(ins[0], attrs.get("axis"), attrs.get("is_sorted", True))
    return [_checked(r, s, "relay.unique") for r, s in zip(results, ins[1:], strict=True)]


def _checked(result: np.ndarray, shape: np.ndarray, name: str) -> np.ndarray:
    if tuple(int(d) for d in shape) != result.shape:
        raise ValueError(f"{name}: the shape operand {list(shape)} is not the result's {result.shape}")
    return result


REFERENCES = {
    "relay.unique_shape": lambda ins, attrs: [
        np.array(r.shape, np.int64)
        for r in unique(ins[0], attrs.get("axis"), attrs.get("is_sorted", True))
    ],
    "relay.unique": _unique_checked,
    "relay.nonzero_shape": lambda ins, attrs: np.array(nonzero(ins[0]).shape, np.int64),
    "relay.nonzero": lambda ins, attrs: _checked(nonzero(ins[0]), ins[1], "relay.nonzero"),
    "relay.compress_shape": lambda ins, attrs: np.array(
        compress(ins[0], ins[1], attrs.get("axis")).shape, np.int64
    ),
    "relay.compress": lambda ins, attrs: _checked(
        compress(ins[0], ins[1], attrs.get("axis")), ins[2], "relay.compress"
    ),
}
