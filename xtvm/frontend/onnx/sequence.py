"""Converters of the ONNX sequence ops for sequences of static length: a
sequence is a relay tuple (``tuple<tensor<..>, ...>``, ``relay.tuple``), its
length and element types known at compile time.

* ``SequenceEmpty``, ``SequenceConstruct`` → ``relay.tuple``;
* ``SequenceInsert``/``SequenceErase`` (compile-time position, negative
  counting from the end, default the end) → a new ``relay.tuple`` of the
  other's ``relay.tuple_get``s;
* ``SequenceAt`` → ``relay.tuple_get`` at a compile-time position; a
  run-time position over elements of one type stacks them and
  ``relay.take``s (wrapping negative positions);
* ``SequenceLength`` → a constant;
* ``SplitToSequence`` → ``relay.split`` (one piece per element: of
  ``split``'s sizes, of ``split``-sized chunks with a smaller last one, or
  of size 1, squeezed unless ``keepdims``) and a ``relay.tuple``;
* ``ConcatFromSequence`` → ``relay.concatenate`` (``new_axis``: of the
  elements each given a new axis first);
* ``SequenceMap`` → its body converted once per element (unrolled).

Optionals: whether one is empty is usually known at compile time. A
present optional is the tensor or sequence it holds; the empty one is
``EMPTY_OPTIONAL`` (a constant no converter takes as a tensor).
``OptionalHasElement`` is a constant, ``OptionalGetElement`` the value. An
``If`` with an empty branch makes an optional decided at run time
(``RUNTIME_OPTIONALS``: a tuple of a presence flag and the fields):
``OptionalHasElement`` reads its flag; ``OptionalGetElement`` of one is
refused.

A sequence whose length changes at run time (grown in a ``Loop``) needs the
VM's dynamic ADTs; the loop refuses it as a carried value that changes type.
"""

from __future__ import annotations

import itertools

import numpy as np
from xdsl.dialects.builtin import TupleType
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    ConcatenateOp,
    ExpandDimsOp,
    SplitOp,
    SqueezeOp,
    TakeOp,
    TupleGetOp,
    TupleOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.common import EMPTY_OPTIONAL, RUNTIME_OPTIONALS, is_empty_optional
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, Output, static_shape


def sequence_input(node: OnnxNode, i: int) -> list[SSAValue]:
    """The elements of sequence input ``i`` (a tuple value)."""
    node.folding = False
    value = node.input(i)
    if not isinstance(value.type, TupleType):
        raise node.error(f"{node.input_label(i)} must be a sequence, got {value.type}")
    if isinstance(value.owner, TupleOp):  # built here: its fields, no tuple_get
        return list(value.owner.fields)
    return [node.emit(TupleGetOp(value, k)) for k in range(len(value.type.types))]


def make_sequence(node: OnnxNode, elements: list[SSAValue]) -> SSAValue:
    return node.emit(TupleOp(elements))


def _position(node: OnnxNode, i: int, length: int, default: int, insert: bool) -> int:
    """A compile-time position input as an index in ``[0, length]`` (insert)
    or ``[0, length)``."""
    position = int(node.constant_scalar(i)) if node.has_input(i) else default
    top = length + 1 if insert else length
    index = position + length if position < 0 else position
    if not 0 <= index < top:
        raise node.error(
            f"position {position} is out of range for a sequence of {length} element(s)"
        )
    return index


class SequenceEmpty(OnnxOpConverter):
    """``SequenceEmpty``: an empty tuple."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        node.folding = False
        return make_sequence(node, [])


class SequenceConstruct(OnnxOpConverter):
    """``SequenceConstruct``: the tuple of the inputs."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        node.folding = False
        elements = [node.input(i) for i in range(len(node.proto.input))]
        types = {(v.type.element_type) for v in elements}  # type: ignore[attr-defined]
        if len(types) > 1:
            raise node.error("the elements of a sequence must have one element type")
        return make_sequence(node, elements)


class SequenceInsert(OnnxOpConverter):
    """``SequenceInsert``: the tuple with the tensor inserted at ``position``."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        elements = sequence_input(node, 0)
        position = _position(node, 2, len(elements), len(elements), insert=True)
        elements.insert(position, node.input(1))
        return make_sequence(node, elements)


class SequenceErase(OnnxOpConverter):
    """``SequenceErase``: the tuple without the element at ``position``."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        elements = sequence_input(node, 0)
        del elements[_position(node, 1, len(elements), -1, insert=False)]
        return make_sequence(node, elements)


class SequenceAt(OnnxOpConverter):
    """``SequenceAt``: the element at ``position`` (see the module docstring)."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        elements = sequence_input(node, 0)
        if node.is_constant(1) or not elements:
            return elements[_position(node, 1, len(elements), 0, insert=False)]
        types = {v.type for v in elements}
        if len(types) != 1:
            raise node.error(
                "a run-time position needs elements of one type, got "
                + ", ".join(str(t) for t in types)
            )
        stacked = node.emit(
            ConcatenateOp([node.emit(ExpandDimsOp(v, 0)) for v in elements], 0)
        )
        return node.emit(TakeOp(stacked, node.input(1), axis=0, mode="wrap"))


class SequenceLength(OnnxOpConverter):
    """``SequenceLength``: the (static) length, an int64 scalar."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        return np.array(len(sequence_input(node, 0)), np.int64)


