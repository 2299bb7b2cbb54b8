"""``qnn-canonicalize``: every ``qnn`` op becomes integer relay ops (TVM's
``relay.qnn.transform.CanonicalizeOps``), one declarative rule per op.

The heavy ops stay integer: a ``qnn.conv2d`` is the ``int32`` convolution
of the raw ``uint8``/``int8`` values (``relay.nn.conv2d`` with
``out_dtype = "int32"``) minus the zero-point corrections, TVM's
decomposition::

    Σ (x - zx)(w - zw) = conv(x, w - zw) - zx · Σ_{c,kh,kw} (w - zw)

with the padding filled with ``zx`` (a real zero). The corrections of
constant weights are relay ops on constants, which ``relay-fold-constant``
folds at compile time; when ``zw`` is a constant zero (onnxruntime's
symmetric ``int8`` weights) the weight stays ``int8``. A ``qnn.dense`` is
likewise the ``int32`` ``relay.nn.dense`` (``out_dtype``) of the raw 8-bit
values plus its zero-point terms, so that the int8 kernels take it. Requantization multiplies the centred ``int32`` values by
``scale_in / scale_out`` in ``float32``, rounds halves to even, adds the
zero point and saturates (``compute_dtype = "float32"``, onnxruntime's MLAS
arithmetic, so results equal onnxruntime's), or uses TVM's fixed-point
multiply and shift in ``int64`` (``compute_dtype = "int64"``, constant
scales).

Scales and zero points are operands: per-axis ones are reshaped to
broadcast along their axis; the arithmetic on constant ones folds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from ml_dtypes import iinfo
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.constants import dense_from_numpy
from xtvm.dialects import qnn
from xtvm.dialects.relay import (
    AddOp,
    AvgPool2dOp,
    BroadcastToOp,
    CastOp,
    ClipOp,
    ConcatenateOp,
    ConstOp,
    Conv2dOp,
    DenseOp,
    DivideOp,
    MatmulOp,
    MultiplyOp,
    PadOp,
    ReshapeOp,
    RightShiftOp,
    RoundOp,
    StridedSliceOp,
    SubtractOp,
    SumOp,
)
from xtvm.dtypes import dtype_name
from xtvm.passes.qnn import params as qnn_params
from xtvm.reference.qnn import along, fixed_point
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite


SATURATING_CASTS = frozenset({"uint8", "int8", "uint16", "int16"})
"""Integer types a float ``relay.cast`` saturates to exactly (the quantized
value needs no clip before it)."""


@dataclass
class _Builder:
    """Collects the ops of one replacement, in order."""

    ops: list[Operation] = field(default_factory=list)

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, array: np.ndarray) -> SSAValue:
        return self(ConstOp(dense_from_numpy(np.asarray(array))))

    def cast(self, value: SSAValue, dtype: str) -> SSAValue:
        return value if _dtype(value) == dtype else self(CastOp(value, dtype))

    def along(self, param: SSAValue, axis: int, rank: int) -> SSAValue:
        """A per-tensor or per-axis parameter reshaped to broadcast along
        ``axis`` of a rank-``rank`` tensor (one of that rank as it is)."""
        shape = _shape(param)
        if not shape or len(shape) == rank:
            return param
        if shape[0] == 1:
            return self(ReshapeOp(param, []))
        target = [1] * rank
        target[axis % rank] = shape[0]
        return self(ReshapeOp(param, target))

    def blocks(self, param: SSAValue, axis: int, block_size: int, size: int) -> SSAValue:
        """Block-wise parameters repeated ``block_size`` times along ``axis``
        (reshape, broadcast, reshape), cut to ``size`` elements there."""
        shape = list(_shape(param))
        n = shape[axis]
        split = shape[: axis + 1] + [1] + shape[axis + 1 :]
        wide = shape[: axis + 1] + [block_size] + shape[axis + 1 :]
        value = self(BroadcastToOp(self(ReshapeOp(param, split)), wide))
        full = shape[:axis] + [n * block_size] + shape[axis + 1 :]
        value = self(ReshapeOp(value, full))
        if n * block_size != size:
            value = self(StridedSliceOp(value, [0], [size], axes=[axis]))
        return value

    def params(self, root: Operation, data: SSAValue) -> tuple[SSAValue, SSAValue]:
        """The scale and zero point of a quantize or dequantize, as they
        broadcast against ``data``."""
        rank = len(_shape(data))
        axis = root.attrs["axis"] % rank if rank else 0  # a scalar: per-tensor
        scale, zp = root.operands[1], root.operands[2]
        if root.attrs["block_size"]:
            size, bs = _shape(data)[axis], root.attrs["block_size"]
            return self.blocks(scale, axis, bs, size), self.blocks(zp, axis, bs, size)
        return self.along(scale, axis, rank), self.along(zp, axis, rank)

    def centred(self, q: SSAValue, zero_point: SSAValue, axis: int, dtype: str = "int32"):
        """``q - zero_point`` in ``dtype``."""
        rank = len(_shape(q))
        zp = self.cast(self.along(zero_point, axis, rank), dtype)
        return self(SubtractOp(self.cast(q, dtype), zp))

    def quantized(self, real: SSAValue, zero_point: SSAValue, axis: int, out_dtype: str):
        """``saturate(round(real) + zero_point)`` in ``out_dtype`` (``real`` f32).

        To 8 and 16 bits the float → int ``relay.cast`` saturates by itself
        (to the type's bounds, NaN to 0, as a clip to them would and then
        the cast), so no ``relay.clip`` comes first: two min/max and a NaN
        select less a vector in every requantize epilogue."""
        rank = len(_shape(real))
        rounded = self(RoundOp(real))
        shifted = self(AddOp(rounded, self.cast(self.along(zero_point, axis, rank), "float32")))
        if out_dtype in SATURATING_CASTS:
            return self.cast(shifted, out_dtype)
        info = iinfo(out_dtype)  # ml_dtypes': int4 and int2 too
        return self.cast(self(ClipOp(shifted, float(info.min), float(info.max))), out_dtype)

    def requantize(
        self,
        data: SSAValue,
        in_scale: SSAValue,
        in_zp: SSAValue,
        out_scale: SSAValue,
        out_zp: SSAValue,
        axis: int,
        out_dtype: str,
    ) -> SSAValue:
        """The ``float32`` requantization (onnxruntime's)."""
        rank = len(_shape(data))
        centred = self.cast(self.centred(data, in_zp, axis), "float32")
        ratio = self(DivideOp(self.along(in_scale, axis, rank), self.along(out_scale, axis, rank)))
        return self.quantized(self(MultiplyOp(centred, ratio)), out_zp, axis, out_dtype)


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def _dtype(value: SSAValue) -> str:
    assert isinstance(value.type, TensorType)
    return dtype_name(value.type.element_type)


def _is_zero(value: SSAValue) -> bool:
    """``value`` is a constant whose elements are all zero."""
    array = qnn_params.constant(value)
    return array is not None and not array.any()


def _quantize(root: qnn.QuantizeOp) -> list[Operation]:
    b = _Builder()
    scale, zp = b.params(root, root.data)
    real = b(DivideOp(root.data, scale))
    b.quantized(real, zp, root.attrs["axis"], root.attrs["out_dtype"])
    return b.ops


def _dequantize(root: qnn.DequantizeOp) -> list[Operation]:
    b = _Builder()
    scale, zp = b.params(root, root.data)
    centred = b.cast(b.centred(root.data, zp, root.attrs["axis"]), "float32")
    b(MultiplyOp(centred, scale))
    return b.ops


def _requantize_float(root: qnn.RequantizeOp) -> list[Operation]:
    b = _Builder()
    a = root.attrs
    b.requantize(root.data, *root.operands[1:], a["axis"], a["out_dtype"])
    return b.ops


def _requantize_int64(root: qnn.RequantizeOp) -> list[Operation]:
    """TVM's fixed point: ``(x · q + 2^(t-1)) >> t`` with ``t = 31 - shift``."""
    b = _Builder()
    a = root.attrs
    axis, rank = a["axis"], len(_shape(root.data))
    scale_in = qnn_params.constant(root.input_scale)
    scale_out = qnn_params.constant(root.output_scale)
    assert scale_in is not None and scale_out is not None
    q, shift = fixed_point(
        scale_in.astype(np.float32).astype(np.float64) / scale_out.astype(np.float32)
    )
    total = 31 - shift
    centred = b.centred(root.data, root.input_zero_point, axis, "int64")
    product = b(MultiplyOp(centred, b.const(along(q, axis, rank))))
    nudged = b(AddOp(product, b.const(along(np.int64(1) << (total - 1), axis, rank))))
    shifted = b(RightShiftOp(nudged, b.const(along(total, axis, rank))))
    zp = b.cast(b.along(root.output_zero_point, axis, rank), "int64")
    info = iinfo(a["out_dtype"])
    clipped = b(ClipOp(b(AddOp(shifted, zp)), float(info.min), float(info.max)))
    b.cast(clipped, a["out_dtype"])
    return b.ops


def _conv2d(root: qnn.Conv2dOp) -> list[Operation]:
    """``conv(x, w - zw) - zx · Σ (w - zw)``, the data padded with ``zx``."""
    b = _Builder()
    weight = root.weight
    if not _is_zero(root.weight_zero_point):
        weight = b.centred(weight, root.weight_zero_point, 0)
    data, padding = _padded(b, root)
    conv = b(_conv(root, data, weight, padding))
    _minus_zx_correction(b, root, conv, weight)
    return b.ops


def _conv2d_uint8_weight(root: qnn.Conv2dOp) -> list[Operation]:
    """A ``uint8`` weight shifted into ``int8`` (``w - 128``), so the
    convolution stays ``uint8 × int8``:

        Σ x (w - zw) = conv(x, w - 128) + (128 - zw) · Σ_window x

    the window sums being a convolution with an all-ones ``int8`` weight,
    one output channel per group."""
    b = _Builder()
    a = root.attrs
    o, cg, kh, kw = _shape(root.weight)
    groups = a["groups"]
    shifted = b(SubtractOp(b.cast(root.weight, "int32"), b.const(np.int32(128))))
    data, padding = _padded(b, root)
    conv = b(_conv(root, data, b.cast(shifted, "int8"), padding))
    zw = qnn_params.constant(root.weight_zero_point)
    if zw is None or np.any(zw != 128):
        zw_along = b.cast(b.along(root.weight_zero_point, 1, 4), "int32")
        k = b(SubtractOp(b.const(np.int32(128)), zw_along))
        ones = b.const(np.ones((groups, cg, kh, kw), np.int8))
        sums = b(_conv(root, data, ones, padding))
        if groups > 1:  # each output channel reads its group's window sum
            n, _, oh, ow = _shape(sums)
            split = b(ReshapeOp(sums, [n, groups, 1, oh, ow]))
            wide = b(BroadcastToOp(split, [n, groups, o // groups, oh, ow]))
            sums = b(ReshapeOp(wide, [n, o, oh, ow]))
        conv = b(AddOp(conv, b(MultiplyOp(sums, k))))
    if not _is_zero(root.data_zero_point):
        _minus_zx_correction(b, root, conv, b.centred(root.weight, root.weight_zero_point, 0))
    return b.ops


def _padded(b: _Builder, root: qnn.Conv2dOp) -> tuple[SSAValue, list[int]]:
    """The data padded with its zero point (a real zero) and the padding
    left to the convolution: none then, or all of it when ``zx`` is 0."""
    padding = list(root.attrs["padding"])
    if not any(padding) or _is_zero(root.data_zero_point):
        return root.data, padding
    zx = b.cast(b.along(root.data_zero_point, 0, 0), _dtype(root.data))
    top, left, bottom, right = padding
    return b(PadOp(root.data, zx, [0, 0, 0, 0, top, bottom, left, right])), [0, 0, 0, 0]


def _conv(root: qnn.Conv2dOp, data: SSAValue, weight: SSAValue, padding) -> Conv2dOp:
    """``relay.nn.conv2d`` with ``root``'s window, ``int32`` out; an all-ones
    weight of one channel a group gives the window sums."""
    a = root.attrs
    return Conv2dOp(
        data,
        weight,
        strides=a["strides"],
        padding=padding,
        dilation=a["dilation"],
        groups=a["groups"],
        out_dtype="int32",
    )


def _minus_zx_correction(b: _Builder, root: qnn.Conv2dOp, conv: SSAValue, weight) -> None:
    """``conv - zx · Σ_{c,kh,kw} weight`` per output channel (constants fold)."""
    if _is_zero(root.data_zero_point):
        return
    sums = b(SumOp(b.cast(weight, "int32"), axis=[1, 2, 3]))
    o = _shape(root.weight)[0]
    zx = b.cast(b.along(root.data_zero_point, 0, 1), "int32")
    correction = b(ReshapeOp(b(MultiplyOp(sums, zx)), [1, o, 1, 1]))
    b(SubtractOp(conv, correction))


def _dense(root: qnn.DenseOp) -> list[Operation]:
    """The ``int32`` dense of the raw 8-bit values (the VNNI kernel's
    operands) with the zero points on the side, per output ``n``::

        Σ_k (x - zx)(w - zw) = dense(x, w - c) + (c - zw) · Σ_k x - zx · Σ_k (w - zw)

    ``c = 128`` shifts a ``uint8`` weight into ``int8`` (``c = 0`` for an
    ``int8`` one); the middle term is left out when ``zw`` is the constant
    ``c`` (onnxruntime's symmetric ``int8`` weights: 0), the last when
    ``zx`` is a constant zero; the last folds for a constant weight."""
    b = _Builder()
    weight, c = root.weight, 0
    if _dtype(weight) == "uint8":
        c = 128
        moved = b(SubtractOp(b.cast(weight, "int32"), b.const(np.int32(c))))
        weight = b.cast(moved, "int8")
    b(DenseOp(root.data, weight, out_dtype="int32"))
    product = b.ops[-1].results[0]
    zw = qnn_params.constant(root.weight_zero_point)
    if zw is None or np.any(zw.astype(np.int64) != c):
        c_minus_zw = b(SubtractOp(b.const(np.int32(c)), b.cast(root.weight_zero_point, "int32")))
        rows = b(SumOp(b.cast(root.data, "int32"), axis=[-1], keepdims=True))
        product = b(AddOp(product, b(MultiplyOp(rows, c_minus_zw))))
    if not _is_zero(root.data_zero_point):
        sums = b(SumOp(b.centred(root.weight, root.weight_zero_point, 0), axis=[1]))
        zx = b.cast(b.along(root.data_zero_point, 0, 0), "int32")
        b(SubtractOp(product, b(MultiplyOp(sums, zx))))
    return b.ops


def _matmul(root: qnn.MatmulOp) -> list[Operation]:
    b = _Builder()
    a = b.centred(root.a, root.a_zero_point, 0)
    w = b.centred(root.b, root.b_zero_point, -1)
    b(MatmulOp(a, w))
    return b.ops


def _binary(root: qnn.BinaryQnnOp, mul: bool) -> list[Operation]:
    b = _Builder()
    lhs, rhs, ls, lz, rs, rz, os, oz = root.operands
    out_dtype = _dtype(root.result)
    lc = b.centred(lhs, lz, 0)
    rc = b.centred(rhs, rz, 0)
    if mul:
        ratio = b(DivideOp(b(MultiplyOp(b.along(ls, 0, 0), b.along(rs, 0, 0))), b.along(os, 0, 0)))
        real = b(MultiplyOp(b.cast(b(MultiplyOp(lc, rc)), "float32"), ratio))
    else:
        lr = b(DivideOp(b.along(ls, 0, 0), b.along(os, 0, 0)))
        rr = b(DivideOp(b.along(rs, 0, 0), b.along(os, 0, 0)))
        real = b(
            AddOp(
                b(MultiplyOp(b.cast(lc, "float32"), lr)), b(MultiplyOp(b.cast(rc, "float32"), rr))
            )
        )
    b.quantized(real, oz, 0, out_dtype)
    return b.ops


def _concatenate(root: qnn.ConcatenateOp) -> list[Operation]:
    b = _Builder()
    inputs, scales, zps, os, oz = root.parts()
    out_dtype = _dtype(root.result)
    parts = [
        b(qnn.RequantizeOp(x, s, z, os, oz, axis=0, out_dtype=out_dtype))
        for x, s, z in zip(inputs, scales, zps)
    ]
    b(ConcatenateOp(parts, axis=root.attrs["axis"]))
    return b.ops


def _avg_pool2d(root: qnn.AvgPool2dOp) -> list[Operation]:
    b = _Builder()
    data, s_in, z_in, s_out, z_out = root.operands
    pool = {k: root.attrs[k] for k in qnn.AvgPool2dOp.POOL_ATTRS}
    centred = b.cast(b.centred(data, z_in, 0), "float32")
    mean = b(AvgPool2dOp(centred, **pool))
    ratio = b(DivideOp(b.along(s_in, 0, 0), b.along(s_out, 0, 0)))
    b.quantized(b(MultiplyOp(mean, ratio)), z_out, 0, _dtype(root.result))
    return b.ops


def _global_window(root: qnn.AvgPool2dOp) -> bool:
    """The window is the whole (unpadded) plane: one output pixel."""
    shape = _shape(root.data)
    a = root.attrs
    return (
        len(shape) == 4
        and tuple(a["pool_size"]) == tuple(shape[2:])
        and not any(a["padding"])
        and all(s > 0 for s in shape[2:])
    )


def _global_avg_pool2d(root: qnn.AvgPool2dOp) -> list[Operation]:
    """``Σ x - zx · count`` in ``int32`` (the integers summed as integers),
    then ``/ count · (s_in / s_out)`` in ``float32``, rounded: the float
    mean's bits (its sum of integers is exact) without a float tensor."""
    b = _Builder()
    data, s_in, z_in, s_out, z_out = root.operands
    count = int(np.prod(_shape(data)[2:]))
    sums = b(SumOp(b.cast(data, "int32"), axis=[2, 3], keepdims=True))
    offset = b(MultiplyOp(b.cast(b.along(z_in, 0, 0), "int32"), b.const(np.int32(count))))
    centred = b.cast(b(SubtractOp(sums, offset)), "float32")
    mean = b(DivideOp(centred, b.const(np.float32(count))))
    ratio = b(DivideOp(b.along(s_in, 0, 0), b.along(s_out, 0, 0)))
    b.quantized(b(MultiplyOp(mean, ratio)), z_out, 0, _dtype(root.result))
    return b.ops


def _same_params(first: Sequence[SSAValue], second: Sequence[SSAValue]) -> bool:
    """Both parameter lists are constants of equal values."""
    for x, y in zip(first, second):
        a, c = qnn_params.constant(x), qnn_params.constant(y)
        if a is None or c is None or a.shape != c.shape or not np.array_equal(a, c):
            return False
    return True


RULES: list[Rule] = [
    rewrite(
        Pat(qnn.RequantizeOp, "x", "si", "zi", "so", "zo"),
        when=[lambda x, root, si, zi, so, zo: _same_params([si, zi], [so, zo])],
        to="x",
        name="requantize-identity",
        doc="requantize to the same constant parameters and type = its input",
    ),
    rewrite(
        Pat(qnn.QuantizeOp),
        to=_quantize,
        name="quantize",
        doc="saturate(round(x / s) + z)",
    ),
    rewrite(
        Pat(qnn.DequantizeOp),
        to=_dequantize,
        name="dequantize",
        doc="float32(q - z) * s",
    ),
    rewrite(
        Pat(qnn.RequantizeOp),
        when=[lambda root: root.attrs["compute_dtype"] == "float32"],
        to=_requantize_float,
        name="requantize-float32",
        doc="saturate(round(float32(q - zi) * (si / so)) + zo)",
    ),
    rewrite(
        Pat(qnn.RequantizeOp, "x", "si", "zi", "so", "zo"),
        when=[
            lambda root: root.attrs["compute_dtype"] == "int64",
            lambda si, so: qnn_params.constant(si) is not None
            and qnn_params.constant(so) is not None,
        ],
        to=_requantize_int64,
        name="requantize-fixed-point",
        doc="saturate(((q - zi) * m + 2^(t-1)) >> t + zo) in int64, constant scales",
    ),
    rewrite(
        Pat(qnn.Conv2dOp),
        when=[lambda root: _dtype(root.data) == _dtype(root.weight) == "uint8"],
        to=_conv2d_uint8_weight,
        name="conv2d-uint8-weight",
        doc="a uint8 weight as w - 128 in int8, plus (128 - zw) * window sums of the data",
    ),
    rewrite(
        Pat(qnn.Conv2dOp),
        to=_conv2d,
        name="conv2d",
        doc="int32 conv of the raw (zx-padded) data and w - zw, minus zx * sum(w - zw)",
    ),
    rewrite(
        Pat(qnn.DenseOp),
        to=_dense,
        name="dense",
        doc="int32 dense of the raw x and w - c (c = 128 for a uint8 w), plus (c - zw) * sum_k x,"
        " minus zx * sum_k (w - zw)",
    ),
    rewrite(
        Pat(qnn.MatmulOp),
        to=_matmul,
        name="matmul",
        doc="int32 matmul of a - za and b - zb",
    ),
    rewrite(
        Pat(qnn.AddOp),
        to=lambda root: _binary(root, mul=False),
        name="add",
        doc="q(float32(a - za) * (sa / so) + float32(b - zb) * (sb / so))",
    ),
    rewrite(
        Pat(qnn.MulOp),
        to=lambda root: _binary(root, mul=True),
        name="mul",
        doc="q(float32((a - za) * (b - zb)) * (sa * sb / so))",
    ),
    rewrite(
        Pat(qnn.ConcatenateOp),
        to=_concatenate,
        name="concatenate",
        doc="concatenate of each input requantized to the output's parameters",
    ),
    rewrite(
        Pat(qnn.AvgPool2dOp),
        when=[_global_window],
        to=_global_avg_pool2d,
        name="avg-pool2d-global-integer",
        doc="a window of the whole plane: q(float32(sum_i32(x) - zx * count) / count * (sx / so))",
    ),
    rewrite(
        Pat(qnn.AvgPool2dOp),
        to=_avg_pool2d,
        name="avg-pool2d",
        doc="q(avg_pool2d(float32(x - zx)) * (sx / so))",
    ),
]


@documents_rules(RULES)
@dataclass(frozen=True)
class QnnCanonicalizePass(ModulePass):
    """Rewrite every ``qnn`` op into integer relay ops.

    Input: relay IR with ``qnn`` ops (typed: run ``relay-infer-type`` first).

    Output: relay IR only; an op no rule rewrites (``compute_dtype =
    "int64"`` with run-time scales) is an error naming it.

    Invariants: every value keeps its type; results equal the qnn
    references (:mod:`xtvm.reference.qnn`).

    ```mlir
    %y = qnn.dequantize %q, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
    // becomes
    %c = relay.cast %q {dtype = "int32"} : (tensor<4xui8>) -> tensor<4xi32>
    %d = relay.cast %z {dtype = "int32"} : (tensor<ui8>) -> tensor<i32>
    %e = relay.subtract %c, %d : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    %f = relay.cast %e {dtype = "float32"} : (tensor<4xi32>) -> tensor<4xf32>
    %y = relay.multiply %f, %s : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
    """

    name = "qnn-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, RULES)
        for inner in op.walk():
            if inner.name.startswith("qnn."):
                raise qnn_params.QnnError(
                    f"qnn-canonicalize: no rule rewrites this op (an int64 requantize needs "
                    f"constant scales): {inner}"
                )
