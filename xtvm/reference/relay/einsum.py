"""NumPy semantics of ``relay.einsum``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def einsum(inputs: Sequence[np.ndarray], equation: str) -> np.ndarray:
    """``np.einsum`` of ``equation`` (spaces removed), in the operands' dtype."""
    out = np.einsum(equation.replace(" ", ""), *inputs)
    return np.asarray(out).astype(inputs[0].dtype)


REFERENCES = {
    "relay.einsum": lambda ins, attrs: einsum(ins, attrs["equation"]),
}
