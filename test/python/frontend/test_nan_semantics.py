"""NaN in the index and extreme reductions follows ONNX's reference (NumPy):
a NaN is the extreme, so ArgMax/ArgMin give the first NaN's position (the
last with select_last_index), Hardmax marks it, and ReduceMax/ReduceMin
propagate it. Compiled code, the NumPy references and onnx's reference
evaluator agree; onnxruntime is printed for comparison where it differs
(it is not the reference here)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnx_testing import make_model, run_relay, tensor

from xtvm.frontend import from_onnx

ROWS = np.array(
    [
        [1.0, np.nan, 3.0, np.nan],  # NaNs at 1 and 3
        [np.nan, 2.0, 2.0, 0.0],  # a NaN first
        [1.0, 5.0, 5.0, -1.0],  # no NaN: ties
        [np.nan, np.nan, np.nan, np.nan],
    ],
    np.float32,
)

CASES = [
    ("ArgMax", {"axis": 1}, TensorProto.INT64, (4, 1)),
    ("ArgMax", {"axis": 1, "select_last_index": 1}, TensorProto.INT64, (4, 1)),
    ("ArgMin", {"axis": 1}, TensorProto.INT64, (4, 1)),
    ("ArgMin", {"axis": 1, "select_last_index": 1, "keepdims": 0}, TensorProto.INT64, (4,)),
    ("Hardmax", {"axis": 1}, TensorProto.FLOAT, (4, 4)),
    ("ReduceMax", {"keepdims": 0}, TensorProto.FLOAT, ()),
    ("ReduceMin", {"keepdims": 1}, TensorProto.FLOAT, (1, 1)),
]


@pytest.mark.parametrize("op_type,attrs,out_type,out_shape", CASES, ids=lambda c: str(c))
def test_nan_rows_match_onnx_reference(op_type, attrs, out_type, out_shape) -> None:
    node = helper.make_node(op_type, ["x"], ["y"], **attrs)
    opset = 13 if op_type.startswith("Reduce") else 18
    model = make_model([node], [tensor("x", [4, 4])], [tensor("y", list(out_shape), out_type)], opset=opset)
    want = ReferenceEvaluator(model).run(None, {"x": ROWS})[0]
    module, params = from_onnx(model)
    (relay,) = run_relay(module, {"x": ROWS, **params})
    (compiled,) = run_compiled(model, {"x": ROWS})
    np.testing.assert_array_equal(relay, want)
    np.testing.assert_array_equal(compiled, want)
    if out_type == TensorProto.INT64:
        assert ((compiled >= 0) & (compiled < 4)).all()  # an index inside the axis
