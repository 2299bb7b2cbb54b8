"""The relay op base class: defaults declared once on the op, the
constructor from operands and attribute values, the shared assembly format
and element-type checks."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    f64,
    i1,
    i64,
)
from xdsl.parser import Parser
from xdsl.utils.test_value import create_ssa_value

from xtvm.dialects import relay
from xtvm.dialects.relay.base import functional_format, property_attr


def value(shape: list[int], element=f32):
    return create_ssa_value(TensorType(element, shape))


def parse_op(text: str) -> relay.RelayOp:
    ctx = Context()
    ctx.load_dialect(func.Func)
    ctx.load_dialect(relay.RELAY)
    module = Parser(ctx, text).parse_module()
    assert isinstance(module, ModuleOp)
    (function,) = module.ops
    return next(op for op in function.walk() if isinstance(op, relay.RelayOp))


def test_parsed_op_attrs_hold_the_declared_defaults() -> None:
    op = parse_op(
        "func.func @f(%x: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {\n"
        "  %y = relay.nn.bias_add %x, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>\n"
        "  func.return %y : tensor<2x4xf32>\n}"
    )
    assert op.attrs == {"axis": 1}


def test_constructor_leaves_defaults_to_the_op() -> None:
    x, b = value([2, 4]), value([4])
    default = relay.BiasAddOp(x, b)
    assert default.attrs == {"axis": 1}
    assert "axis" not in str(default)  # a default is not printed
    assert relay.BiasAddOp(x, b, axis=-1).attrs == {"axis": -1}
    assert relay.SoftmaxOp(x).attrs == {"axis": -1}
    assert relay.MatmulOp(value([2, 4]), value([3, 4]), transpose_b=True).attrs == {
        "transpose_a": False,
        "transpose_b": True,
    }
    # An optional property without a default stays absent.
    assert "axis" not in relay.SumOp(x).attrs


def test_values_become_the_declared_attribute_kinds() -> None:
    x = value([2, 3])
    clip = relay.ClipOp(x, 0, 6)  # integers for f64 bounds
    assert clip.properties["a_min"] == FloatAttr(0.0, f64)
    summed = relay.SumOp(x, axis=[1], keepdims=1)  # an integer for a bool
    assert summed.properties["keepdims"] == BoolAttr.from_bool(True)
    assert summed.properties["axis"] == DenseArrayBase.from_list(i64, [1])
    split = relay.SplitOp(value([2, 6]), 3, axis=1)
    assert split.properties["indices_or_sections"] == IntegerAttr(3, i64)
    assert [str(r.type) for r in split.results] == ["tensor<2x2xf32>"] * 3
    assert relay.CastOp(x, "int32").properties["dtype"] == StringAttr("int32")
    scales_def = relay.Resize2dOp.get_irdl_definition().properties["scales"]
    scales = property_attr(scales_def.constr, [0.5, 2])
    assert scales == DenseArrayBase.from_list(f64, [0.5, 2.0])


def test_constructor_runs_the_type_rule_and_checks_names() -> None:
    x = value([2, 8])
    with pytest.raises(relay.RelayTypeError, match="reduction sizes differ"):
        relay.DenseOp(x, value([4, 7]))
    with pytest.raises(TypeError, match="'relay.add' has no attribute 'axis'"):
        relay.AddOp(x, value([2, 8]), axis=1)


def test_element_type_checks() -> None:
    with pytest.raises(relay.RelayTypeError, match="'relay.where' x and y must have one element"):
        relay.WhereOp(value([3], i1), value([3]), value([3], i64))
    with pytest.raises(relay.RelayTypeError, match="'relay.add' operands must have one element"):
        relay.AddOp(value([3]), value([3], i64))
    with pytest.raises(relay.RelayTypeError, match="'relay.nn.lrn' expects a floating-point"):
        relay.LrnOp(value([1, 2, 3, 3], i64))


def test_functional_format() -> None:
    tail = "attr-dict `:` functional-type(operands, results)"
    assert functional_format("data", "weight") == f"$data `,` $weight {tail}"
    assert functional_format() == tail
