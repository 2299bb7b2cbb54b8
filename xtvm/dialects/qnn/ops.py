"""The ``qnn`` ops: one class per TVM QNN concept, each with its type rule.

Operand conventions (TVM's): a quantized tensor is followed by its scale
and zero point; an op that produces a new quantized tensor takes the
output's scale and zero point last. Scales are ``f32`` tensors, zero points
integer tensors, each a scalar, a one-element tensor (per-tensor), or a 1-d
tensor as long as the quantized tensor's ``axis`` (per-axis). The verifier
(the type rule) rejects anything else, naming the op and the operand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay import conv as relay_conv
from xtvm.dialects.relay import nn as relay_nn
from xtvm.dialects.relay import pool as relay_pool
from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    bool_attr,
    broadcast_shapes,
    dtype_element_type,
    functional_format,
    i64_attr,
    int_array,
    normalize_axis,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.transform import ConcatenateOp as RelayConcatenateOp

QUANTIZED_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "int4", "uint4", "int2", "uint2")
"""The element types a quantized tensor may have (ONNX's QuantizeLinear;
the sub-byte ones are packed in buffers, docs/sub-byte-types.md)."""


def _is_int(ty: Attribute) -> bool:
    return isinstance(ty, IntegerType) and ty.width.data > 1


def check_qparams(
    op: str,
    data: TensorType,
    scale: Attribute,
    zero_point: Attribute,
    axis: int,
    what: str = "",
    block_size: int = 0,
) -> None:
    """``scale`` (``f32``) and ``zero_point`` (integers) are per-tensor or
    per-axis parameters of ``data`` along ``axis`` or, with ``block_size >
    0``, block-wise ones (see :func:`blocked_shape`); a type error naming
    ``op`` and the parameter otherwise."""
    scale_t = tensor_type(op, scale, f"{what}scale")
    zp_t = tensor_type(op, zero_point, f"{what}zero point")
    if scale_t.element_type != f32:
        raise RelayTypeError(f"'{op}' expects an f32 {what}scale, got {scale_t.element_type}")
    if not _is_int(zp_t.element_type):
        raise RelayTypeError(
            f"'{op}' expects an integer {what}zero point, got {zp_t.element_type}"
        )
    rank = len(data.get_shape())
    if block_size:
        if block_size < 0 or rank == 0:
            raise RelayTypeError(f"'{op}' block_size must be >= 0 on a ranked tensor")
        expected = blocked_shape(data.get_shape(), normalize_axis(op, axis, rank), block_size)
        for name, t in ((f"{what}scale", scale_t), (f"{what}zero point", zp_t)):
            if tuple(t.get_shape()) != expected:
                raise RelayTypeError(
                    f"'{op}' block-wise {name} must have shape {shape_str(expected)} "
                    f"(blocks of {block_size} along axis {axis} of "
                    f"{shape_str(data.get_shape())}), got {shape_str(t.get_shape())}"
                )
        return
    for name, t in ((f"{what}scale", scale_t), (f"{what}zero point", zp_t)):
        shape = t.get_shape()
        if len(shape) > 1:
            raise RelayTypeError(
                f"'{op}' {name} must be a scalar or 1-d, got {shape_str(shape)}"
            )
        size = shape[0] if shape else 1
        if size == 1:
            continue
        a = normalize_axis(op, axis, max(rank, 1))
        if rank == 0 or size != data.get_shape()[a]:
            raise RelayTypeError(
                f"'{op}' per-axis {name} has {size} values, but axis {axis} of "
                f"{shape_str(data.get_shape())} has "
                f"{data.get_shape()[a] if rank else 'no'} elements"
            )


def blocked_shape(shape: Sequence[int], axis: int, block_size: int) -> tuple[int, ...]:
    """The shape of block-wise parameters of a tensor of ``shape``: one
    value per ``block_size`` elements along ``axis`` (ONNX opset 21)."""
    out = list(shape)
    out[axis] = -(-out[axis] // block_size)
    return tuple(out)


def _quantized_dtype(op: str, dtype: str) -> Attribute:
    if dtype not in QUANTIZED_DTYPES:
        raise RelayTypeError(
            f"'{op}' out_dtype must be one of {', '.join(QUANTIZED_DTYPES)}, got '{dtype}'"
        )
    return dtype_element_type(op, dtype)


def _quantized(op: str, ty: Attribute, what: str) -> TensorType:
    t = tensor_type(op, ty, what)
    if not _is_int(t.element_type):
        raise RelayTypeError(f"'{op}' expects an integer {what}, got {t.element_type}")
    return t


class QnnOp(RelayOp):
    """Base of the qnn ops: opaque to fusion (``qnn-canonicalize`` runs
    first), pure, functional assembly format."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    traits = traits_def(Pure())


