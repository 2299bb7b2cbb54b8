"""NumPy semantics of shape and layout ops.

``relay.split`` has several results: its reference returns a list of arrays
(see :func:`xtvm.reference.relay.evaluate_results`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def reshape(x: np.ndarray, newshape: tuple[int, ...], allowzero: bool = False) -> np.ndarray:
    """``0`` copies the input's size (a zero-size axis with ``allowzero``)."""
    shape = [x.shape[i] if d == 0 and not allowzero else d for i, d in enumerate(newshape)]
    return np.reshape(x, shape)


def transpose(x: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
    return np.transpose(x, axes)


def split(
    x: np.ndarray, indices_or_sections: int | Sequence[int], axis: int = 0
) -> list[np.ndarray]:
    """Equal sections for a count, pieces starting at the indices otherwise."""
    if isinstance(indices_or_sections, int):
        return np.split(x, indices_or_sections, axis=axis)
    return np.split(x, list(indices_or_sections), axis=axis)


def squeeze(x: np.ndarray, axis: Sequence[int] | None = None) -> np.ndarray:
    return np.squeeze(x, axis=None if axis is None else tuple(axis))


def expand_dims(x: np.ndarray, axis: int, num_newaxis: int = 1) -> np.ndarray:
    axis %= x.ndim + 1
    return x.reshape(x.shape[:axis] + (1,) * num_newaxis + x.shape[axis:])


def full(fill_value: np.ndarray, shape: Sequence[int], dtype: str | None = None) -> np.ndarray:
    return np.full(tuple(shape), fill_value.astype(dtype or fill_value.dtype))


REFERENCES = {
    "relay.reshape": lambda ins, attrs: reshape(
        ins[0], attrs["newshape"], attrs["allowzero"]
    ),
    "relay.transpose": lambda ins, attrs: transpose(ins[0], attrs.get("axes")),
    "relay.concatenate": lambda ins, attrs: np.concatenate(ins, axis=attrs["axis"]),
    "relay.split": lambda ins, attrs: split(ins[0], **attrs),
    "relay.squeeze": lambda ins, attrs: squeeze(ins[0], attrs.get("axis")),
    "relay.expand_dims": lambda ins, attrs: expand_dims(ins[0], **attrs),
    "relay.full": lambda ins, attrs: full(ins[0], **attrs),
}
