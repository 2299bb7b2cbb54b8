"""Quantization ops → ``qnn`` ops: ONNX's ``QuantizeLinear``,
``DequantizeLinear``, ``DynamicQuantizeLinear``, ``QLinearConv``,
``QLinearMatMul``, ``ConvInteger`` and ``MatMulInteger``, and the
``com.microsoft`` QOperator ops onnxruntime's quantizer emits
(``QLinearAdd``, ``QLinearMul``, ``QLinearConcat``,
``QLinearAveragePool``, ``QLinearGlobalAveragePool``, ``QLinearSigmoid``,
``QLinearLeakyRelu``, ``QLinearSoftmax``, ``QGemm``), in ``MS_CONVERTERS``.

Scales become ``f32`` operands and zero points integer operands of the qnn
ops (a missing zero point is a ``0`` of the output type). Requantization
uses ``compute_dtype = "float32"``, onnxruntime's arithmetic (see
``qnn.requantize``). ``QLinearSigmoid`` and ``QLinearSoftmax`` are
``dequantize → op → quantize``: onnxruntime also computes them in float
(through a lookup table); ``QLinearLeakyRelu`` is two requantizes and a
select. Block-wise parameters
(``block_size``, opset 21) are supported; the float8/int4/int2 types are
not, and the error names the input.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.dialects import qnn
from xtvm.dialects.relay import (
    AddOp,
    BiasAddOp,
    CastOp,
    ClipOp,
    DivideOp,
    LessOp,
    MaximumOp,
    MaxOp,
    MinimumOp,
    MinOp,
    MultiplyOp,
    ReshapeOp,
    RoundOp,
    SigmoidOp,
    SoftmaxOp,
    SubtractOp,
    TransposeOp,
    WhereOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.dtypes import dtype_name, is_reduced_float
from xtvm.frontend.onnx import conv as onnx_conv
from xtvm.frontend.onnx import nn as onnx_nn
from xtvm.frontend.onnx.conv import _group, spatial_rank, window
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.pool import _flag, _pool_window


def _dtype(value: SSAValue) -> str:
    assert isinstance(value.type, TensorType)
    return dtype_name(value.type.element_type)


def _f32(node: OnnxNode, value: SSAValue) -> SSAValue:
    return value if _dtype(value) == "float32" else node.emit(CastOp(value, "float32"))


def _scale(node: OnnxNode, i: int, block_size: int = 0) -> SSAValue:
    """Input ``i``, a scale, as ``f32``; a scalar or 1-d tensor (any rank
    for block-wise parameters)."""
    value = _f32(node, node.input(i))
    if len(static_shape(value)) > 1 and not block_size:
        raise node.error(
            f"{node.input_label(i)} must be a scalar or 1-d, got {shape_str(static_shape(value))}"
        )
    return value


def _zero_point(node: OnnxNode, i: int, dtype: str = "uint8", shape=()) -> SSAValue:
    """Input ``i``, a zero point; zeros of ``dtype`` (and the scale's
    ``shape``) when absent."""
    if node.has_input(i):
        return node.input(i)
    return node.const(np.zeros(shape, dtype))


def _axis(node: OnnxNode, rank: int, param: SSAValue) -> int:
    """The ``axis`` attribute (default 1) as a non-negative axis, checked only
    for per-axis parameters."""
    axis = node.attr("axis", 1)
    if static_shape(param) and static_shape(param)[0] != 1:
        if not -rank <= axis < rank:
            raise node.error(f"attribute 'axis' = {axis} is out of range for rank {rank}")
        return axis % rank
    return axis % rank if rank else 0


def _along(node: OnnxNode, param: SSAValue, axis: int, data: SSAValue, block_size: int) -> SSAValue:
    """A per-tensor or per-axis parameter shaped to broadcast against
    ``data`` along ``axis`` (the float8/float4 path, which has no
    ``qnn`` op to do it)."""
    if block_size:
        raise node.error("block-wise parameters of a float8/float4 quantization are not supported")
    shape, rank = static_shape(param), len(static_shape(data))
    if not shape or shape[0] == 1 or rank <= 1:
        return param if len(shape) <= rank else node.emit(ReshapeOp(param, []))
    target = [1] * rank
    target[axis] = shape[0]
    return node.emit(ReshapeOp(param, target))


def _block_size(node: OnnxNode) -> int:
    """Attribute ``block_size`` (opset 21): 0, or block-wise parameters."""
    size = node.attr("block_size", 0)
    if size < 0:
        raise node.unsupported_attr("block_size", "it must be >= 0", 0)
    return size


def _param_axis(node: OnnxNode, rank: int, param: SSAValue, block_size: int) -> int:
    return node.attr("axis", 1) % rank if block_size else _axis(node, rank, param)


class QuantizeLinear(OnnxOpConverter):
    """``QuantizeLinear`` → ``qnn.quantize``: ``saturate(round(x / y_scale)
    + y_zero_point)``, halves to even; the zero point's type (default
    ``uint8``, or ``output_dtype`` from v21) is the output's."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        block_size = _block_size(node)
        x = _f32(node, node.input(0))
        scale = _scale(node, 1, block_size)
        dtype = "uint8"
        if node.attr("output_dtype"):
            from xtvm.frontend.onnx.common import dtype_from_onnx

            dtype = dtype_from_onnx(node.attr("output_dtype"), f"{node.label} output_dtype")
        zp = _zero_point(node, 2, dtype, static_shape(scale))
        axis = _param_axis(node, len(static_shape(x)), scale, block_size)
        if is_reduced_float(_dtype(zp)):  # float8/float4: no rounding to integers
            real = node.emit(DivideOp(x, _along(node, scale, axis, x, block_size)))
            shifted = node.emit(AddOp(real, _f32(node, _along(node, zp, axis, x, block_size))))
            saturate = bool(node.attr("saturate", 1))
            return node.emit(CastOp(shifted, _dtype(zp), saturate=saturate))
        op = qnn.QuantizeOp(x, scale, zp, axis=axis, out_dtype=_dtype(zp), block_size=block_size)
        return node.emit(op)


