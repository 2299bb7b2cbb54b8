"""NumPy reference semantics of every relay op, keyed by op name.

Pure NumPy, no IR imports: used by ``relay-fold-constant`` to evaluate
constant subgraphs and by every numerical test. ``evaluate(name, inputs,
attrs)`` runs one op; ``attrs`` are the op's properties as Python values
(``RelayOp.attrs``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from xtvm.reference.relay import nn, tensor, transform

Reference = Callable[[Sequence[np.ndarray], Mapping[str, Any]], np.ndarray]

REFERENCES: dict[str, Reference] = {
    **tensor.REFERENCES,
    **nn.REFERENCES,
    **transform.REFERENCES,
}


def evaluate(name: str, inputs: Sequence[np.ndarray], attrs: Mapping[str, Any]) -> np.ndarray:
    """The output of relay op ``name`` on ``inputs`` with attribute values ``attrs``."""
    try:
        reference = REFERENCES[name]
    except KeyError:
        raise KeyError(f"no NumPy reference for '{name}'") from None
    return np.asarray(reference(list(inputs), dict(attrs)))
