"""Buffer access and allocation: `tir.load`, `tir.store`, `tir.allocate`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, NoneAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

ALLOCATE_SCOPES = ("global", "local")
"""Storage scopes of `tir.allocate` (TVM's `global` and `local`)."""


def _check_access(op_name: str, buffer: SSAValue, n_indices: int, value_type: Attribute) -> None:
    ty = buffer.type
    assert isinstance(ty, MemRefType)
    if ty.get_num_dims() != n_indices:
        raise VerifyException(
            f"{op_name} expects {ty.get_num_dims()} indices for {ty}, got {n_indices}"
        )
    if value_type != ty.element_type:
        raise VerifyException(
            f"{op_name} value type {value_type} differs from the element type of {ty}"
        )


def _print_access(
    printer: Printer, op: Operation, buffer: SSAValue, indices: Sequence[SSAValue]
) -> None:
    """Print `%buf[%i, %j] {attrs} : memref<...>` (shared by load and store)."""
    printer.print_operand(buffer)
    printer.print_string("[")
    printer.print_list(indices, printer.print_operand)
    printer.print_string("]")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(buffer.type)


def _parse_access(
    parser: Parser,
) -> tuple[SSAValue, list[SSAValue], dict[str, Attribute], MemRefType]:
    """Parse `%buf[%i, %j] {attrs} : memref<...>` (shared by load and store)."""
    buffer: UnresolvedOperand = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(
        Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    ty = parser.parse_type()
    if not isinstance(ty, MemRefType):
        parser.raise_error(f"expected a memref type, got {ty}", pos, parser.pos)
    index = IndexType()
    return (
        parser.resolve_operand(buffer, ty),
        [parser.resolve_operand(i, index) for i in indices],
        attrs,
        ty,
    )


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Reads one element of a buffer (TVM `BufferLoad`); one index per dimension.

    %v = tir.load %A[%i, %j] : memref<4x8xf32>
    """

    name = "tir.load"

    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType())
    res = result_def(AnyAttr())

    traits = traits_def(MemoryReadEffect())

    def __init__(self, buffer: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        buf = SSAValue.get(buffer, type=MemRefType)
        super().__init__(operands=[buf, indices], result_types=[buf.type.element_type])

    def verify_(self) -> None:
        _check_access(self.name, self.buffer, len(self.indices), self.res.type)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self, self.buffer, self.indices)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        buffer, indices, attrs, _ = _parse_access(parser)
        op = cls(buffer, indices)
        op.attributes |= attrs
        return op


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Writes one element of a buffer (TVM `BufferStore`); one index per dimension.

    tir.store %v, %B[%i, %j] : memref<4x8xf32>
    """

    name = "tir.store"

    value = operand_def(AnyAttr())
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType())

    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        value: SSAValue | Operation,
        buffer: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[value, buffer, indices])

    def verify_(self) -> None:
        _check_access(self.name, self.buffer, len(self.indices), self.value.type)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_access(printer, self, self.buffer, self.indices)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buffer, indices, attrs, ty = _parse_access(parser)
        op = cls(parser.resolve_operand(value, ty.element_type), buffer, indices)
        op.attributes |= attrs
        return op


@irdl_op_definition
class AllocateOp(IRDLOperation):
    """Allocates a buffer (TVM `Allocate`).

    `scope` is "global" or "local". A statically shaped buffer lives until
    the enclosing `tir.prim_func` returns, wherever the op sits (code
    generation hoists the allocation to the function entry; its contents are
    undefined). A buffer with dynamic axes takes one `index` extent per `?`
    (as `memref.alloc`), must sit directly in the prim_func body (so it is
    allocated once), and is allocated on the heap where the op is.

        %buf = tir.allocate "local" : memref<16xf32>
        %rows = tir.allocate "global"(%n) : memref<?x10xf32>
    """

    name = "tir.allocate"

    scope = prop_def(StringAttr)
    sizes = var_operand_def(IndexType())
    res = result_def(MemRefType)

    traits = traits_def(MemoryAllocEffect())

    assembly_format = "$scope (`(` $sizes^ `)`)? attr-dict `:` type($res)"

    def __init__(
        self, result_type: Attribute, scope: str = "global", sizes: Sequence[SSAValue] = ()
    ):
        super().__init__(
            operands=[list(sizes)],
            properties={"scope": StringAttr(scope)},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        if self.scope.data not in ALLOCATE_SCOPES:
            raise VerifyException(
                f"tir.allocate scope must be one of {', '.join(ALLOCATE_SCOPES)}, "
                f"got {self.scope.data!r}"
            )
        ty = self.res.type
        assert isinstance(ty, MemRefType)
        if not isinstance(ty.layout, NoneAttr):
            raise VerifyException(
                f"tir.allocate needs a memref with the default layout, got {ty}"
            )
        dynamic = sum(1 for d in ty.get_shape() if d == DYNAMIC_INDEX)
        if dynamic != len(self.sizes):
            raise VerifyException(
                f"tir.allocate of {ty} needs {dynamic} extent operand(s), one per dynamic "
                f"axis, got {len(self.sizes)}"
            )
        if dynamic and self.parent_op() is not None and self.parent_op().name != "tir.prim_func":
            raise VerifyException(
                f"tir.allocate of the dynamic {ty} must be directly in the tir.prim_func "
                "body (it is allocated where it is, once)"
            )
