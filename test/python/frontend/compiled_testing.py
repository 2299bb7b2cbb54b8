"""Converter tests through compiled code: import a model, compile it with
``xtvm.build`` (relay passes, relay → tir → LLVM) and compare what the
graph executor computes with onnxruntime."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx_testing import import_and_compare, run_ort

import xtvm
from xtvm.frontend import from_onnx


def run_compiled(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """The outputs of ``model`` on ``feeds`` (its graph inputs, in order),
    computed by the compiled module (initializers frozen as constants)."""
    module, params = from_onnx(model, freeze_params=True)
    gmod = xtvm.build(module, params=params)["default"](xtvm.cpu(0))
    for i, value in enumerate(feeds.values()):
        gmod.set_input(i, value)
    gmod.run()
    return [gmod.get_output(k).numpy() for k in range(len(model.graph.output))]


def compile_and_compare(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    expected_ops: Sequence[str],
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """``import_and_compare`` (the relay IR holds ``expected_ops`` and
    evaluates like onnxruntime with the NumPy references), then the same
    comparison for the compiled module."""
    import_and_compare(model, feeds, expected_ops, rtol=rtol, atol=atol)
    reference = run_ort(model, feeds)
    results = run_compiled(model, feeds)
    assert len(results) == len(reference)
    for got, want in zip(results, reference):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
