"""NumPy semantics of ``relay.reinterpret``: ``ndarray.view`` of the same
width (a bool array views as its 0/1 bytes)."""

from __future__ import annotations

import numpy as np


def reinterpret(x: np.ndarray, dtype: str) -> np.ndarray:
    """The bits of ``x`` as ``dtype``; a copy, so the result owns its data."""
    return np.ascontiguousarray(x).view(np.dtype(dtype)).copy()


REFERENCES = {
    "relay.reinterpret": lambda ins, attrs: reinterpret(ins[0], attrs["dtype"]),
}