class DequantizeLinear(OnnxOpConverter):
    """``DequantizeLinear`` → ``qnn.dequantize``: ``(x - x_zero_point) *
    x_scale``, as the scale's float type.

    A dequantized constant (a QDQ model's weight) is not folded at import:
    ``qnn-fake-quantization-to-integer`` needs the ``qnn.dequantize`` to see
    that a float op reads quantized integers (``relay-fold-constant`` folds
    what stays float)."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        if node.folding and not any(n in node.scope.derived for n in node.proto.input):
            node.folding = False
        block_size = _block_size(node)
        x = node.input(0)
        out_dtype = _dtype(node.input(1))
        scale = _scale(node, 1, block_size)
        zp = _zero_point(node, 2, _dtype(x), static_shape(scale))
        axis = _param_axis(node, len(static_shape(x)), scale, block_size)
        if is_reduced_float(_dtype(x)):  # float8/float4: computed in float32
            zp_f32 = _f32(node, _along(node, zp, axis, x, block_size))
            centred = node.emit(SubtractOp(_f32(node, x), zp_f32))
            y = node.emit(MultiplyOp(centred, _along(node, scale, axis, x, block_size)))
        else:
            y = node.emit(qnn.DequantizeOp(x, scale, zp, axis=axis, block_size=block_size))
        return y if out_dtype == "float32" else node.emit(CastOp(y, out_dtype))


class DynamicQuantizeLinear(OnnxOpConverter):
    """``DynamicQuantizeLinear``: the ``uint8`` quantization of ``x`` over
    its range extended to 0, computed at run time: ``scale = (max(0, max(x))
    - min(0, min(x))) / 255``, ``zero_point = saturate(round(-min / scale))``,
    then ``qnn.quantize`` with them."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> list[SSAValue]:
        x = _f32(node, node.input(0))
        zero = node.const(np.zeros((), np.float32))
        lo = node.emit(MinimumOp(node.emit(MinOp(x)), zero))
        hi = node.emit(MaximumOp(node.emit(MaxOp(x)), zero))
        scale = node.emit(DivideOp(node.emit(SubtractOp(hi, lo)), node.const(np.float32(255.0))))
        zp_real = node.emit(RoundOp(node.emit(DivideOp(node.emit(SubtractOp(zero, lo)), scale))))
        zp = node.emit(CastOp(node.emit(ClipOp(zp_real, 0.0, 255.0)), "uint8"))
        y = node.emit(qnn.QuantizeOp(x, scale, zp, out_dtype="uint8"))
        return [y, scale, zp]


def _requantize(
    node: OnnxNode,
    acc: SSAValue,
    in_scale: SSAValue,
    out_scale: SSAValue,
    out_zp: SSAValue,
    axis: int,
) -> SSAValue:
    """The ``int32`` accumulator ``acc`` (scale ``in_scale``, zero point 0)
    requantized to ``(out_scale, out_zp)``."""
    zero = node.const(np.zeros((), np.int32))
    return node.emit(
        qnn.RequantizeOp(
            acc, in_scale, zero, out_scale, out_zp, axis=axis, out_dtype=_dtype(out_zp)
        )
    )


