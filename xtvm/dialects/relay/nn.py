"""Neural-network ops: ``relay.nn.*`` (TVM's ``relay.nn`` namespace)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    SameTypeOp,
    bool_attr,
    broadcast_shapes,
    check_elements,
    dtype_element_type,
    f64_attr,
    functional_format,
    i64_attr,
    normalize_axis,
    same_element_type,
    same_extent,
    same_extents,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.tensor import UnaryOp


@irdl_op_definition
class ReluOp(UnaryOp):
    """``max(x, 0)`` elementwise.

    ```mlir
    %y = relay.nn.relu %x : tensor<1x128xf32>
    ```
    """

    name = "relay.nn.relu"


def _product_element_type(
    op_name: str, a: TensorType, b: TensorType, out_dtype: str | None
) -> Attribute:
    """The result element type of a matrix product: ``out_dtype`` when given
    (the accumulation type; then integer operands may differ, ``uint8`` data
    and an ``int8`` weight), else the operands' one type."""
    if out_dtype is None:
        return same_element_type(op_name, a, b)
    if not all(isinstance(t.element_type, IntegerType) for t in (a, b)):
        same_element_type(op_name, a, b)
    return dtype_element_type(op_name, out_dtype)


@irdl_op_definition
class DenseOp(RelayOp):
    """``data · weightᵀ``: data ``[..., K]``, weight ``[N, K]`` → ``[..., N]``.
    ``out_dtype`` (optional) is the accumulation and result type, e.g.
    ``"int32"`` for ``uint8``/``int8`` operands (TVM's ``out_dtype``).

    ```mlir
    %y = relay.nn.dense %x, %w : (tensor<1x784xf32>, tensor<128x784xf32>) -> tensor<1x128xf32>
    %q = relay.nn.dense %a, %v {out_dtype = "int32"} : (tensor<2x64xui8>, tensor<16x64xi8>) -> tensor<2x16xi32>
    ```
    """

    name = "relay.nn.dense"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    out_dtype = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(self, data: SSAValue, weight: SSAValue, out_dtype: str | None = None):
        super().__init__(data, weight, out_dtype=out_dtype)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        element = _product_element_type(cls.name, data, weight, attrs.get("out_dtype"))
        d, w = data.get_shape(), weight.get_shape()
        if len(d) < 1 or len(w) != 2:
            raise RelayTypeError(
                f"'{cls.name}' expects data of rank >= 1 and a 2-d weight, "
                f"got {shape_str(d)} and {shape_str(w)}"
            )
        if not same_extent(d[-1], w[1]):
            raise RelayTypeError(
                f"'{cls.name}' reduction sizes differ: data {shape_str(d)} has K={d[-1]}, "
                f"weight {shape_str(w)} has K={w[1]}"
            )
        return [TensorType(element, [*d[:-1], w[0]])]


