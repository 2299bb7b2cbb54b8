"""Helpers of the shape, indexing, layout, creation and resize converter
tests: a model imported, built by ``xtvm.build`` (relay → tir → LLVM) and
run by the graph executor through the ONNX backend (which specializes on
inputs needed at compile time), against onnxruntime or expected arrays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx_testing import import_and_compare, run_ort

from xtvm.frontend.onnx.backend import XtvmBackend


def run_compiled(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """The outputs of ``model`` on ``feeds`` (by graph-input name) through compiled code."""
    inputs = [feeds[i.name] for i in model.graph.input if i.name in feeds]
    return list(XtvmBackend.prepare(model).run(inputs))


def check(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    expected_ops: Sequence[str],
    expected: Sequence[np.ndarray] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """``import_and_compare`` (IR, round trip, NumPy references against
    onnxruntime or ``expected``), then the compiled model against the same
    outputs, with equal dtypes and shapes."""
    import_and_compare(model, feeds, expected_ops, expected, rtol=rtol, atol=atol)
    want = run_ort(model, feeds) if expected is None else list(expected)
    got = run_compiled(model, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
