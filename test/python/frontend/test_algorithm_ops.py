"""Converters of TopK, CumSum and Einsum against onnxruntime, evaluated with
the NumPy references and compiled."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import compile_and_compare
from node_testing import node_model, randn
from onnx_testing import import_error

RNG = np.random.default_rng(3)


@pytest.mark.parametrize(
    ("opset", "attrs"),
    [
        (11, {"axis": 1}),
        (11, {"axis": 0, "largest": 0}),
        (13, {"axis": -1, "largest": 1, "sorted": 1}),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_topk_k_input(opset, attrs, dtype):
    # Small integers hold ties: the lower position comes first.
    feeds = {"x": RNG.integers(-3, 3, (4, 5)).astype(dtype)}
    model = node_model(
        "TopK", ["x", "k"], feeds, {"k": np.array([3])}, ("v", "i"), opset=opset, **attrs
    )
    compile_and_compare(model, feeds, ["relay.topk"])


def test_topk_k_attribute_opset1():
    feeds = {"x": randn(3, 6)}
    model = node_model("TopK", ["x"], feeds, outputs=("v", "i"), opset=1, k=2)
    compile_and_compare(model, feeds, ["relay.topk"])


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize(
    "flags", [{}, {"exclusive": 1}, {"reverse": 1}, {"exclusive": 1, "reverse": 1}]
)
def test_cumsum(dtype, axis, flags):
    feeds = {"x": RNG.integers(-9, 9, (3, 4)).astype(dtype)}
    model = node_model(
        "CumSum", ["x", "axis"], feeds, {"axis": np.array(axis, np.int32)}, opset=14, **flags
    )
    compile_and_compare(model, feeds, ["relay.cumsum"])


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("bij, bjk -> bik", [(5, 2, 3), (5, 3, 4)]),
        ("...ii ->...i", [(3, 5, 5)]),
        ("i,i", [(5,), (5,)]),
        ("ij->ji", [(3, 4)]),
        ("ij->i", [(3, 4)]),
        ("i,j->ij", [(3,), (4,)]),
    ],
)
def test_einsum(equation, shapes):
    feeds = {f"x{k}": randn(*shape) for k, shape in enumerate(shapes)}
    model = node_model("Einsum", list(feeds), feeds, opset=12, equation=equation)
    compile_and_compare(model, feeds, ["relay.einsum"], atol=1e-5)


def test_algorithm_errors_name_the_node():
    feeds = {"x": randn(3, 4)}
    too_many = node_model("TopK", ["x", "k"], feeds, {"k": np.array([5])}, ("v", "i"))
    assert import_error(too_many) == (
        "node 'n' (TopK, opset 13): 'relay.topk' k = 5 must be in [0, 4] (the size of axis 1)"
    )
    axis = node_model("CumSum", ["x", "a"], feeds, {"a": np.array(2)})
    assert import_error(axis) == (
        "node 'n' (CumSum, opset 13): input 'axis' ('a') = 2 is out of range for rank 2"
    )
    einsum = node_model("Einsum", ["x"], feeds, equation="ij,jk->ik")
    assert import_error(einsum) == (
        "node 'n' (Einsum, opset 13): 'relay.einsum' equation 'ij,jk->ik' has 2 operand "
        "terms, but 1 operands are given"
    )