@irdl_op_definition
class MatmulOp(RelayOp):
    """Batched matrix product with NumPy batch broadcasting.

    ``a [..., M, K] · b [..., K, N] → [..., M, N]``; ``transpose_a`` /
    ``transpose_b`` swap the last two axes of an operand first; ``out_dtype``
    (optional) is the accumulation and result type, as for :class:`DenseOp`.

    ```mlir
    %y = relay.nn.matmul %a, %b {transpose_b = true} : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
    ```
    """

    name = "relay.nn.matmul"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    result = result_def(TensorType)
    transpose_a = prop_def(BoolAttr, default_value=bool_attr(False))
    transpose_b = prop_def(BoolAttr, default_value=bool_attr(False))
    out_dtype = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("a", "b")

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        transpose_a: bool | None = None,
        transpose_b: bool | None = None,
        out_dtype: str | None = None,
    ):
        super().__init__(
            a, b, transpose_a=transpose_a, transpose_b=transpose_b, out_dtype=out_dtype
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        a = tensor_type(cls, operand_types[0], "a")
        b = tensor_type(cls, operand_types[1], "b")
        element = _product_element_type(cls.name, a, b, attrs.get("out_dtype"))
        sa, sb = list(a.get_shape()), list(b.get_shape())
        if len(sa) < 2 or len(sb) < 2:
            raise RelayTypeError(
                f"'{cls.name}' expects operands of rank >= 2, got {shape_str(sa)} and {shape_str(sb)}"
            )
        if attrs["transpose_a"]:
            sa[-2], sa[-1] = sa[-1], sa[-2]
        if attrs["transpose_b"]:
            sb[-2], sb[-1] = sb[-1], sb[-2]
        if not same_extent(sa[-1], sb[-2]):
            raise RelayTypeError(
                f"'{cls.name}' reduction sizes differ: a has K={shape_str(sa[-1:])}, "
                f"b has K={shape_str(sb[-2:-1])}"
            )
        batch = broadcast_shapes(cls.name, sa[:-2], sb[:-2])
        return [TensorType(element, [*batch, sa[-2], sb[-1]])]


@irdl_op_definition
class BiasAddOp(RelayOp):
    """Adds a 1-d bias along ``axis`` (default 1) of ``data``.

    ```mlir
    %y = relay.nn.bias_add %x, %b : (tensor<1x128xf32>, tensor<128xf32>) -> tensor<1x128xf32>
    ```
    """

    name = "relay.nn.bias_add"
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    data = operand_def(TensorType)
    bias = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "bias")

    def __init__(self, data: SSAValue, bias: SSAValue, axis: int | None = None):
        super().__init__(data, bias, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        bias = tensor_type(cls, operand_types[1], "bias")
        same_element_type(cls.name, data, bias)
        shape = data.get_shape()
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        if not same_extents(bias.get_shape(), (shape[axis],)):
            raise RelayTypeError(
                f"'{cls.name}' bias must have shape {shape_str([shape[axis]])} (data axis {axis}), "
                f"got {shape_str(bias.get_shape())}"
            )
        return [data]


class AxisNormOp(SameTypeOp):
    """Base of the ops that normalise along one ``axis`` (default -1) and
    keep the input's type: ``relay.nn.softmax``, ``relay.nn.log_softmax``,
    ``relay.nn.hardmax``. As in TVM, the type rule accepts any element type;
    the computes need floats.

    ```mlir
    %y = relay.nn.softmax %x : tensor<1x10xf32>
    %l = relay.nn.log_softmax %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    axis = prop_def(IntegerAttr, default_value=i64_attr(-1))

    def __init__(self, input: SSAValue, axis: int | None = None):
        super().__init__(input, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        normalize_axis(cls.name, attrs["axis"], len(data.get_shape()))
        return [data]


@irdl_op_definition
class SoftmaxOp(AxisNormOp):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``."""

    name = "relay.nn.softmax"


@irdl_op_definition
class LogSoftmaxOp(AxisNormOp):
    """``x - max - log(sum(exp(x - max)))`` along ``axis``: the logarithm of
    the softmax without its overflow or underflow."""

    name = "relay.nn.log_softmax"


@irdl_op_definition
class HardmaxOp(AxisNormOp):
    """1 at the first maximum along ``axis``, 0 elsewhere (ONNX ``Hardmax``;
    TVM composes it from ``argmax`` and ``one_hot``).

    ```mlir
    %y = relay.nn.hardmax %x {axis = 0 : i64} : tensor<3x4xf32>
    ```
    """

    name = "relay.nn.hardmax"


@irdl_op_definition
class BatchNormOp(RelayOp):
    """Batch normalization for inference, along ``axis`` (default 1):

    ``(data - moving_mean) / sqrt(moving_var + epsilon) * gamma + beta``

    ``gamma``, ``beta``, ``moving_mean`` and ``moving_var`` are 1-d of the
    size of ``data``'s ``axis``; ``scale = false`` drops ``gamma`` and
    ``center = false`` drops ``beta``. TVM's ``nn.batch_norm`` returns a
    3-tuple (output, new mean, new variance) whose last two fields only
    training uses; this op is the inference form and has the normalized
    tensor as its single result.

    ```mlir
    %y = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.000000e-03 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
    """

    name = "relay.nn.batch_norm"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    moving_mean = operand_def(TensorType)
    moving_var = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    epsilon = prop_def(FloatAttr, default_value=f64_attr(1e-5))
    center = prop_def(BoolAttr, default_value=bool_attr(True))
    scale = prop_def(BoolAttr, default_value=bool_attr(True))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "gamma", "beta", "moving_mean", "moving_var")

    def __init__(
        self,
        data: SSAValue,
        gamma: SSAValue,
        beta: SSAValue,
        moving_mean: SSAValue,
        moving_var: SSAValue,
        axis: int | None = None,
        epsilon: float | None = None,
        center: bool | None = None,
        scale: bool | None = None,
    ):
        operands = (data, gamma, beta, moving_mean, moving_var)
        super().__init__(*operands, axis=axis, epsilon=epsilon, center=center, scale=scale)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        names = ("data", "gamma", "beta", "moving_mean", "moving_var")
        data, *params = (tensor_type(cls, t, n) for t, n in zip(operand_types, names))
        same_element_type(cls.name, data, *params)
        shape = data.get_shape()
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        for name, param in zip(names[1:], params):
            if not same_extents(param.get_shape(), (shape[axis],)):
                raise RelayTypeError(
                    f"'{cls.name}' {name} must have shape {shape_str([shape[axis]])} "
                    f"(data axis {axis}), got {shape_str(param.get_shape())}"
                )
        if attrs["epsilon"] < 0:
            raise RelayTypeError(f"'{cls.name}' epsilon must be >= 0, got {attrs['epsilon']}")
        return [data]


