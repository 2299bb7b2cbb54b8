"""Shapes computed from ``Shape`` of a tensor with ``?`` sizes, as exported
transformers compute a Reshape's target (``x.view(B, T, H, D)`` →
``Shape → Slice/Gather → Unsqueeze → Concat → Reshape``).

``Shape`` of a ``?`` size gives a run-time ``relay.shape_of``, and the
import also tracks its value *symbolically*: a 1-d object array whose
entries are static sizes or :class:`SymbolicDim` (``x``'s axis ``k``). The
index ops that only move entries (``Slice``, ``Gather``, ``Unsqueeze``,
``Squeeze``, ``Concat`` with constants, ``Cast`` to an integer) carry the
symbolic value along; anything else (arithmetic on a size) drops it, and
the run-time value stays the only one.

A ``Reshape`` whose target has a symbolic value imports as a static
``relay.reshape`` (so the model compiles once with ``?`` types): an entry
that is the reshaped tensor's own size at the same axis is a ``0`` copy,
and one remaining unknown entry is ``-1`` (inferred from the element
count). Anything else (two unknown sizes of other tensors) is a located
error: which sizes they are is known only at run time.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from onnx import TensorProto
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue

from xtvm.dialects.relay import ReshapeOp, ShapeOfOp, StridedSliceOp
from xtvm.frontend.onnx.converter import OnnxNode


@dataclass(frozen=True, eq=False)
class SymbolicDim:
    """Axis ``axis`` of ``source``, a size known only at run time."""

    source: SSAValue
    axis: int

    def __repr__(self) -> str:
        return f"{self.source.name_hint or 'tensor'}.shape[{self.axis}]"


_VALUES: weakref.WeakKeyDictionary[SSAValue, np.ndarray] = weakref.WeakKeyDictionary()
"""The symbolic value of each run-time shape tensor the import made."""


def symbolic_value(value: SSAValue) -> np.ndarray | None:
    """The symbolic value (an object array) of ``value``, if it has one."""
    return _VALUES.get(value)


def _record(result: SSAValue, value: np.ndarray) -> SSAValue:
    _VALUES[result] = value
    return result


def run_time_shape(node: OnnxNode, start: int, end: int | None) -> SSAValue | None:
    """``Shape`` of input 0 (dimensions ``start:end``, Python's slice rules)
    when one of them is ``?``: ``relay.shape_of`` with its symbolic value;
    None when they are all static (the constant path)."""
    data = node.input(0)
    dims = node.input_shape(0)
    rank = len(dims)
    picked = range(rank)[start:end]
    if all(dims[k] != DYNAMIC_INDEX for k in picked):
        return None
    value = np.empty(len(picked), dtype=object)
    for i, k in enumerate(picked):
        value[i] = SymbolicDim(data, k) if dims[k] == DYNAMIC_INDEX else int(dims[k])
    shape = node.emit(ShapeOfOp(data))
    if len(picked) != rank:
        shape = node.emit(StridedSliceOp(shape, [picked.start], [picked.stop], [1], [0]))
    return _record(shape, value)


def _inputs(node: OnnxNode, data: list[int]) -> list[np.ndarray] | None:
    """The symbolic values of inputs ``data`` (constants as object arrays),
    or None when none is symbolic or one is neither."""
    values, symbolic = [], False
    for i in data:  # a constant first: node.input would add it to the graph
        if node.is_constant(i):
            values.append(node.constant_input(i).astype(object))
            continue
        value = symbolic_value(node.input(i))
        if value is None:
            return None
        symbolic = True
        values.append(value)
    return values if symbolic else None


def _ints(node: OnnxNode, i: int, attribute: str) -> list[int] | None:
    """Integer parameters: input ``i`` from ``input_from`` on, else an attribute."""
    if node.opset >= _INPUT_FROM[node.proto.op_type]:
        return node.constant_ints(i) if node.has_input(i) else None
    value = node.attr(attribute)
    return None if value is None else [int(v) for v in value]


_INPUT_FROM = {"Slice": 10, "Unsqueeze": 13, "Squeeze": 13}
"""The opset from which these ops take their parameters as inputs."""


def propagate(node: OnnxNode, result: SSAValue) -> None:
    """Give ``result`` (``node``'s first output) the symbolic value the
    index op ``node`` computes from its inputs' symbolic values, if any."""
    op = node.proto.op_type
    if op == "Concat":
        values = _inputs(node, list(range(len(node.proto.input))))
        if values is not None:
            _record(result, np.concatenate(values, axis=node.attr("axis", 0)))
        return
    values = _inputs(node, [0])
    if values is None:
        return
    (value,) = values
    if op == "Slice":
        starts, ends = _ints(node, 1, "starts"), _ints(node, 2, "ends")
        axes, steps = _ints(node, 3, "axes"), _ints(node, 4, "steps")
        if value.ndim != 1 or starts is None or ends is None or len(starts) != 1:
            return
        if axes not in (None, [0], [-1]):
            return
        step = (steps or [1])[0]
        _record(result, value[slice(starts[0], ends[0], step)])
    elif op == "Gather":
        indices = node.constant_input(1).astype(np.int64)
        if value.ndim == 1 and ((indices >= -len(value)) & (indices < len(value))).all():
            _record(result, value[(indices % len(value)).reshape(-1)].reshape(indices.shape))
    elif op == "Unsqueeze":
        axes = _ints(node, 1, "axes")
        if axes is not None:
            _record(result, value.reshape(_unsqueezed(value.shape, axes)))
    elif op == "Squeeze":
        axes = _ints(node, 1, "axes")
        _record(result, np.squeeze(value, axis=None if axes is None else tuple(axes)))
    elif op == "Cast" and node.attr("to") in (TensorProto.INT64, TensorProto.INT32):
        _record(result, value)


def _unsqueezed(shape: tuple[int, ...], axes: list[int]) -> tuple[int, ...]:
    rank = len(shape) + len(axes)
    positions = {a % rank for a in axes}
    dims = iter(shape)
    return tuple(1 if k in positions else next(dims) for k in range(rank))


def symbolic_reshape(node: OnnxNode) -> SSAValue | None:
    """``Reshape`` to a target with a symbolic value, as a static
    ``relay.reshape`` (see the module); None when the target has none."""
    if not node.has_input(1) or node.is_constant(1):
        return None
    target = symbolic_value(node.input(1))
    if target is None:
        return None
    data = node.input(0)
    newshape: list[int | None] = []
    copies = False
    for i, entry in enumerate(target.reshape(-1)):
        if isinstance(entry, SymbolicDim):
            copy = entry.source is data and entry.axis == i
            copies |= copy
            newshape.append(0 if copy else None)
        else:
            newshape.append(int(entry))
    unknown = [i for i, d in enumerate(newshape) if d is None]
    allowzero = bool(node.attr("allowzero", 0))
    if len(unknown) == 1 and -1 not in newshape:
        newshape[unknown[0]] = -1
    elif unknown:
        sizes = ", ".join(f"{i} ({target.reshape(-1)[i]!r})" for i in unknown)
        raise node.error(
            f"the target shape's entries {sizes} are sizes of other tensors, known only at "
            "run time: a Reshape takes one such size (as -1) or the reshaped tensor's own "
            "sizes at the same axes"
        )
    if allowzero and copies:
        raise node.error(
            "allowzero = 1 with a target shape holding the input's own size known only at "
            "run time is not supported"
        )
    allowzero = allowzero and 0 in newshape
    return node.emit(ReshapeOp(data, [int(d) for d in newshape], allowzero=allowzero))  # type: ignore[arg-type]