@irdl_op_definition
class QuantizeOp(QnnOp):
    """``saturate(round(data / scale) + zero_point)`` to ``out_dtype``, halves
    rounded to even (ONNX ``QuantizeLinear``). Per-axis parameters apply
    along ``axis`` (default 1, ONNX's); with ``block_size > 0`` the
    parameters are block-wise: they have the data's shape but for ``axis``,
    where one value covers ``block_size`` consecutive elements. The zero
    point has ``out_dtype``.

    ```mlir
    %q = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    ```
    """

    name = "qnn.quantize"
    data = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    out_dtype = prop_def(StringAttr, default_value=StringAttr("int8"))
    block_size = prop_def(IntegerAttr, default_value=i64_attr(0))
    assembly_format = functional_format("data", "scale", "zero_point")

    def __init__(
        self,
        data: SSAValue,
        scale: SSAValue,
        zero_point: SSAValue,
        axis: int | None = None,
        out_dtype: str | None = None,
        block_size: int | None = None,
    ):
        super().__init__(
            data, scale, zero_point, axis=axis, out_dtype=out_dtype, block_size=block_size
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        if data.element_type != f32:
            raise RelayTypeError(f"'{cls.name}' expects f32 data, got {data.element_type}")
        check_qparams(
            cls.name, data, *operand_types[1:3], attrs["axis"], block_size=attrs["block_size"]
        )
        out = _quantized_dtype(cls.name, attrs["out_dtype"])
        zp = operand_types[2]
        assert isinstance(zp, TensorType)
        if zp.element_type != out:
            raise RelayTypeError(
                f"'{cls.name}' zero point is {zp.element_type}, but out_dtype is "
                f"'{attrs['out_dtype']}'"
            )
        return [TensorType(out, data.get_shape())]


@irdl_op_definition
class DequantizeOp(QnnOp):
    """``(data - zero_point) * scale`` as ``f32`` (ONNX ``DequantizeLinear``);
    per-axis parameters along ``axis`` (default 1), block-wise ones with
    ``block_size > 0`` (as ``qnn.quantize``). The zero point has the data's
    element type.

    ```mlir
    %x = qnn.dequantize %q, %s, %z : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
    ```
    """

    name = "qnn.dequantize"
    data = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    block_size = prop_def(IntegerAttr, default_value=i64_attr(0))
    assembly_format = functional_format("data", "scale", "zero_point")

    def __init__(
        self,
        data: SSAValue,
        scale: SSAValue,
        zero_point: SSAValue,
        axis: int | None = None,
        block_size: int | None = None,
    ):
        super().__init__(data, scale, zero_point, axis=axis, block_size=block_size)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _quantized(cls.name, operand_types[0], "data")
        check_qparams(
            cls.name, data, *operand_types[1:3], attrs["axis"], block_size=attrs["block_size"]
        )
        zp = operand_types[2]
        assert isinstance(zp, TensorType)
        if zp.element_type != data.element_type:
            raise RelayTypeError(
                f"'{cls.name}' zero point is {zp.element_type}, but the data is "
                f"{data.element_type}"
            )
        return [TensorType(f32, data.get_shape())]


COMPUTE_DTYPES = ("float32", "int64")


@irdl_op_definition
class RequantizeOp(QnnOp):
    """Changes the quantization of ``data`` (any integers, e.g. an ``i32``
    accumulator) from ``(input_scale, input_zero_point)`` to
    ``(output_scale, output_zero_point)`` in ``out_dtype``:
    ``saturate(round((data - zp_in) * scale_in / scale_out) + zp_out)``.

    ``compute_dtype`` says how (TVM's attribute of that name):
    ``"float32"`` multiplies in ``f32`` by ``scale_in / scale_out`` and
    rounds halves to even, which is what onnxruntime does (its MLAS
    requantization), so results match it exactly; ``"int64"`` is TVM's
    fixed-point multiply (a Q31 multiplier and a right shift, halves rounded
    up), which may differ from it by one step. Per-axis input scales (a conv's
    ``scale_x * scale_w[c]``) apply along ``axis``.

    ```mlir
    %q = qnn.requantize %acc, %si, %zi, %so, %zo {out_dtype = "uint8"} : (tensor<1x8xi32>, tensor<8xf32>, tensor<i32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    ```
    """

    name = "qnn.requantize"
    data = operand_def(TensorType)
    input_scale = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    out_dtype = prop_def(StringAttr, default_value=StringAttr("int8"))
    compute_dtype = prop_def(StringAttr, default_value=StringAttr("float32"))
    assembly_format = functional_format(
        "data", "input_scale", "input_zero_point", "output_scale", "output_zero_point"
    )

    def __init__(
        self,
        data: SSAValue,
        input_scale: SSAValue,
        input_zero_point: SSAValue,
        output_scale: SSAValue,
        output_zero_point: SSAValue,
        axis: int | None = None,
        out_dtype: str | None = None,
        compute_dtype: str | None = None,
    ):
        super().__init__(
            data,
            input_scale,
            input_zero_point,
            output_scale,
            output_zero_point,
            axis=axis,
            out_dtype=out_dtype,
            compute_dtype=compute_dtype,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _quantized(cls.name, operand_types[0], "data")
        check_qparams(cls.name, data, operand_types[1], operand_types[2], attrs["axis"], "input ")
        check_qparams(
            cls.name, data, operand_types[3], operand_types[4], attrs["axis"], "output "
        )
        if attrs["compute_dtype"] not in COMPUTE_DTYPES:
            raise RelayTypeError(
                f"'{cls.name}' compute_dtype must be one of {', '.join(COMPUTE_DTYPES)}, "
                f"got '{attrs['compute_dtype']}'"
            )
        out = _quantized_dtype(cls.name, attrs["out_dtype"])
        return [TensorType(out, data.get_shape())]


class ProductOp(QnnOp):
    """What the quantized products (``qnn.conv2d``, ``qnn.dense``) share: the
    data and weight, their zero points, then their scales (carried for the
    requantize that follows), and an ``i32`` result."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    data_zero_point = operand_def(TensorType)
    weight_zero_point = operand_def(TensorType)
    data_scale = operand_def(TensorType)
    weight_scale = operand_def(TensorType)
    result = result_def(TensorType)
    out_dtype = prop_def(StringAttr, default_value=StringAttr("int32"))
    assembly_format = functional_format(
        "data", "weight", "data_zero_point", "weight_zero_point", "data_scale", "weight_scale"
    )

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        data_zero_point: SSAValue,
        weight_zero_point: SSAValue,
        data_scale: SSAValue,
        weight_scale: SSAValue,
        **attrs: Any,
    ):
        super().__init__(
            data, weight, data_zero_point, weight_zero_point, data_scale, weight_scale, **attrs
        )

    @classmethod
    def check_out_dtype(cls, attrs: Mapping[str, Any]) -> None:
        if attrs["out_dtype"] != "int32":
            raise RelayTypeError(
                f"'{cls.name}' out_dtype must be 'int32', got {attrs['out_dtype']}"
            )


@irdl_op_definition
class Conv2dOp(ProductOp):
    """The ``i32`` convolution of two quantized tensors, zero points
    subtracted: ``conv(data - data_zp, weight - weight_zp)`` (NCHW data, OIHW
    weight; the attributes of ``relay.nn.conv2d``). The scales are carried
    for the requantize that follows (the result's scale is ``data_scale *
    weight_scale``, per output channel when the weight's is); the weight's
    zero point may be per output channel.

    ```mlir
    %y = qnn.conv2d %x, %w, %xz, %wz, %xs, %ws {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<ui8>, tensor<4xi8>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
    ```
    """

    name = "qnn.conv2d"
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    groups = prop_def(IntegerAttr, default_value=i64_attr(1))

    def __init__(
        self,
        *operands: SSAValue,
        strides: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        groups: int | None = None,
    ):
        """The six operands of :class:`ProductOp`, optionally followed by
        ``strides, padding, dilation, groups`` (positionally or by name)."""
        given = dict(zip(("strides", "padding", "dilation", "groups"), operands[6:]))
        named = {"strides": strides, "padding": padding, "dilation": dilation, "groups": groups}
        attrs = {k: given.get(k, v) for k, v in named.items()}
        super().__init__(*operands[:6], **attrs)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _quantized(cls.name, operand_types[0], "data")
        weight = _quantized(cls.name, operand_types[1], "weight")
        check_qparams(cls.name, data, operand_types[4], operand_types[2], 1, "data ")
        check_qparams(cls.name, weight, operand_types[5], operand_types[3], 0, "weight ")
        cls.check_out_dtype(attrs)
        conv_attrs = {k: attrs[k] for k in ("strides", "padding", "dilation", "groups")}
        same = TensorType(data.element_type, weight.get_shape())
        try:
            (out,) = relay_conv.Conv2dOp.infer(
                [data, same], relay_conv.Conv2dOp.with_defaults(conv_attrs | {"out_dtype": "int32"})
            )
        except RelayTypeError as e:
            raise RelayTypeError(str(e).replace("relay.nn.conv2d", cls.name)) from None
        return [out]


@irdl_op_definition
class DenseOp(ProductOp):
    """``(data - data_zp) · (weight - weight_zp)ᵀ`` in ``i32``: data
    ``[..., K]``, weight ``[N, K]`` (weight zero point per-tensor or per
    output row ``N``); scales carried as for :class:`Conv2dOp`.

    ```mlir
    %y = qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<2x16xui8>, tensor<8x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x8xi32>
    ```
    """

    name = "qnn.dense"

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _quantized(cls.name, operand_types[0], "data")
        weight = _quantized(cls.name, operand_types[1], "weight")
        d, w = data.get_shape(), weight.get_shape()
        if len(d) < 1 or len(w) != 2 or d[-1] != w[1]:
            raise RelayTypeError(
                f"'{cls.name}' expects data [..., K] and a weight [N, K], got "
                f"{shape_str(d)} and {shape_str(w)}"
            )
        check_qparams(
            cls.name, TensorType(data.element_type, []), operand_types[4], operand_types[2], 0,
            "data ",
        )
        check_qparams(cls.name, weight, operand_types[5], operand_types[3], 0, "weight ")
        cls.check_out_dtype(attrs)
        return [TensorType(dtype_element_type(cls.name, "int32"), [*d[:-1], w[0]])]


@irdl_op_definition
class MatmulOp(QnnOp):
    """``(a - a_zp) · (b - b_zp)`` in ``i32`` with NumPy batch broadcasting
    (``a [..., M, K]``, ``b [..., K, N]``; ONNX ``QLinearMatMul`` and
    ``MatMulInteger`` when ``b`` is not a 2-d weight). ``a``'s parameters
    are per-tensor, ``b``'s per-tensor or per column (``N``).

    ```mlir
    %y = qnn.matmul %a, %b, %az, %bz, %as, %bs : (tensor<2x2x4xui8>, tensor<2x4x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<2x2x3xi32>
    ```
    """

    name = "qnn.matmul"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    a_zero_point = operand_def(TensorType)
    b_zero_point = operand_def(TensorType)
    a_scale = operand_def(TensorType)
    b_scale = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = functional_format(
        "a", "b", "a_zero_point", "b_zero_point", "a_scale", "b_scale"
    )

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        a_zero_point: SSAValue,
        b_zero_point: SSAValue,
        a_scale: SSAValue,
        b_scale: SSAValue,
    ):
        super().__init__(a, b, a_zero_point, b_zero_point, a_scale, b_scale)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        a = _quantized(cls.name, operand_types[0], "a")
        b = _quantized(cls.name, operand_types[1], "b")
        scalar = TensorType(a.element_type, [])
        check_qparams(cls.name, scalar, operand_types[4], operand_types[2], 0, "a ")
        check_qparams(cls.name, b, operand_types[5], operand_types[3], -1, "b ")
        same = TensorType(a.element_type, b.get_shape())
        try:
            (out,) = relay_nn.MatmulOp.infer([a, same], relay_nn.MatmulOp.with_defaults({}))
        except RelayTypeError as e:
            raise RelayTypeError(str(e).replace("relay.nn.matmul", cls.name)) from None
        assert isinstance(out, TensorType)
        return [TensorType(dtype_element_type(cls.name, "int32"), out.get_shape())]


class BinaryQnnOp(QnnOp):
    """Base of ``qnn.add`` and ``qnn.mul``: two quantized tensors of one
    element type (broadcasting), each with its per-tensor scale and zero
    point, and the output's; the result has the lhs's element type."""

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    lhs_scale = operand_def(TensorType)
    lhs_zero_point = operand_def(TensorType)
    rhs_scale = operand_def(TensorType)
    rhs_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = functional_format(
        "lhs",
        "rhs",
        "lhs_scale",
        "lhs_zero_point",
        "rhs_scale",
        "rhs_zero_point",
        "output_scale",
        "output_zero_point",
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, *qparams: SSAValue):
        super().__init__(lhs, rhs, *qparams)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        lhs = _quantized(cls.name, operand_types[0], "lhs")
        rhs = _quantized(cls.name, operand_types[1], "rhs")
        if lhs.element_type != rhs.element_type:
            raise RelayTypeError(
                f"'{cls.name}' operands must have one element type, got "
                f"{lhs.element_type} and {rhs.element_type}"
            )
        shape = broadcast_shapes(cls.name, lhs.get_shape(), rhs.get_shape())
        out = TensorType(lhs.element_type, shape)
        for what, t, k in (("lhs ", lhs, 2), ("rhs ", rhs, 4), ("output ", out, 6)):
            scalar = TensorType(t.element_type, [])
            check_qparams(cls.name, scalar, *operand_types[k : k + 2], 0, what)
        return [out]


@irdl_op_definition
class AddOp(BinaryQnnOp):
    """Quantized ``lhs + rhs`` (ONNX ``com.microsoft.QLinearAdd``): the sum of
    the reals, quantized with the output parameters.

    ```mlir
    %y = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<1x8xui8>, tensor<1x8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    ```
    """

    name = "qnn.add"


@irdl_op_definition
class MulOp(BinaryQnnOp):
    """Quantized ``lhs * rhs`` (ONNX ``com.microsoft.QLinearMul``): the
    integer product of the centred values, quantized with the output
    parameters.

    ```mlir
    %y = qnn.mul %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<1x8xui8>, tensor<1x8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    ```
    """

    name = "qnn.mul"


@irdl_op_definition
class ConcatenateOp(QnnOp):
    """Concatenation along ``axis`` of quantized tensors of different
    quantizations, requantized to the output's (ONNX
    ``com.microsoft.QLinearConcat``). The operands are the ``n`` inputs, then
    their ``n`` scales, their ``n`` zero points, the output scale and the
    output zero point (all per-tensor).

    ```mlir
    %y = qnn.concatenate %a, %b, %sa, %sb, %za, %zb, %sy, %zy {axis = 1 : i64} : (tensor<1x2xui8>, tensor<1x3xui8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5xui8>
    ```
    """

    name = "qnn.concatenate"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    args = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(0))
    assembly_format = "$args attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        scales: Sequence[SSAValue],
        zero_points: Sequence[SSAValue],
        output_scale: SSAValue,
        output_zero_point: SSAValue,
        axis: int | None = None,
    ):
        super().__init__(
            [*inputs, *scales, *zero_points, output_scale, output_zero_point], axis=axis
        )

    @staticmethod
    def count(num_operands: int) -> int:
        """The number of concatenated inputs among ``num_operands`` operands."""
        return (num_operands - 2) // 3

    def parts(self) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue], SSAValue, SSAValue]:
        """The inputs, their scales, their zero points, the output scale and zero point."""
        n = self.count(len(self.args))
        a = list(self.args)
        return a[:n], a[n : 2 * n], a[2 * n : 3 * n], a[-2], a[-1]

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        n = cls.count(len(operand_types))
        if n < 1 or len(operand_types) != 3 * n + 2:
            raise RelayTypeError(
                f"'{cls.name}' expects n inputs, n scales, n zero points, an output scale "
                f"and zero point (3n + 2 operands), got {len(operand_types)}"
            )
        inputs = [_quantized(cls.name, t, f"input {i}") for i, t in enumerate(operand_types[:n])]
        try:
            (out,) = RelayConcatenateOp.infer(inputs, {"axis": attrs["axis"]})
        except RelayTypeError as e:
            raise RelayTypeError(str(e).replace("relay.concatenate", cls.name)) from None
        assert isinstance(out, TensorType)
        scalar = TensorType(out.element_type, [])
        for i in range(n):
            check_qparams(
                cls.name, scalar, operand_types[n + i], operand_types[2 * n + i], 0, f"input {i} "
            )
        check_qparams(cls.name, scalar, operand_types[-2], operand_types[-1], 0, "output ")
        return [out]


@irdl_op_definition
class AvgPool2dOp(QnnOp):
    """Mean over each window of quantized NCHW data, quantized with the output
    parameters (ONNX ``com.microsoft.QLinearAveragePool`` and, with the
    whole image as window, ``QLinearGlobalAveragePool``); the attributes of
    ``relay.nn.avg_pool2d``.

    ```mlir
    %y = qnn.avg_pool2d %x, %sx, %zx, %sy, %zy {pool_size = array<i64: 7, 7>} : (tensor<1x8x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x1x1xui8>
    ```
    """

    name = "qnn.avg_pool2d"
    data = operand_def(TensorType)
    input_scale = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    pool_size = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    ceil_mode = prop_def(BoolAttr, default_value=bool_attr(False))
    count_include_pad = prop_def(BoolAttr, default_value=bool_attr(False))
    assembly_format = functional_format(
        "data", "input_scale", "input_zero_point", "output_scale", "output_zero_point"
    )

    POOL_ATTRS: ClassVar[tuple[str, ...]] = (
        "pool_size",
        "strides",
        "dilation",
        "padding",
        "ceil_mode",
        "count_include_pad",
    )

    def __init__(self, data: SSAValue, *qparams: SSAValue, **pool_attrs: Any):
        super().__init__(data, *qparams, **pool_attrs)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _quantized(cls.name, operand_types[0], "data")
        scalar = TensorType(data.element_type, [])
        check_qparams(cls.name, scalar, operand_types[1], operand_types[2], 0, "input ")
        check_qparams(cls.name, scalar, operand_types[3], operand_types[4], 0, "output ")
        pool = {k: attrs[k] for k in cls.POOL_ATTRS}
        try:
            (out,) = relay_pool.AvgPool2dOp.infer([data], pool)
        except RelayTypeError as e:
            raise RelayTypeError(str(e).replace("relay.nn.avg_pool2d", cls.name)) from None
        return [out]


QNN_OPS = (
    QuantizeOp,
    DequantizeOp,
    RequantizeOp,
    Conv2dOp,
    DenseOp,
    MatmulOp,
    AddOp,
    MulOp,
    ConcatenateOp,
    AvgPool2dOp,
)

