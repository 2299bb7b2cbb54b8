"""``relay.einsum``: Einstein summation over any number of operands (TVM's
``relay.einsum``), and the parser of its equations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    functional_format,
    same_element_type,
    shape_str,
    tensor_type,
)


@dataclass(frozen=True)
class Subscripts:
    """A parsed equation: one label per axis of each operand and of the
    result (the axes of ``...`` get labels ``"...0"``, ``"...1"``, ...,
    right-aligned across operands as NumPy broadcasts them), and each
    label's size."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]
    sizes: dict[str, int]

    @property
    def reduced(self) -> tuple[str, ...]:
        """The labels summed over: those absent from the output, in first-use order."""
        seen: list[str] = []
        for labels in self.inputs:
            seen += [label for label in labels if label not in self.output and label not in seen]
        return tuple(seen)


def _term(op_name: str, term: str) -> tuple[str, str, bool]:
    """The labels of one term before and after its ``...``, and whether it has one."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise RelayTypeError(f"'{op_name}' term '{term}' has a malformed ellipsis")
    head, ellipsis, tail = term.partition("...")
    for letter in head + tail:
        if not letter.isalpha():
            raise RelayTypeError(f"'{op_name}' term '{term}' has the invalid label '{letter}'")
    return head, tail, bool(ellipsis)


def parse_einsum(op_name: str, equation: str, shapes: Sequence[Sequence[int]]) -> Subscripts:
    """The subscripts of ``equation`` for operands of ``shapes`` (NumPy's
    rules: spaces are ignored; without ``->`` the output is the ellipsis
    axes, then the labels used once, alphabetically), or a type error."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise RelayTypeError(
            f"'{op_name}' equation '{equation}' has {len(terms)} operand terms, "
            f"but {len(shapes)} operands are given"
        )
    parsed = []
    for term, shape in zip(terms, shapes):
        head, tail, has_ellipsis = _term(op_name, term)
        count = len(shape) - len(head) - len(tail)
        if count < 0 or (count and not has_ellipsis):
            raise RelayTypeError(
                f"'{op_name}' term '{term}' does not fit an operand of rank {len(shape)}"
            )
        parsed.append((head, count, tail))
    ellipsis_rank = max((count for _, count, _ in parsed), default=0)
    ellipsis = [f"...{i}" for i in range(ellipsis_rank)]
    # The axes of `...` are right-aligned across operands, as NumPy broadcasts.
    inputs = [[*head, *ellipsis[ellipsis_rank - count :], *tail] for head, count, tail in parsed]
    if arrow:
        head, tail, _ = _term(op_name, rhs)
        output = [*head, *ellipsis, *tail] if "..." in rhs else list(rhs)
    else:
        counts: dict[str, int] = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        output = ellipsis + sorted(
            label for label, n in counts.items() if n == 1 and not label.startswith("...")
        )
    used = {label for labels in inputs for label in labels}
    for label in output:
        if label not in used:
            raise RelayTypeError(f"'{op_name}' output label '{label}' is not an operand label")
    if len(set(output)) != len(output):
        raise RelayTypeError(f"'{op_name}' output '{rhs}' repeats a label")
    sizes: dict[str, int] = {}
    for labels, shape in zip(inputs, shapes):
        for label, size in zip(labels, shape):
            known = sizes.setdefault(label, size)
            broadcast = label.startswith("...") and 1 in (known, size)
            if size != known and not broadcast:
                raise RelayTypeError(
                    f"'{op_name}' label '{label}' has sizes {known} and {size} "
                    f"(operand shapes {', '.join(shape_str(s) for s in shapes)})"
                )
            sizes[label] = max(known, size)
    return Subscripts(tuple(map(tuple, inputs)), tuple(output), sizes)


@irdl_op_definition
class EinsumOp(RelayOp):
    """Einstein summation: ``equation`` (NumPy's syntax, e.g. ``"bij,bjk->bik"``,
    ``"...ii->...i"``) names each operand axis with a label; the result has
    the output labels' axes, and every other label is summed over. A label
    repeated in one operand takes its diagonal. Operands share one element
    type.

    ```mlir
    %y = relay.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
    ```
    """

    name = "relay.einsum"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    operands_ = var_operand_def(TensorType)
    result = result_def(TensorType)
    equation = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("operands_")

    def __init__(self, operands: Sequence[SSAValue], equation: str):
        super().__init__(list(operands), equation=equation)

    @classmethod
    def subscripts(cls, operand_types: Sequence[Attribute], equation: str) -> Subscripts:
        """The parsed ``equation`` for operands of ``operand_types``."""
        types = [tensor_type(cls, t, f"operand {i}") for i, t in enumerate(operand_types)]
        if DYNAMIC_INDEX in [d for t in types for d in t.get_shape()]:
            raise RelayTypeError(f"'{cls.name}' needs static operand shapes")
        return parse_einsum(cls.name, equation, [t.get_shape() for t in types])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        if not operand_types:
            raise RelayTypeError(f"'{cls.name}' needs at least one operand")
        types = [tensor_type(cls, t, f"operand {i}") for i, t in enumerate(operand_types)]
        element = same_element_type(cls.name, *types)
        sub = cls.subscripts(types, attrs["equation"])
        return [TensorType(element, [sub.sizes[label] for label in sub.output])]
