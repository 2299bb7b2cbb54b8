"""NumPy semantics of the data-dependent ops (``relay.nonzero``,
``relay.compress``) and their shape functions. The ops' shape operand is
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


def _checked(result: np.ndarray, shape: np.ndarray, name: str) -> np.ndarray:
    if tuple(int(d) for d in shape) != result.shape:
        raise ValueError(f"{name}: the shape operand {list(shape)} is not the result's {result.shape}")
    return result


REFERENCES = {
    "relay.nonzero_shape": lambda ins, attrs: np.array(nonzero(ins[0]).shape, np.int64),
    "relay.nonzero": lambda ins, attrs: _checked(nonzero(ins[0]), ins[1], "relay.nonzero"),
    "relay.compress_shape": lambda ins, attrs: np.array(
        compress(ins[0], ins[1], attrs.get("axis")).shape, np.int64
    ),
    "relay.compress": lambda ins, attrs: _checked(
        compress(ins[0], ins[1], attrs.get("axis")), ins[2], "relay.compress"
    ),
}