class SplitToSequence(OnnxOpConverter):
    """``SplitToSequence``: see the module docstring."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        node.folding = False
        x = node.input(0)
        shape = static_shape(x)
        axis = node.attr("axis", 0)
        if not -len(shape) <= axis < len(shape):
            raise node.error(f"axis {axis} is out of range for rank {len(shape)}")
        axis %= len(shape)
        size = shape[axis]
        keepdims = bool(node.attr("keepdims", 1))
        if node.has_input(1):
            split = node.constant_input(1)
            if split.ndim == 0:
                chunk = int(split)
                if chunk <= 0:
                    raise node.error(f"split {chunk} must be positive")
                sizes = [chunk] * (size // chunk) + ([size % chunk] if size % chunk else [])
            else:
                sizes = [int(s) for s in split]
                if sum(sizes) != size or any(s < 0 for s in sizes):
                    raise node.error(
                        f"split sizes {sizes} must be non-negative and sum to {size}, "
                        f"the size of axis {axis} of {shape_str(shape)}"
                    )
            keepdims = True  # keepdims applies only without 'split'
        else:
            sizes = [1] * size
        if len(sizes) == 1:
            pieces = [x]
        else:
            split_op = SplitOp(x, list(itertools.accumulate(sizes[:-1])), axis=axis)
            node.emit(split_op)
            pieces = list(split_op.results)
        if not keepdims:
            pieces = [node.emit(SqueezeOp(p, [axis])) for p in pieces]
        return make_sequence(node, pieces)


class ConcatFromSequence(OnnxOpConverter):
    """``ConcatFromSequence``: see the module docstring."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> Output:
        elements = sequence_input(node, 0)
        if not elements:
            raise node.error("cannot concatenate an empty sequence")
        axis = node.attr("axis")
        rank = len(static_shape(elements[0]))
        new_axis = bool(node.attr("new_axis", 0))
        top = rank + 1 if new_axis else rank
        if axis is None or not -top <= axis < top:
            raise node.error(f"attribute 'axis' = {axis} is out of range for rank {top}")
        axis %= top
        if new_axis:
            elements = [node.emit(ExpandDimsOp(v, axis)) for v in elements]
        if len(elements) == 1:
            return elements[0]
        return node.emit(ConcatenateOp(elements, axis))


class SequenceMap(OnnxOpConverter):
    """``SequenceMap``: ``body`` applied to each element (with the same
    element of each additional sequence input, or the additional tensor),
    unrolled over the static length; one output sequence per body output."""

    @classmethod
    def _impl_v17(cls, node: OnnxNode) -> Output:
        from xtvm.frontend.onnx.control import convert_subgraph

        body = node.attr("body")
        elements = sequence_input(node, 0)
        extra: list[SSAValue | list[SSAValue]] = []
        for i in range(1, len(node.proto.input)):
            value = node.input(i)
            extra.append(sequence_input(node, i) if isinstance(value.type, TupleType) else value)
        for i, e in enumerate(extra, 1):
            if isinstance(e, list) and len(e) != len(elements):
                raise node.error(
                    f"{node.input_label(i)} has {len(e)} elements, input 0 has {len(elements)}"
                )
        outputs: list[list[SSAValue]] = [[] for _ in body.output]
        for k, element in enumerate(elements):
            inputs = [element, *(e[k] if isinstance(e, list) else e for e in extra)]
            scope = convert_subgraph(node, body, node.scope.block, inputs)
            for out, value_info in zip(outputs, body.output):
                value = scope.output(value_info.name)
                out.append(node.const(value) if isinstance(value, np.ndarray) else value)
        return [make_sequence(node, out) for out in outputs]


def _optional_value(node: OnnxNode, i: int) -> Output:
    """Input ``i`` as it is: a constant (the empty optional included) or a value."""
    name = node.proto.input[i]
    if node.is_constant(i):
        return node.scope.value(name)
    node.folding = False
    return node.input(i)


class Optional(OnnxOpConverter):
    """``Optional``: its input, or the empty optional without one (an
    optional's emptiness is known at compile time)."""

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> Output:
        return _optional_value(node, 0) if node.has_input(0) else EMPTY_OPTIONAL.copy()


class OptionalHasElement(OnnxOpConverter):
    """``OptionalHasElement``: a constant: false for an absent input or the
    empty optional, true for any tensor or sequence."""

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> Output:
        if node.has_input(0) and not node.is_constant(0):
            value = node.input(0)
            if value in RUNTIME_OPTIONALS:  # decided at run time: its flag
                node.folding = False
                return node.emit(TupleGetOp(value, 0))
        present = node.has_input(0) and not (
            node.is_constant(0) and is_empty_optional(node.scope.value(node.proto.input[0]))
        )
        return np.array(present)


class OptionalGetElement(OnnxOpConverter):
    """``OptionalGetElement``: the value an optional holds (a tensor or a
    sequence is its own value); an empty optional is an error."""

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> Output:
        value = _optional_value(node, 0)
        if is_empty_optional(value):
            raise node.error(f"{node.input_label(0)} is an empty optional")
        if value in RUNTIME_OPTIONALS:
            raise node.error(
                f"{node.input_label(0)} is an optional whose emptiness is decided at run time: "
                "taking its element (an error when empty) is not supported"
            )
        return value


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Optional": Optional,
    "OptionalHasElement": OptionalHasElement,
    "OptionalGetElement": OptionalGetElement,
    "SequenceMap": SequenceMap,
    "SequenceEmpty": SequenceEmpty,
    "SequenceConstruct": SequenceConstruct,
    "SequenceInsert": SequenceInsert,
    "SequenceErase": SequenceErase,
    "SequenceAt": SequenceAt,
    "SequenceLength": SequenceLength,
    "SplitToSequence": SplitToSequence,
    "ConcatFromSequence": ConcatFromSequence,
}

__all__ = ["CONVERTERS", "make_sequence", "sequence_input"]
