"""Converters for the normalizations.

``BatchNormalization`` at inference becomes ``relay.nn.batch_norm``; the
others (and batch norm's training mode) are composed from relay reductions
and elementwise ops, as ONNX's own function bodies define them, with
``mean`` and ``var`` the biased (population) statistics over the named axes:

* ``BatchNormalization`` in training mode: ``batch_norm(x, scale, B, mean,
  var)`` with the batch's statistics over every axis but 1; the running
  statistics ``old * momentum + new * (1 - momentum)``;
* ``InstanceNormalization``: ``(x - mean) / sqrt(var + epsilon) * scale +
  B`` over the spatial axes;
* ``LayerNormalization``: the same over axes ``axis..rank-1``, with the
  outputs ``Mean`` and ``InvStdDev``;
* ``GroupNormalization``: the same over each group of ``C / num_groups``
  channels and the spatial axes;
* ``RMSNormalization``: ``x / sqrt(mean(x * x) + epsilon) * scale`` over
  axes ``axis..rank-1``;
* ``MeanVarianceNormalization``: ``(x - mean) / (sqrt(var) + 1e-9)`` over
  ``axes``;
* ``LpNormalization``: ``x / norm`` along ``axis`` (0 where the norm is 0),
  ``norm`` the L1 or L2 norm.

``stash_type`` (``LayerNormalization``, ``GroupNormalization`` v21,
``RMSNormalization``) is the element type of the statistics: 1 (float32,
the default) casts other float inputs to float32 and the results back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from onnx import TensorProto
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AbsOp,
    AddOp,
    BatchNormOp,
    CastOp,
    DivideOp,
    EqualOp,
    MeanOp,
    MultiplyOp,
    ReshapeOp,
    SqrtOp,
    SubtractOp,
    SumOp,
    WhereOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.dtypes import dtype_name
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


def _dtype(value: SSAValue) -> str:
    return dtype_name(value.type.get_element_type())  # type: ignore[attr-defined]


def _scalar(node: OnnxNode, value: float, like: SSAValue) -> SSAValue:
    """A scalar constant of ``like``'s element type."""
    return node.const(np.array(value, _dtype(like)))


def _statistics(
    node: OnnxNode, x: SSAValue, axes: Sequence[int]
) -> tuple[SSAValue, SSAValue, SSAValue]:
    """``(mean, x - mean, var)`` over ``axes`` (kept as size 1)."""
    mean = node.emit(MeanOp(x, axis=axes, keepdims=True))
    centered = node.emit(SubtractOp(x, mean))
    var = node.emit(MeanOp(node.emit(MultiplyOp(centered, centered)), axis=axes, keepdims=True))
    return mean, centered, var


def _inv_std(node: OnnxNode, var: SSAValue, epsilon: float) -> SSAValue:
    """``1 / sqrt(var + epsilon)``."""
    std = node.emit(SqrtOp(node.emit(AddOp(var, _scalar(node, epsilon, var)))))
    return node.emit(DivideOp(_scalar(node, 1.0, std), std))


def _epsilon(node: OnnxNode) -> float:
    epsilon = float(node.attr("epsilon", 1e-5))
    if epsilon < 0:
        raise node.error(f"attribute 'epsilon' = {epsilon} must be >= 0")
    return epsilon


def _axis(node: OnnxNode, rank: int, default: int) -> int:
    axis = node.attr("axis", default)
    if not -rank <= axis < rank:
        raise node.error(f"attribute 'axis' = {axis} is out of range for rank {rank}")
    return axis % rank


def _float_input(node: OnnxNode, i: int) -> SSAValue:
    value = node.input(i)
    if not _dtype(value).startswith("float"):
        raise node.error(f"{node.input_label(i)} must be a float tensor, got {_dtype(value)}")
    return value


