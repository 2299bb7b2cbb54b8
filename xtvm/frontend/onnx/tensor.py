"""Converters for constants and elementwise maths: ``Constant``, ``Add``,
``Sub``, ``Mul``, ``Div`` (→ ``relay.const``, ``relay.add``, ...)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import AddOp, BinaryOp, DivideOp, MultiplyOp, ReshapeOp, SubtractOp
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.common import OnnxImportError, element_type_from_numpy
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


class Constant(OnnxOpConverter):
    """``Constant``: its value is known at import time; it becomes a
    ``relay.const`` where a node uses it as a tensor, and is read directly
    where a node needs a constant (a ``Reshape`` shape)."""

    _SCALARS: ClassVar[dict[str, type]] = {
        "value_float": np.float32,
        "value_floats": np.float32,
        "value_int": np.int64,
        "value_ints": np.int64,
    }

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> np.ndarray:
        # v1: `value`; v11 adds `sparse_value`; v12 adds value_float(s),
        # value_int(s), value_string(s). Exactly one must be present.
        present = sorted(node.attrs)
        if len(present) != 1:
            raise node.error(
                f"needs exactly one value attribute, got {', '.join(present) or 'none'}"
            )
        (name,) = present
        if name == "value":
            array = node.attr("value")
            try:
                element_type_from_numpy(array.dtype, "attribute 'value'")
            except OnnxImportError as e:
                raise node.error(str(e)) from None
            return array
        if name in cls._SCALARS:
            return np.array(node.attr(name), dtype=cls._SCALARS[name])
        raise node.error(f"attribute '{name}' is not supported (only numeric dense constants are)")


class _Elementwise(OnnxOpConverter):
    """The broadcasting binary ops; ``OP`` is the relay op they become."""

    OP: ClassVar[type[BinaryOp]]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-6: shapes must be equal unless `broadcast` = 1; then B's
        # dims match A's from `axis` on (default: A's trailing dims), and B is
        # reshaped with trailing 1s so that NumPy broadcasting lines them up.
        a, b = node.input(0), node.input(1)
        sa, sb = static_shape(a), static_shape(b)
        if not node.attr("broadcast", 0):
            if sa != sb:
                raise node.error(
                    f"inputs must have equal shapes when attribute 'broadcast' is 0, "
                    f"got {shape_str(sa)} and {shape_str(sb)}"
                )
            return node.emit(cls.OP(a, b))
        axis = node.attr("axis")
        if axis is not None:
            if axis < 0:
                axis += len(sa)
            if not 0 <= axis <= len(sa) - len(sb):
                raise node.error(
                    f"attribute 'axis' = {node.attr('axis')} cannot place B "
                    f"({shape_str(sb)}) inside A ({shape_str(sa)})"
                )
            trailing = len(sa) - axis - len(sb)
            if trailing:
                b = node.emit(ReshapeOp(b, [*sb, *[1] * trailing]))
        out = node.emit(cls.OP(a, b))
        if static_shape(out) != sa:
            raise node.error(
                f"legacy broadcast needs B ({shape_str(sb)}) to broadcast to A's shape "
                f"{shape_str(sa)}"
            )
        return out

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        # Opset 7+: NumPy (multidirectional) broadcasting, as relay's.
        return node.emit(cls.OP(node.input(0), node.input(1)))


class Add(_Elementwise):
    OP = AddOp


class Sub(_Elementwise):
    OP = SubtractOp


class Mul(_Elementwise):
    OP = MultiplyOp


class Div(_Elementwise):
    OP = DivideOp


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Constant": Constant,
    "Add": Add,
    "Sub": Sub,
    "Mul": Mul,
    "Div": Div,
}