class QLinearConv(OnnxOpConverter):
    """``QLinearConv`` (2-d) → ``qnn.conv2d``, plus the ``int32`` bias ``B``
    (scale ``x_scale * w_scale``), then ``qnn.requantize`` to ``(y_scale,
    y_zero_point)``. Inputs: x, x_scale, x_zp, w, w_scale, w_zp, y_scale,
    y_zp, B."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        if spatial_rank(node, "QLinearConv") != 2:
            raise node.error("only 2-d QLinearConv (4-d x) is supported")
        w_shape = node.input_shape(3)
        kernel = w_shape[2:]
        win = window(node, node.input_shape(0)[2:], kernel)
        x, x_scale, x_zp = node.input(0), _scale(node, 1), node.input(2)
        w, w_scale, w_zp = node.input(3), _scale(node, 4), node.input(5)
        acc = node.emit(
            qnn.Conv2dOp(
                x,
                w,
                x_zp,
                w_zp,
                x_scale,
                w_scale,
                strides=win.strides,
                padding=win.padding,
                dilation=win.dilations,
                groups=_group(node),
            )
        )
        if node.has_input(8):
            acc = node.emit(BiasAddOp(acc, node.input(8), axis=1))
        acc_scale = node.emit(MultiplyOp(x_scale, w_scale))
        return _requantize(node, acc, acc_scale, _scale(node, 6), node.input(7), 1)


def _dense(node: OnnxNode, a, a_scale, a_zp, b, b_scale, b_zp, trans_b: bool) -> SSAValue:
    """``qnn.dense`` of ``a`` [..., K] and a 2-d ``b`` ([K, N], or [N, K]
    when ``trans_b``); ``qnn.matmul`` for a batched ``b``."""
    if static_shape(a_zp) and static_shape(a_zp)[0] != 1:
        raise node.error("a per-row zero point of the first matrix is not supported")
    if len(static_shape(b)) != 2:
        if trans_b or len(static_shape(a)) < 2 or len(static_shape(b)) < 2:
            raise node.error(
                f"matrices of shapes {shape_str(static_shape(a))} and "
                f"{shape_str(static_shape(b))} are not supported"
            )
        return node.emit(qnn.MatmulOp(a, b, a_zp, b_zp, a_scale, b_scale))
    weight = b if trans_b else node.emit(TransposeOp(b, [1, 0]))
    return node.emit(qnn.DenseOp(a, weight, a_zp, b_zp, a_scale, b_scale))


def _unit_scale(node: OnnxNode) -> SSAValue:
    return node.const(np.ones((), np.float32))


class ConvInteger(onnx_conv.ConvInteger):
    """``ConvInteger`` (2-d) → ``qnn.conv2d`` (the scales are ones): the
    ``int32`` convolution of ``x - x_zero_point`` and ``w - w_zero_point``.
    1-d and 3-d ones stay ``int32`` convolutions of the widened inputs."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        if spatial_rank(node, "ConvInteger") != 2:
            return super()._impl_v10(node)
        win = window(node, node.input_shape(0)[2:], node.input_shape(1)[2:])
        x, w = node.input(0), node.input(1)
        x_zp = _zero_point(node, 2, _dtype(x))
        w_zp = _zero_point(node, 3, _dtype(w))
        op = qnn.Conv2dOp(
            x,
            w,
            x_zp,
            w_zp,
            _unit_scale(node),
            _unit_scale(node),
            strides=win.strides,
            padding=win.padding,
            dilation=win.dilations,
            groups=_group(node),
        )
        return node.emit(op)


class MatMulInteger(onnx_nn.MatMulInteger):
    """``MatMulInteger`` → ``qnn.dense`` (2-d ``B``) or ``qnn.matmul``
    (batched) when ``A`` has rank >= 2 and one zero point; the other cases
    (vectors, a zero point per row of ``A``) stay ``int32`` matrix products
    of the widened inputs."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        a_shape, b_shape = node.input_shape(0), node.input_shape(1)
        per_row = node.has_input(2) and int(np.prod(node.input_shape(2))) > 1
        if len(a_shape) < 2 or len(b_shape) < 2 or per_row:
            return super()._impl_v10(node)
        a, b = node.input(0), node.input(1)
        a_zp, b_zp = _zero_point(node, 2, _dtype(a)), _zero_point(node, 3, _dtype(b))
        one = _unit_scale(node)
        return _dense(node, a, one, a_zp, b, one, b_zp, False)


class QLinearMatMul(OnnxOpConverter):
    """``QLinearMatMul`` with a 2-d ``b`` → ``qnn.dense`` (``b``
    transposed), then ``qnn.requantize``. Inputs: a, a_scale, a_zp, b,
    b_scale, b_zp, y_scale, y_zp."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        a_scale, b_scale = _scale(node, 1), _scale(node, 4)
        acc = _dense(
            node,
            node.input(0),
            a_scale,
            node.input(2),
            node.input(3),
            b_scale,
            node.input(5),
            False,
        )
        acc_scale = node.emit(MultiplyOp(a_scale, b_scale))
        rank = len(static_shape(acc))
        return _requantize(node, acc, acc_scale, _scale(node, 6), node.input(7), rank - 1)