def _stash(node: OnnxNode, x: SSAValue) -> tuple[SSAValue, str]:
    """``x`` in the statistics' type (``stash_type``) and its own dtype."""
    stash = node.attr("stash_type", TensorProto.FLOAT)
    if stash != TensorProto.FLOAT:
        raise node.unsupported_attr("stash_type", "only 1 (float32) is supported", 1)
    dtype = _dtype(x)
    return (x if dtype == "float32" else node.emit(CastOp(x, "float32"))), dtype


def _unstash(node: OnnxNode, value: SSAValue, dtype: str) -> SSAValue:
    return value if _dtype(value) == dtype else node.emit(CastOp(value, dtype))


def _channel_param(node: OnnxNode, i: int, channels: int, rank: int) -> SSAValue:
    """Input ``i``, a ``[C]`` vector, as ``[C, 1, ..., 1]`` to broadcast
    along axis 1 of a rank-``rank`` tensor."""
    shape = node.input_shape(i)
    if shape != (channels,):
        raise node.error(
            f"{node.input_label(i)} must have shape {channels} (the channels), "
            f"got {shape_str(shape)}"
        )
    return node.emit(ReshapeOp(node.input(i), [channels] + [1] * (rank - 2)))


class BatchNormalization(OnnxOpConverter):
    """``BatchNormalization`` → ``relay.nn.batch_norm`` along axis 1:
    ``Y = (X - mean) / sqrt(var + epsilon) * scale + B``.

    Inference uses the given running statistics. Training mode (opset 14+,
    ``training_mode`` = 1) normalizes with the batch's own mean and biased
    variance over every axis but 1, and outputs the running statistics
    updated with ``momentum`` (default 0.9). Training mode before opset 14
    (``is_test`` = 0, or listing the statistics outputs) is not supported;
    ``consumed_inputs`` (v1) is a legacy memory hint.
    """

    @classmethod
    def _batch_norm(cls, node: OnnxNode, mean: SSAValue, var: SSAValue) -> SSAValue:
        x, scale, bias = (_float_input(node, i) for i in range(3))
        return node.emit(BatchNormOp(x, scale, bias, mean, var, axis=1, epsilon=_epsilon(node)))

    @classmethod
    def _inference(cls, node: OnnxNode) -> SSAValue:
        for k in range(1, len(node.proto.output)):
            if node.output_used(k):
                raise node.error(
                    f"{node.output_label(k)} is used, but only inference (output 'Y') is supported"
                )
        return cls._batch_norm(node, node.input(3), node.input(4))

    @classmethod
    def _check_spatial(cls, node: OnnxNode) -> None:
        # `spatial` = 0 (opsets 1-8) normalizes each activation separately,
        # with statistics of shape [C, D1, ...]; only a rank-2 input, whose
        # activations are its channels, makes the two modes agree.
        if node.attr("spatial", 1) != 1 and len(node.input_shape(0)) > 2:
            raise node.unsupported_attr(
                "spatial", "only per-channel statistics (spatial = 1) are supported"
            )

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-6: `is_test` (default 0, training) selects the mode.
        if node.attr("is_test", 0) == 0:
            raise node.unsupported_attr(
                "is_test", "training mode is not supported; inference needs is_test = 1", 0
            )
        cls._check_spatial(node)
        return cls._inference(node)

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        # Opsets 7-13: training mode is selected by listing the statistics
        # outputs, which then also changes Y.
        extra = [k for k in range(1, len(node.proto.output)) if node.proto.output[k]]
        if extra:
            raise node.error(
                f"{node.output_label(extra[0])} is present, which selects training mode; "
                "only inference (output 'Y' alone) and opset 14+ training mode are supported"
            )
        cls._check_spatial(node)
        return cls._inference(node)

    @classmethod
    def _impl_v14(cls, node: OnnxNode) -> SSAValue | list[SSAValue]:
        # Opset 14+: the attribute `training_mode` selects the mode.
        training = node.attr("training_mode", 0)
        if training not in (0, 1):
            raise node.unsupported_attr("training_mode", "expected 0 or 1", 0)
        if not training:
            return cls._inference(node)
        x = _float_input(node, 0)
        rank = len(static_shape(x))
        if rank < 2:
            raise node.error(f"{node.input_label(0)} must have rank >= 2, got rank {rank}")
        channels = [static_shape(x)[1]]
        _, _, var = _statistics(node, x, [a for a in range(rank) if a != 1])
        batch_mean = node.emit(MeanOp(x, axis=[1], exclude=True))
        batch_var = node.emit(ReshapeOp(var, channels))
        y = cls._batch_norm(node, batch_mean, batch_var)
        momentum = float(node.attr("momentum", 0.9))

        def running(old: int, new: SSAValue) -> SSAValue:
            kept = node.emit(MultiplyOp(node.input(old), _scalar(node, momentum, new)))
            added = node.emit(MultiplyOp(new, _scalar(node, 1 - momentum, new)))
            return node.emit(AddOp(kept, added))

        return [y, running(3, batch_mean), running(4, batch_var)]


