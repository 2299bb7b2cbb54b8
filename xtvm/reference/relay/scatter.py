"""NumPy semantics of ``relay.scatter_elements`` and ``relay.scatter_nd``:
updates applied one by one in row-major order of the indices, indices
modulo the sizes of the axes they index."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_COMBINE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "update": lambda old, new: new,
    "add": np.add,
    "mul": np.multiply,
    "min": np.minimum,
    "max": np.maximum,
}


def scatter_elements(
    data: np.ndarray,
    indices: np.ndarray,
    updates: np.ndarray,
    axis: int = 0,
    reduction: str = "update",
) -> np.ndarray:
    out = data.copy()
    axis %= data.ndim
    combine = _COMBINE[reduction]
    for q in np.ndindex(*indices.shape):
        p = list(q)
        p[axis] = int(indices[q]) % data.shape[axis]
        out[tuple(p)] = combine(out[tuple(p)], updates[q])
    return out


def scatter_nd(
    data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str = "update"
) -> np.ndarray:
    """TVM's ``scatter_nd``: index tuples on the first axis of ``indices``."""
    out = data.copy()
    m = indices.shape[0]
    combine = _COMBINE[reduction]
    for y in np.ndindex(*indices.shape[1:]):
        p = tuple(int(indices[(k, *y)]) % data.shape[k] for k in range(m))
        out[p] = combine(out[p], updates[y])
    return out


REFERENCES = {
    "relay.scatter_elements": lambda ins, attrs: scatter_elements(*ins, **attrs),
    "relay.scatter_nd": lambda ins, attrs: scatter_nd(*ins, **attrs),
}
