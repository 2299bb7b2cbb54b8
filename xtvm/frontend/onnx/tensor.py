"""Converters for constants and elementwise arithmetic: ``Constant``,
``Add``, ``Sub``, ``Mul``, ``Div``, ``Pow``, ``Mod``, the unary maths
(``Sigmoid``, ``Tanh``, ``Exp``, ``Sqrt``, ``Log``, ``Neg``, ``Abs``),
``Clip``, the variadic ``Max``, ``Min``, ``Sum``, ``Mean``, ``Cast`` and
``CastLike`` (→ ``relay.const``, ``relay.add``, ...).

:class:`BinaryConverter` and :class:`UnaryConverter` are the bases the
other elementwise converters (``math``, ``logical``) share.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from onnx import TensorProto
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AbsOp,
    AddOp,
    BinaryOp,
    CastOp,
    ClipOp,
    DivideOp,
    ExpOp,
    FloorModOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MultiplyOp,
    NegativeOp,
    PowerOp,
    ReshapeOp,
    SigmoidOp,
    SqrtOp,
    SubtractOp,
    TanhOp,
    TruncModOp,
    UnaryOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.common import (
    OnnxConstantInputRequired,
    OnnxImportError,
    dtype_from_onnx,
    element_type_from_numpy,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.constants import numpy_dtype


def element_dtype(value: SSAValue) -> np.dtype:
    """The NumPy dtype of a tensor value's elements."""
    return numpy_dtype(value.type.get_element_type())  # type: ignore[attr-defined]


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


class BinaryConverter(OnnxOpConverter):
    """The broadcasting binary ops; ``OP`` is the relay op they become.
    Opsets before 7 broadcast only when asked (``broadcast``, ``axis``)."""

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
                b = node.emit(ReshapeOp.to_shape(b, [*sb, *[1] * trailing]))
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


class Add(BinaryConverter):
    OP = AddOp


class Sub(BinaryConverter):
    OP = SubtractOp


class Mul(BinaryConverter):
    OP = MultiplyOp


class Div(BinaryConverter):
    OP = DivideOp


class Pow(BinaryConverter):
    """``Pow``: ``X ** Y`` → ``relay.power``. From opset 12 the exponent may
    have another type than the base, and the result has the base's type: a
    float exponent of an integer base is applied in floating point and the
    result truncated (as onnxruntime); otherwise the exponent is converted to
    the base's type (a constant exponent at import time)."""

    OP = PowerOp

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        x, y = node.input(0), node.input(1)
        x_dtype, y_dtype = element_dtype(x), element_dtype(y)
        if x_dtype == y_dtype:
            return node.emit(PowerOp(x, y))
        if np.issubdtype(x_dtype, np.integer) and np.issubdtype(y_dtype, np.floating):
            wide = node.emit(CastOp(x, y_dtype.name))
            return node.emit(CastOp(node.emit(PowerOp(wide, y)), x_dtype.name))
        if node.is_constant(1):
            y = node.const(node.constant_input(1).astype(x_dtype))
        else:
            y = node.emit(CastOp(y, x_dtype.name))
        return node.emit(PowerOp(x, y))


class UnaryConverter(OnnxOpConverter):
    """The elementwise unary ops; ``OP`` is the relay op they become (every
    version; v1's ``consumed_inputs`` is a legacy memory hint)."""

    OP: ClassVar[type[UnaryOp]]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.emit(cls.OP(node.input(0)))


class Sigmoid(UnaryConverter):
    OP = SigmoidOp


class Tanh(UnaryConverter):
    OP = TanhOp


class Exp(UnaryConverter):
    OP = ExpOp


class Sqrt(UnaryConverter):
    OP = SqrtOp


class Log(UnaryConverter):
    OP = LogOp


class Neg(UnaryConverter):
    OP = NegativeOp


class Abs(UnaryConverter):
    OP = AbsOp


class Mod(OnnxOpConverter):
    """``Mod`` → ``relay.floor_mod`` (``fmod = 0``: the remainder has the
    divisor's sign, as NumPy's ``mod``) or ``relay.trunc_mod`` (``fmod =
    1``: the dividend's sign, as C's ``fmod``), with NumPy broadcasting.
    Floats are accepted with either mode (opset 28 allows ``fmod = 0``)."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        fmod = node.attr("fmod", 0)
        if fmod not in (0, 1):
            raise node.unsupported_attr("fmod", "it must be 0 or 1", 0)
        op = TruncModOp if fmod else FloorModOp
        return node.emit(op(node.input(0), node.input(1)))


_EXACT_INT_BOUND = 2**53
"""Integer clip bounds up to this magnitude survive ``relay.clip``'s f64
attributes exactly."""


class Clip(OnnxOpConverter):
    """``Clip``: ``min(max(x, min), max)``; a missing bound is unbounded, and
    ``max`` wins when ``min > max``. Constant bounds become ``relay.clip``;
    bounds computed at run time (or not exact as f64) become
    ``relay.maximum`` / ``relay.minimum`` with the scalar bound tensors."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-10: the bounds are attributes `min` and `max`.
        low, high = node.attr("min", -np.inf), node.attr("max", np.inf)
        return node.emit(ClipOp(node.input(0), float(low), float(high)))

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        # Opset 11+: the bounds are optional scalar inputs (12+: of any numeric type).
        x = node.input(0)
        bounds = [cls._constant_bound(node, i) for i in (1, 2)]
        if all(b is not None or not node.has_input(i) for i, b in zip((1, 2), bounds)):
            low = -np.inf if bounds[0] is None else bounds[0]
            high = np.inf if bounds[1] is None else bounds[1]
            return node.emit(ClipOp(x, low, high))
        for i, op in ((1, MaximumOp), (2, MinimumOp)):
            if node.has_input(i):
                bound = node.input(i)
                if static_shape(bound) != ():
                    bound = node.emit(ReshapeOp(bound, []))
                x = node.emit(op(x, bound))
        return x

    @classmethod
    def _constant_bound(cls, node: OnnxNode, i: int) -> float | None:
        """Bound ``i`` as a number for ``relay.clip``, or None when it is
        absent, computed at run time, NaN or an integer that f64 rounds."""
        if not node.has_input(i):
            return None
        try:
            value = node.constant_scalar(i)
        except OnnxConstantInputRequired:
            return None
        if np.issubdtype(value.dtype, np.integer) and abs(int(value)) > _EXACT_INT_BOUND:
            return None
        bound = float(value)
        return None if np.isnan(bound) else bound