class QGemm(OnnxOpConverter):
    """``com.microsoft.QGemm``: ``alpha · A' · B' + C`` of quantized A, B
    (``C`` an ``int32`` bias of scale ``a_scale * b_scale``); requantized to
    ``(y_scale, y_zp)`` when given, else dequantized to float. Inputs: A,
    a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        if node.attr("transA", 0):
            raise node.unsupported_attr("transA", "a transposed A is not supported", 0)
        a_scale = _scale(node, 1)
        alpha = float(node.attr("alpha", 1.0))
        b_scale = _scale(node, 4)
        acc = _dense(
            node,
            node.input(0),
            a_scale,
            node.input(2),
            node.input(3),
            b_scale,
            node.input(5),
            bool(node.attr("transB", 0)),
        )
        if node.has_input(6):
            acc = node.emit(AddOp(acc, node.input(6)))
        acc_scale = node.emit(MultiplyOp(a_scale, b_scale))
        if alpha != 1.0:
            acc_scale = node.emit(MultiplyOp(acc_scale, node.const(np.float32(alpha))))
        rank = len(static_shape(acc))
        if node.has_input(7):
            out_zp = _zero_point(node, 8)
            return _requantize(node, acc, acc_scale, _scale(node, 7), out_zp, rank - 1)
        zero = node.const(np.zeros((), np.int32))
        return node.emit(qnn.DequantizeOp(acc, acc_scale, zero, axis=rank - 1))


class _QLinearBinary(OnnxOpConverter):
    """``com.microsoft.QLinearAdd``/``QLinearMul`` → ``qnn.add``/``qnn.mul``.
    Inputs: A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp."""

    OP: type[qnn.BinaryQnnOp]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        a, b = node.input(0), node.input(3)
        return node.emit(
            cls.OP(
                a,
                b,
                _scale(node, 1),
                _zero_point(node, 2, _dtype(a)),
                _scale(node, 4),
                _zero_point(node, 5, _dtype(b)),
                _scale(node, 6),
                _zero_point(node, 7, _dtype(a)),
            )
        )


class QLinearAdd(_QLinearBinary):
    OP = qnn.AddOp


class QLinearMul(_QLinearBinary):
    OP = qnn.MulOp


class QLinearConcat(OnnxOpConverter):
    """``com.microsoft.QLinearConcat`` → ``qnn.concatenate``. Inputs:
    Y_scale, Y_zp, then (X, X_scale, X_zp) per input."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        count = (len(node.proto.input) - 2) // 3
        inputs = [node.input(2 + 3 * i) for i in range(count)]
        scales = [_scale(node, 3 + 3 * i) for i in range(count)]
        zps = [node.input(4 + 3 * i) for i in range(count)]
        rank = len(static_shape(inputs[0]))
        axis = node.attr("axis")
        if axis is None or not -rank <= axis < rank:
            raise node.error(f"attribute 'axis' = {axis} must be an axis of rank {rank}")
        out_scale, out_zp = _scale(node, 0), node.input(1)
        op = qnn.ConcatenateOp(inputs, scales, zps, out_scale, out_zp, axis=axis % rank)
        return node.emit(op)