class InstanceNormalization(OnnxOpConverter):
    """``InstanceNormalization``: each ``(n, c)`` plane normalized over the
    spatial axes, then ``* scale + B`` per channel."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node, 0)
        shape = static_shape(x)
        if len(shape) < 3:
            raise node.error(
                f"{node.input_label(0)} must have rank >= 3 (N, C, spatial...), "
                f"got {shape_str(shape)}"
            )
        _, centered, var = _statistics(node, x, list(range(2, len(shape))))
        y = node.emit(MultiplyOp(centered, _inv_std(node, var, _epsilon(node))))
        y = node.emit(MultiplyOp(y, _channel_param(node, 1, shape[1], len(shape))))
        return node.emit(AddOp(y, _channel_param(node, 2, shape[1], len(shape))))


class LayerNormalization(OnnxOpConverter):
    """``LayerNormalization`` (opset 17): normalized over axes
    ``axis..rank-1`` (``axis`` default -1), ``* Scale (+ B)`` broadcast from
    the trailing axes. The optional outputs ``Mean`` and ``InvStdDev`` keep
    the reduced axes as size 1."""

    @classmethod
    def _impl_v17(cls, node: OnnxNode) -> list[SSAValue]:
        x, dtype = _stash(node, _float_input(node, 0))
        shape = static_shape(x)
        axis = _axis(node, len(shape), -1)
        mean, centered, var = _statistics(node, x, list(range(axis, len(shape))))
        inv_std = _inv_std(node, var, _epsilon(node))
        y = _unstash(node, node.emit(MultiplyOp(centered, inv_std)), dtype)
        y = node.emit(MultiplyOp(y, node.input(1)))
        if node.has_input(2):
            y = node.emit(AddOp(y, node.input(2)))
        return [y, _unstash(node, mean, dtype), _unstash(node, inv_std, dtype)]


class GroupNormalization(OnnxOpConverter):
    """``GroupNormalization`` (opset 21): the ``C`` channels split into
    ``num_groups`` groups, each normalized over its channels and the spatial
    axes; then ``* scale + bias`` per channel. (Opset 18's version, with
    ``scale`` and ``bias`` per group, is deprecated: ``onnx.checker`` rejects
    it.)"""

    @classmethod
    def _normalized(cls, node: OnnxNode, x: SSAValue) -> tuple[SSAValue, int]:
        """``x`` normalized per group, as ``[N, G, C / G * spatial]``; and ``G``."""
        shape = static_shape(x)
        groups = node.attrs["num_groups"]  # required: the checker ensures it
        if len(shape) < 2 or groups < 1 or shape[1] % groups:
            raise node.error(
                f"attribute 'num_groups' = {groups} must divide the channels (axis 1) "
                f"of {node.input_label(0)} of shape {shape_str(shape)}"
            )
        grouped = node.emit(ReshapeOp(x, [shape[0], groups, -1]))
        _, centered, var = _statistics(node, grouped, [2])
        return node.emit(MultiplyOp(centered, _inv_std(node, var, _epsilon(node)))), groups

    @classmethod
    def _impl_v21(cls, node: OnnxNode) -> SSAValue:
        # scale and bias per channel; statistics in `stash_type`.
        x, dtype = _stash(node, _float_input(node, 0))
        y, _ = cls._normalized(node, x)
        shape = static_shape(x)
        y = _unstash(node, node.emit(ReshapeOp.to_shape(y, shape)), dtype)
        y = node.emit(MultiplyOp(y, _channel_param(node, 1, shape[1], len(shape))))
        return node.emit(AddOp(y, _channel_param(node, 2, shape[1], len(shape))))


class RMSNormalization(OnnxOpConverter):
    """``RMSNormalization`` (opset 23): ``x / sqrt(mean(x²) + epsilon) *
    scale`` over axes ``axis..rank-1`` (``axis`` default -1)."""

    @classmethod
    def _impl_v23(cls, node: OnnxNode) -> SSAValue:
        x, dtype = _stash(node, _float_input(node, 0))
        shape = static_shape(x)
        axis = _axis(node, len(shape), -1)
        square = node.emit(MultiplyOp(x, x))
        mean_square = node.emit(MeanOp(square, axis=list(range(axis, len(shape))), keepdims=True))
        y = node.emit(MultiplyOp(x, _inv_std(node, mean_square, _epsilon(node))))
        return node.emit(MultiplyOp(_unstash(node, y, dtype), node.input(1)))


class MeanVarianceNormalization(OnnxOpConverter):
    """``MeanVarianceNormalization``: ``(x - E[x]) / (sqrt(Var[x]) + 1e-9)``
    over ``axes`` (default ``[0, 2, 3]``). ONNX's function body computes the
    variance as ``E[x²] - E[x]²``; the centered ``E[(x - E[x])²]`` used here
    (as onnxruntime) is the same value without the cancellation."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node, 0)
        rank = len(static_shape(x))
        axes = list(node.attr("axes", [0, 2, 3]))
        if any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) != len(axes):
            raise node.error(f"attribute 'axes' = {axes} is invalid for rank {rank}")
        _, centered, var = _statistics(node, x, axes)
        std = node.emit(AddOp(node.emit(SqrtOp(var)), _scalar(node, 1e-9, var)))
        return node.emit(DivideOp(centered, std))