class _Variadic(OnnxOpConverter):
    """``Max``, ``Min``, ``Sum``, ``Mean`` of N inputs → a chain of N - 1
    binary ``OP``s, left to right (``Mean`` then divides by N). Opsets 1-7
    need equal shapes; opset 8+ broadcasts (as relay)."""

    OP: ClassVar[type[BinaryOp]]

    @classmethod
    def _chain(cls, node: OnnxNode) -> SSAValue:
        out = node.input(0)  # the checker ensures at least one input
        for i in range(1, len(node.proto.input)):
            out = node.emit(cls.OP(out, node.input(i)))
        return out

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        shapes = [node.input_shape(i) for i in range(len(node.proto.input))]
        if any(s != shapes[0] for s in shapes):
            raise node.error(
                "inputs must have equal shapes before opset 8, got "
                + ", ".join(shape_str(s) for s in shapes)
            )
        return cls._impl_v8(node)

    @classmethod
    def _impl_v8(cls, node: OnnxNode) -> SSAValue:
        return cls._chain(node)


class Max(_Variadic):
    OP = MaximumOp


class Min(_Variadic):
    OP = MinimumOp


class Sum(_Variadic):
    OP = AddOp


class Mean(_Variadic):
    OP = AddOp

    @classmethod
    def _impl_v8(cls, node: OnnxNode) -> SSAValue:
        total = cls._chain(node)
        if len(node.proto.input) == 1:
            return total
        count = node.const(np.array(len(node.proto.input), element_dtype(total)))
        return node.emit(DivideOp(total, count))


FLOAT8_DTYPES = (
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
)
"""The targets ``Cast``'s ``saturate`` and ``round_mode`` apply to."""


def _cast(node: OnnxNode, x: SSAValue, dtype: str) -> SSAValue:
    """``x`` converted to ``dtype`` (nothing to emit when it already is); to
    a float8 type with the node's ``saturate`` (default 1: clamp to the
    largest finite value) and ``round_mode`` (``float8_e8m0fnu``; default
    ``up``)."""
    if element_dtype(x) == np.dtype(dtype):
        return x
    if dtype not in FLOAT8_DTYPES:
        return node.emit(CastOp(x, dtype))
    round_mode = node.attrs.get("round_mode", "up")
    if isinstance(round_mode, bytes):
        round_mode = round_mode.decode()
    if round_mode not in ("up", "down", "nearest"):
        raise node.unsupported_attr("round_mode", "expected up, down or nearest")
    saturate = bool(node.attrs.get("saturate", 1))
    return node.emit(CastOp(x, dtype, saturate, round_mode))


class Cast(OnnxOpConverter):
    """``Cast`` → ``relay.cast`` to the type ``to`` (a cast to the input's
    own type emits nothing): float → integer truncates toward zero and
    saturates, to ``bool`` is ``!= 0``. To bfloat16 and float8 the value
    rounds to nearest even (docs/element-types.md); ``saturate`` (v19) and
    ``round_mode`` (v24) apply to the float8 types as ONNX specifies.
    Strings are not supported (the error names the type)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        to = node.attrs["to"]  # required: the checker ensures it
        if isinstance(to, str):  # opset 1 spells the type as a string: "FLOAT"
            if to not in TensorProto.DataType.keys():  # noqa: SIM118 (no __contains__)
                raise node.unsupported_attr("to", "not an ONNX data type")
            to = TensorProto.DataType.Value(to)
        try:
            dtype = dtype_from_onnx(to, "attribute 'to'")
        except OnnxImportError as e:
            raise node.error(str(e)) from None
        return _cast(node, node.input(0), dtype)


class CastLike(OnnxOpConverter):
    """``CastLike``: ``Cast`` of input 0 to the element type of input 1
    (whose values are not read), with ``Cast``'s ``saturate`` and
    ``round_mode``."""

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> SSAValue:
        if node.is_constant(1):  # read its type without materializing it
            target = node.constant_input(1).dtype
        else:
            target = element_dtype(node.input(1))
        return _cast(node, node.input(0), target.name)


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Constant": Constant,
    "Add": Add,
    "Sub": Sub,
    "Mul": Mul,
    "Div": Div,
    "Pow": Pow,
    "Mod": Mod,
    "Sigmoid": Sigmoid,
    "Tanh": Tanh,
    "Exp": Exp,
    "Sqrt": Sqrt,
    "Log": Log,
    "Neg": Neg,
    "Abs": Abs,
    "Clip": Clip,
    "Max": Max,
    "Min": Min,
    "Sum": Sum,
    "Mean": Mean,
    "Cast": Cast,
    "CastLike": CastLike,
}
