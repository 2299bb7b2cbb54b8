"""``qnn-fake-quantization-to-integer``: float QDQ regions become qnn ops
(TVM's ``FakeQuantizationToInteger``), so QDQ models compute in integers.

A QDQ model (onnxruntime's ``QuantFormat.QDQ``) computes each op in float
between ``DequantizeLinear`` and ``QuantizeLinear``: ``quantize(op(
dequantize(x)))``. Each rule matches such a region rooted at the
``qnn.quantize`` and rewrites it into the op's integer form: a convolution
or dense of dequantized operands becomes ``qnn.conv2d``/``qnn.dense`` (plus
the ``int32`` bias the quantizer stored with scale ``sx · sw``) and a
``qnn.requantize``; an add ``qnn.add``; an average pool ``qnn.avg_pool2d``;
a concatenation ``qnn.concatenate``; ops that only move or select values
(max pool, reshape, flatten) run on the integers directly, followed by a
requantize (removed by ``qnn-canonicalize`` when the parameters are equal);
``quantize(dequantize(x))`` is a requantize. The ``dequantize`` ops left
without users are erased. Ops outside these regions (a softmax between a
dequantize and a quantize, as onnxruntime computes it too) stay float.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects import qnn
from xtvm.dialects.relay import (
    AddOp,
    AvgPool2dOp,
    BatchFlattenOp,
    BiasAddOp,
    ConcatenateOp,
    ConstOp,
    Conv2dOp,
    DenseOp,
    GlobalAvgPool2dOp,
    MaxPool2dOp,
    ExpOp,
    LogSoftmaxOp,
    MultiplyOp,
    ReshapeOp,
    SigmoidOp,
    SoftmaxOp,
    TanhOp,
)
from xtvm.passes.qnn.params import QnnError
from xtvm.constants import dense_from_numpy
from xtvm.dtypes import dtype_name
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite


def _dq(prefix: str) -> Pat:
    """A ``qnn.dequantize`` capturing ``<prefix>``, its scale and zero point."""
    return Pat(qnn.DequantizeOp, prefix, f"s{prefix}", f"z{prefix}", name=f"dq_{prefix}")


def _dtype(value: SSAValue) -> str:
    assert isinstance(value.type, TensorType)
    return dtype_name(value.type.element_type)


def _per_tensor(*values: SSAValue) -> bool:
    for v in values:
        assert isinstance(v.type, TensorType)
        if v.type.get_shape() and v.type.get_shape()[0] != 1:
            return False
    return True


def _requantized(ops: list[Operation], acc: SSAValue, scale: SSAValue, so, zo, axis: int):
    """Append ``qnn.requantize`` of the ``int32`` ``acc`` (zero point 0)."""
    zero = ConstOp(dense_from_numpy(np.zeros((), np.int32)))
    requantize = qnn.RequantizeOp(acc, scale, zero.result, so, zo, axis=axis, out_dtype=_dtype(zo))
    ops += [zero, requantize]
    return ops


def _conv(root, conv, x, sx, zx, w, sw, zw, b=None) -> list[Operation]:
    a = conv.attrs
    ops: list[Operation] = [
        qconv := qnn.Conv2dOp(
            x, w, zx, zw, sx, sw, a["strides"], a["padding"], a["dilation"], a["groups"]
        )
    ]
    acc = qconv.result
    if b is not None:
        ops.append(bias := BiasAddOp(acc, b, axis=1))
        acc = bias.result
    ops.append(scale := MultiplyOp(sx, sw))
    return _requantized(ops, acc, scale.result, root.scale, root.zero_point, 1)


def _dense(root, x, sx, zx, w, sw, zw, b=None) -> list[Operation]:
    ops: list[Operation] = [dense := qnn.DenseOp(x, w, zx, zw, sx, sw)]
    acc = dense.result
    if b is not None:
        ops.append(add := AddOp(acc, b))
        acc = add.result
    ops.append(scale := MultiplyOp(sx, sw))
    rank = len(acc.type.get_shape())  # type: ignore[attr-defined]
    return _requantized(ops, acc, scale.result, root.scale, root.zero_point, rank - 1)


def _per_output_channel(dq_w: qnn.DequantizeOp) -> bool:
    """A weight's parameters are per-tensor or along axis 0 (its output
    channels), as qnn.conv2d and qnn.dense take them."""
    if dq_w.attrs["block_size"]:
        return False
    rank = len(dq_w.data.type.get_shape())  # type: ignore[attr-defined]
    return _per_tensor(dq_w.scale, dq_w.zero_point) or dq_w.attrs["axis"] % rank == 0


def _int_conv(conv) -> bool:
    return conv.attrs.get("out_dtype") is None


def _int32(b) -> bool:
    return _dtype(b) == "int32"


def _moved(root, inner, x, sx, zx) -> list[Operation]:
    """``inner`` (a value-moving op) on the integers ``x``, then a requantize."""
    clone = type(inner)(x, **{k: v for k, v in inner.attrs.items()})
    req = qnn.RequantizeOp(
        clone.results[0], sx, zx, root.scale, root.zero_point, out_dtype=_dtype(root.zero_point)
    )
    return [clone, req]


def _all_dequantized(cat) -> bool:
    return all(
        isinstance(v, OpResult) and isinstance(v.op, qnn.DequantizeOp) and _per_tensor(v.op.scale)
        for v in cat.operands
    )


def _concat(root, cat) -> list[Operation]:
    dqs = [v.op for v in cat.operands]  # type: ignore[attr-defined]
    return [
        qnn.ConcatenateOp(
            [d.data for d in dqs],
            [d.scale for d in dqs],
            [d.zero_point for d in dqs],
            root.scale,
            root.zero_point,
            axis=cat.attrs["axis"],
        )
    ]


def _avg(root, pool, x, sx, zx) -> list[Operation]:
    if isinstance(pool, GlobalAvgPool2dOp):
        attrs = {"pool_size": x.type.get_shape()[2:]}
    else:
        attrs = {k: pool.attrs[k] for k in qnn.AvgPool2dOp.POOL_ATTRS}
    return [qnn.AvgPool2dOp(x, sx, zx, root.scale, root.zero_point, **attrs)]


def _axis_of(root: qnn.QuantizeOp, dq: qnn.DequantizeOp) -> int:
    """The axis of the per-axis parameters of ``dq`` or ``root`` (that of
    ``root`` when both are per-tensor)."""
    return dq.attrs["axis"] if not _per_tensor(dq.scale, dq.zero_point) else root.attrs["axis"]


def _same_axis(root: qnn.QuantizeOp, dq_x: qnn.DequantizeOp) -> bool:
    """Neither is block-wise, and per-axis parameters on both share the axis."""
    if root.attrs["block_size"] or dq_x.attrs["block_size"]:
        return False
    if _per_tensor(root.scale, root.zero_point) or _per_tensor(dq_x.scale, dq_x.zero_point):
        return True
    rank = len(dq_x.data.type.get_shape())  # type: ignore[attr-defined]
    return root.attrs["axis"] % rank == dq_x.attrs["axis"] % rank


def _q(inner: Pat) -> Pat:
    return Pat(qnn.QuantizeOp, inner, "so", "zo")


def _moves(op: type, name: str, spelled: str):
    """The rule for an op that only moves or picks values (so it works on the
    integers as on the reals): ``q(op(dq(x))) = requantize(op(x))``."""
    return rewrite(
        _q(Pat(op, _dq("x"), name="inner")),
        when=[lambda sx, zx: _per_tensor(sx, zx)],
        to=_moved,
        name=name,
        doc=f"q({spelled}(dq(x))) = requantize({spelled}(x))",
    )


RULES: list[Rule] = [
    rewrite(
        _q(Pat(BiasAddOp, Pat(Conv2dOp, _dq("x"), _dq("w"), name="conv"), _dq("b"))),
        when=[
            _int_conv,
            lambda b: _int32(b),
            lambda sx, zx: _per_tensor(sx, zx),
            lambda dq_w: _per_output_channel(dq_w),
        ],
        to=_conv,
        name="conv2d-bias",
        doc="q(bias_add(conv2d(dq(x), dq(w)), dq(b))) = requantize(qnn.conv2d(x, w) + b)",
    ),
    rewrite(
        _q(Pat(Conv2dOp, _dq("x"), _dq("w"), name="conv")),
        when=[
            _int_conv,
            lambda sx, zx: _per_tensor(sx, zx),
            lambda dq_w: _per_output_channel(dq_w),
        ],
        to=lambda root, conv, x, sx, zx, w, sw, zw: _conv(root, conv, x, sx, zx, w, sw, zw),
        name="conv2d",
        doc="q(conv2d(dq(x), dq(w))) = requantize(qnn.conv2d(x, w))",
    ),
    rewrite(
        _q(Pat(AddOp, Pat(DenseOp, _dq("x"), _dq("w")), _dq("b"))),
        when=[
            lambda b: _int32(b),
            lambda sx, zx: _per_tensor(sx, zx),
            lambda dq_w: _per_output_channel(dq_w),
        ],
        to=_dense,
        name="dense-bias",
        doc="q(dense(dq(x), dq(w)) + dq(b)) = requantize(qnn.dense(x, w) + b)",
    ),
    rewrite(
        _q(Pat(DenseOp, _dq("x"), _dq("w"))),
        when=[lambda sx, zx: _per_tensor(sx, zx), lambda dq_w: _per_output_channel(dq_w)],
        to=lambda root, x, sx, zx, w, sw, zw: _dense(root, x, sx, zx, w, sw, zw),
        name="dense",
        doc="q(dense(dq(x), dq(w))) = requantize(qnn.dense(x, w))",
    ),
    rewrite(
        _q(Pat(AddOp, _dq("a"), _dq("b"))),
        when=[lambda sa, za, sb, zb: _per_tensor(sa, za, sb, zb)],
        to=lambda a, sa, za, b, sb, zb, so, zo: qnn.AddOp(a, b, sa, za, sb, zb, so, zo),
        name="add",
        doc="q(dq(a) + dq(b)) = qnn.add(a, b)",
    ),
    _moves(MaxPool2dOp, "max-pool2d", "max_pool2d"),
    _moves(ReshapeOp, "reshape", "reshape"),
    _moves(BatchFlattenOp, "batch-flatten", "batch_flatten"),
    rewrite(
        _q(Pat(AvgPool2dOp, _dq("x"), name="pool")),
        when=[lambda sx, zx: _per_tensor(sx, zx)],
        to=_avg,
        name="avg-pool2d",
        doc="q(avg_pool2d(dq(x))) = qnn.avg_pool2d(x)",
    ),
    rewrite(
        _q(Pat(GlobalAvgPool2dOp, _dq("x"), name="pool")),
        when=[lambda sx, zx: _per_tensor(sx, zx)],
        to=_avg,
        name="global-avg-pool2d",
        doc="q(global_avg_pool2d(dq(x))) = qnn.avg_pool2d(x) over the image",
    ),
    rewrite(
        _q(Pat(ConcatenateOp, name="cat")),
        when=[_all_dequantized],
        to=_concat,
        name="concatenate",
        doc="q(concatenate(dq(a), dq(b), ...)) = qnn.concatenate(a, b, ...)",
    ),
    rewrite(
        _q(_dq("x")),
        when=[_same_axis],
        to=lambda root, dq_x, x, sx, zx, so, zo: qnn.RequantizeOp(
            x, sx, zx, so, zo, axis=_axis_of(root, dq_x), out_dtype=root.attrs["out_dtype"]
        ),
        name="quantize-dequantize",
        doc="q(dq(x)) = requantize(x), when no block-wise and one axis for per-axis parameters",
    ),
]


FLOAT_OPS: tuple[type[Operation], ...] = (SoftmaxOp, LogSoftmaxOp, SigmoidOp, TanhOp, ExpOp)
"""Ops that stay float inside a QDQ region, as onnxruntime computes them
(through a float lookup table, ``QLinearSoftmax``/``QLinearSigmoid``)."""


def _is_float(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and _dtype(value).startswith("float")


def _float_region(quantize: qnn.QuantizeOp) -> Operation | None:
    """When the float ops feeding ``quantize`` (up to the dequantizes,
    constants and arguments) read a dequantized value and none of them is in
    :data:`FLOAT_OPS` (a region no rule gave an integer form), the op that
    reads the dequantized value."""
    first = quantize.data.owner if isinstance(quantize.data, OpResult) else None
    if first is None or isinstance(first, (qnn.DequantizeOp, *FLOAT_OPS)):
        return None
    stack, seen, reader = [first], set(), None
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if isinstance(op, FLOAT_OPS):
            return None
        for operand in op.operands:
            if not isinstance(operand, OpResult):
                continue
            if isinstance(operand.op, qnn.DequantizeOp):
                reader = reader or op
            elif _is_float(operand) and not isinstance(operand.op, ConstOp):
                stack.append(operand.op)
    return reader


@documents_rules(RULES)
@dataclass(frozen=True)
class FakeQuantizationToIntegerPass(ModulePass):
    """Rewrite float ``dequantize → op → quantize`` regions into qnn ops.

    Input: typed relay IR with ``qnn.quantize``/``qnn.dequantize``.

    Output: the matched regions as qnn ops on the quantized integers; the
    rest unchanged. A ``quantize`` of an op computed from a dequantized
    value that no rule rewrites (and that onnxruntime does not compute in
    float either: not a softmax, sigmoid, tanh or exp) is an error naming
    the op and its value (the ONNX node's output), unless ``allow-float``
    says to leave it in float: a QDQ model never falls back to float
    silently.

    Invariants: every value keeps its type; a rewritten region computes the
    integers onnxruntime's QDQ execution computes (its fused QLinear
    kernels), within one quantization step.

    ```mlir
    %a = qnn.dequantize %qa, %sa, %za : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
    %b = qnn.dequantize %qb, %sb, %zb : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
    %s = relay.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %q = qnn.quantize %s, %so, %zo {out_dtype = "uint8"} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
    // becomes
    %q = qnn.add %qa, %qb, %sa, %za, %sb, %zb, %so, %zo : (...) -> tensor<4xui8>
    ```
    """

    name = "qnn-fake-quantization-to-integer"

    allow_float: bool = False
    """Leave regions without an integer form in float instead of failing."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, RULES)
        if self.allow_float:
            return
        for quantize in op.walk():
            if isinstance(quantize, qnn.QuantizeOp) and (inner := _float_region(quantize)):
                name = inner.results[0].name_hint or "?"
                raise QnnError(
                    f"qnn-fake-quantization-to-integer: '{inner.name}' (value %{name}) "
                    "computes in float between a dequantize and a quantize, and no rule gives "
                    "it an integer form; it would run in float (pass allow-float=true to "
                    f"accept that):\n  {inner}"
                )