@irdl_op_definition
class LrnOp(SameTypeOp):
    """Local response normalization across ``axis`` (default 1), ONNX ``LRN``:

    ``y[c] = x[c] / (bias + alpha / size * sum(x[j] ** 2)) ** beta`` over
    ``j`` in ``[c - (size - 1) // 2, c + size // 2]`` (clipped to the axis);
    note that ``alpha`` is divided by ``size``. Defaults are TVM's (``size =
    5``, ``alpha = 1e-5``, ``beta = 0.75``, ``bias = 2``).

    ```mlir
    %y = relay.nn.lrn %x {size = 5 : i64, alpha = 1.000000e-04 : f64, bias = 1.000000e+00 : f64} : tensor<1x8x4x4xf32>
    ```
    """

    name = "relay.nn.lrn"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    size = prop_def(IntegerAttr, default_value=i64_attr(5))
    axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    alpha = prop_def(FloatAttr, default_value=f64_attr(1e-5))
    beta = prop_def(FloatAttr, default_value=f64_attr(0.75))
    bias = prop_def(FloatAttr, default_value=f64_attr(2.0))

    def __init__(
        self,
        input: SSAValue,
        size: int | None = None,
        axis: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        bias: float | None = None,
    ):
        super().__init__(input, size=size, axis=axis, alpha=alpha, beta=beta, bias=bias)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = check_elements(cls.name, tensor_type(cls, operand_types[0], "its input"), "float")
        normalize_axis(cls.name, attrs["axis"], len(data.get_shape()))
        if attrs["size"] < 1:
            raise RelayTypeError(f"'{cls.name}' size must be >= 1, got {attrs['size']}")
        return [data]


@irdl_op_definition
class DropoutOp(SameTypeOp):
    """Dropout at inference: the identity. ``rate`` in ``[0, 1)`` is kept for
    the record. TVM's ``nn.dropout`` returns (output, mask); this op has the
    output as its single result.

    ```mlir
    %y = relay.nn.dropout %x {rate = 2.000000e-01 : f64} : tensor<1x128xf32>
    ```
    """

    name = "relay.nn.dropout"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    rate = prop_def(FloatAttr, default_value=f64_attr(0.5))

    def __init__(self, input: SSAValue, rate: float | None = None):
        super().__init__(input, rate=rate)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        rate = attrs["rate"]
        if not 0 <= rate < 1:
            raise RelayTypeError(f"'{cls.name}' rate must be in [0, 1), got {rate}")
        return [tensor_type(cls, operand_types[0], "its input")]


@irdl_op_definition
class BatchFlattenOp(RelayOp):
    """Flattens every axis but the first: ``[N, d1, ..., dk]`` → ``[N, d1 * ... * dk]``.

    ```mlir
    %y = relay.nn.batch_flatten %x : (tensor<1x512x1x1xf32>) -> tensor<1x512xf32>
    ```
    """

    name = "relay.nn.batch_flatten"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        if not shape:
            raise RelayTypeError(f"'{cls.name}' expects a tensor of rank >= 1, got a scalar")
        rest = 1
        for d in shape[1:]:
            rest = DYNAMIC_INDEX if DYNAMIC_INDEX in (d, rest) else rest * d
        return [TensorType(data.element_type, [shape[0], rest])]