class QLinearAveragePool(OnnxOpConverter):
    """``com.microsoft.QLinearAveragePool`` (2-d, NCHW) → ``qnn.avg_pool2d``.
    Inputs: X, x_scale, x_zp, y_scale, y_zp."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        if node.attr("channels_last", 0):
            raise node.unsupported_attr("channels_last", "only NCHW is supported", 0)
        win = _pool_window(node, "QLinearAveragePool")
        if len(win.kernel) != 2:
            raise node.error("only 2-d QLinearAveragePool is supported")
        return _avg_pool(
            node,
            pool_size=win.kernel,
            strides=win.strides,
            dilation=win.dilations,
            padding=win.padding,
            ceil_mode=_flag(node, "ceil_mode"),
            count_include_pad=_flag(node, "count_include_pad"),
        )


def _avg_pool(node: OnnxNode, **pool) -> SSAValue:
    x = node.input(0)
    zx = _zero_point(node, 2, _dtype(x))
    zy = _zero_point(node, 4, _dtype(x))
    op = qnn.AvgPool2dOp(x, _scale(node, 1), zx, _scale(node, 3), zy, **pool)
    return node.emit(op)


class QLinearGlobalAveragePool(OnnxOpConverter):
    """``com.microsoft.QLinearGlobalAveragePool`` (NCHW) → ``qnn.avg_pool2d``
    over the whole image. Inputs: X, x_scale, x_zp, y_scale, y_zp."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        if node.attr("channels_last", 0):
            raise node.unsupported_attr("channels_last", "only NCHW is supported", 0)
        shape = node.input_shape(0)
        if len(shape) != 4:
            raise node.error(f"only 4-d (NCHW) input is supported, got {shape_str(shape)}")
        return _avg_pool(node, pool_size=shape[2:])


class _FloatLut(OnnxOpConverter):
    """onnxruntime computes these through a float lookup table:
    ``dequantize → op → quantize``. Inputs: X, X_scale, X_zp, Y_scale, Y_zp."""

    @classmethod
    def apply(cls, node: OnnxNode, x: SSAValue) -> SSAValue:
        raise NotImplementedError

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        q = node.input(0)
        real = node.emit(qnn.DequantizeOp(q, _scale(node, 1), _zero_point(node, 2, _dtype(q))))
        y = cls.apply(node, real)
        zp = _zero_point(node, 4, _dtype(q))
        return node.emit(qnn.QuantizeOp(y, _scale(node, 3), zp, out_dtype=_dtype(zp)))


class QLinearSigmoid(_FloatLut):
    @classmethod
    def apply(cls, node: OnnxNode, x: SSAValue) -> SSAValue:
        return node.emit(SigmoidOp(x))


class QLinearLeakyRelu(OnnxOpConverter):
    """``com.microsoft.QLinearLeakyRelu`` in integers: each value requantized
    with scale ``x_scale`` (``x >= x_zp``) or ``alpha * x_scale`` (below).
    Inputs: X, X_scale, X_zp, Y_scale, Y_zp."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        x_scale, x_zp = _scale(node, 1), _zero_point(node, 2, _dtype(x))
        y_scale, y_zp = _scale(node, 3), _zero_point(node, 4, _dtype(x))
        alpha = node.const(np.float32(node.attr("alpha", 0.01)))
        neg_scale = node.emit(MultiplyOp(x_scale, alpha))
        out = {"out_dtype": _dtype(y_zp)}
        positive = node.emit(qnn.RequantizeOp(x, x_scale, x_zp, y_scale, y_zp, **out))
        negative = node.emit(qnn.RequantizeOp(x, neg_scale, x_zp, y_scale, y_zp, **out))
        below = node.emit(LessOp(x, x_zp))
        return node.emit(WhereOp(below, negative, positive))


class QLinearSoftmax(_FloatLut):
    @classmethod
    def apply(cls, node: OnnxNode, x: SSAValue) -> SSAValue:
        rank = len(static_shape(x))
        axis = node.attr("axis", -1 if node.attr("opset", 13) >= 13 else 1)
        if axis % rank != rank - 1:
            raise node.unsupported_attr("axis", "only the last axis is supported", axis)
        return node.emit(SoftmaxOp(x, axis=-1))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "QuantizeLinear": QuantizeLinear,
    "DequantizeLinear": DequantizeLinear,
    "DynamicQuantizeLinear": DynamicQuantizeLinear,
    "QLinearConv": QLinearConv,
    "QLinearMatMul": QLinearMatMul,
    "ConvInteger": ConvInteger,
    "MatMulInteger": MatMulInteger,
}

MS_CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "QLinearAdd": QLinearAdd,
    "QLinearMul": QLinearMul,
    "QLinearConcat": QLinearConcat,
    "QLinearAveragePool": QLinearAveragePool,
    "QLinearGlobalAveragePool": QLinearGlobalAveragePool,
    "QLinearSigmoid": QLinearSigmoid,
    "QLinearLeakyRelu": QLinearLeakyRelu,
    "QLinearSoftmax": QLinearSoftmax,
    "QGemm": QGemm,
}
"""The ``com.microsoft`` domain's ops onnxruntime's quantizer emits."""
