"""NumPy semantics of shape and layout ops."""

from __future__ import annotations

import numpy as np


def reshape(x: np.ndarray, newshape: tuple[int, ...]) -> np.ndarray:
    shape = [x.shape[i] if d == 0 else d for i, d in enumerate(newshape)]
    return np.reshape(x, shape)


def transpose(x: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
    return np.transpose(x, axes)


REFERENCES = {
    "relay.reshape": lambda ins, attrs: reshape(ins[0], attrs["newshape"]),
    "relay.transpose": lambda ins, attrs: transpose(ins[0], attrs.get("axes")),
}