class LpNormalization(OnnxOpConverter):
    """``LpNormalization``: ``x / norm`` along ``axis`` (default -1), ``norm``
    the L1 (``p`` = 1) or L2 (``p`` = 2, default) norm; 0 where the norm is
    0 (as ONNX's reference)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node, 0)
        axis = _axis(node, len(static_shape(x)), -1)
        p = node.attr("p", 2)
        if p not in (1, 2):
            raise node.unsupported_attr("p", "expected 1 or 2", 2)
        if p == 1:
            norm = node.emit(SumOp(node.emit(AbsOp(x)), axis=[axis], keepdims=True))
        else:
            square = node.emit(MultiplyOp(x, x))
            norm = node.emit(SqrtOp(node.emit(SumOp(square, axis=[axis], keepdims=True))))
        zero = _scalar(node, 0.0, x)
        is_zero = node.emit(EqualOp(norm, zero))
        return node.emit(WhereOp(is_zero, zero, node.emit(DivideOp(x, norm))))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "BatchNormalization": BatchNormalization,
    "InstanceNormalization": InstanceNormalization,
    "LayerNormalization": LayerNormalization,
    "GroupNormalization": GroupNormalization,
    "RMSNormalization": RMSNormalization,
    "MeanVarianceNormalization": MeanVarianceNormalization,
    "LpNormalization": LpNormalization,
}
