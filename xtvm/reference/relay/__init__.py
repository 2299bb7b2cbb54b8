"""NumPy reference semantics of every relay op, keyed by op name.

Pure NumPy, no IR imports: used by ``relay-fold-constant`` to evaluate
constant subgraphs and by every numerical test. ``evaluate(name, inputs,
attrs)`` runs a single-result op, ``evaluate_results`` any op (``relay.split``
has several results); ``attrs`` are the op's properties as Python values
(``RelayOp.attrs``, where properties left out hold their defaults).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from xtvm.reference.relay import (
    algorithm,
    conv,
    einsum,
    indexing,
    logical,
    math,
    nn,
    packed,
    pool,
    reduce,
    tensor,
    transform,
)
from xtvm.reference.relay import creation, dynamic, image, layout, scatter
from xtvm.reference.relay import bitcast
from xtvm.reference.relay import linalg
from xtvm.reference.relay import winograd
from xtvm.reference import qnn  # noqa: E402 (imports relay's conv and pool references)

Reference = Callable[[Sequence[np.ndarray], Mapping[str, Any]], np.ndarray | list[np.ndarray]]

REFERENCES: dict[str, Reference] = {
    **tensor.REFERENCES,
    **math.REFERENCES,
    **logical.REFERENCES,
    **reduce.REFERENCES,
    **nn.REFERENCES,
    **conv.REFERENCES,
    **pool.REFERENCES,
    **algorithm.REFERENCES,
    **bitcast.REFERENCES,
    **linalg.REFERENCES,
    **einsum.REFERENCES,
    **transform.REFERENCES,
    **indexing.REFERENCES,
    **scatter.REFERENCES,
    **layout.REFERENCES,
    **creation.REFERENCES,
    **image.REFERENCES,
    **packed.REFERENCES,
    **dynamic.REFERENCES,
    **winograd.REFERENCES,
}


def evaluate_results(
    name: str, inputs: Sequence[np.ndarray], attrs: Mapping[str, Any]
) -> list[np.ndarray]:
    """Every output of relay (or qnn) op ``name`` on ``inputs`` with
    attribute values ``attrs``; qnn ops fold and evaluate like relay ops."""
    reference = REFERENCES.get(name) or qnn.REFERENCES.get(name)
    if reference is None:
        raise KeyError(f"no NumPy reference for '{name}'")
    out = reference(list(inputs), dict(attrs))
    return [np.asarray(o) for o in out] if isinstance(out, list) else [np.asarray(out)]


def evaluate(name: str, inputs: Sequence[np.ndarray], attrs: Mapping[str, Any]) -> np.ndarray:
    """The output of single-result relay op ``name`` on ``inputs`` with
    attribute values ``attrs``."""
    results = evaluate_results(name, inputs, attrs)
    if len(results) != 1:
        raise ValueError(f"'{name}' has {len(results)} results; use evaluate_results")
    return results[0]
