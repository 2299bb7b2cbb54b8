"""Helpers for the ONNX frontend tests: build small models, run them with
onnxruntime, and evaluate the imported relay module with the NumPy op
references (``xtvm.passes.relay.evaluate``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from xtvm.dialects.qnn import QNN
from xtvm.dialects.relay import RELAY
from xtvm.frontend import OnnxImportError, from_onnx
from xtvm.passes.relay.evaluate import evaluate_function

ort.set_default_logger_severity(3)  # no warnings about old opsets


def tensor(name: str, shape: Sequence[int | str], elem: int = TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name: str, array: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    initializers: Sequence[onnx.TensorProto] = (),
    opset: int = 13,
) -> onnx.ModelProto:
    """A model of one graph at ``opset`` of the default domain."""
    graph = helper.make_graph(list(nodes), "test", list(inputs), list(outputs), list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8  # onnxruntime 1.x reads up to 10; keep old opsets loadable
    return model


def import_error(model: onnx.ModelProto, **options) -> str:
    """The message of the ``OnnxImportError`` that importing ``model`` raises."""
    with pytest.raises(OnnxImportError) as info:
        from_onnx(model, **options)
    return str(info.value)


def op_names(module: ModuleOp) -> list[str]:
    """The op names of ``@main``'s body, in order, without the return."""
    return [op.name for op in main_func(module).body.block.ops if not isinstance(op, func.ReturnOp)]


def main_func(module: ModuleOp) -> func.FuncOp:
    (main,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    assert main.sym_name.data == "main"
    return main


def arg_names(module: ModuleOp) -> list[str]:
    main = main_func(module)
    assert main.arg_attrs is not None
    return [d.data["relay.name"].data for d in main.arg_attrs.data]  # type: ignore[union-attr]


def run_relay(module: ModuleOp, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Evaluates ``@main`` with the NumPy references; ``feeds`` maps argument
    names (``relay.name``: inputs and parameters) to values."""
    return evaluate_function(module, "main", [feeds[name] for name in arg_names(module)])


def run_ort(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, dict(feeds))


def reparse(module: ModuleOp) -> ModuleOp:
    """The module printed and parsed again (which must give the same text)."""
    ctx = Context()
    for dialect in (Builtin, func.Func, RELAY, QNN):
        ctx.load_dialect(dialect)
    text = str(module)
    parsed = Parser(ctx, text).parse_module()
    parsed.verify()
    assert str(parsed) == text
    return parsed


def import_and_compare(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    expected_ops: Sequence[str],
    expected: Sequence[np.ndarray] | None = None,
    shape: Mapping[str, Sequence[int]] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> ModuleOp:
    """Imports ``model`` (with and without ``freeze_params``), checks that
    the IR verifies and round-trips, that ``@main`` holds ``expected_ops``
    (in order; the frozen variant may add ``relay.const``s), and that both
    evaluate like onnxruntime (or like ``expected``)."""
    reference = run_ort(model, feeds) if expected is None else list(expected)
    module, params = from_onnx(model, shape=shape)
    module.verify()
    reparse(module)
    assert op_names(module) == list(expected_ops)
    frozen, frozen_params = from_onnx(model, shape=shape, freeze_params=True)
    frozen.verify()
    assert frozen_params == {}
    assert [n for n in op_names(frozen) if n != "relay.const"] == [
        n for n in expected_ops if n != "relay.const"
    ]
    for mod, args in ((module, {**feeds, **params}), (frozen, feeds)):
        results = run_relay(mod, args)
        assert len(results) == len(reference)
        for got, want in zip(results, reference):
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return module
