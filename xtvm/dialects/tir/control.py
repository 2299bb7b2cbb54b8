"""Structured control flow of TIR: `tir.for`, `tir.if`, `tir.yield`, `tir.assert`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import DictionaryAttr, IndexType, StringAttr, i1
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

LOOP_KINDS = ("serial", "parallel", "vectorized", "unrolled")
"""The `kind` values of `tir.for` (TVM's `ForKind`, thread binding excluded)."""


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Implicit terminator of `tir.for` and `tir.if` bodies (never printed)."""

    name = "tir.yield"

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ForOp, IfOp), Pure()))

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


def _single_block_region(
    body: Region | Block | Sequence[Operation], arg_types: Sequence[Attribute] = ()
) -> Region:
    """Wrap `body` in a region and append the implicit `tir.yield` where missing."""
    if isinstance(body, Block):
        body = Region(body)
    elif not isinstance(body, Region):
        body = Region(Block(body, arg_types=arg_types))
    if not body.blocks:
        body.add_block(Block(arg_types=arg_types))
    for block in body.blocks:
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
            block.add_op(YieldOp())
    return body


@irdl_op_definition
class ForOp(IRDLOperation):
    """A step-1 loop `for (i = lb; i < ub; ++i)` over an `index` variable.

    TVM's `For` has `min` and `extent`; xtvm prints the bounds `lb` and `ub =
    min + extent`. `kind` is one of serial, parallel (iterations may run
    concurrently: code generation runs an outermost one on OpenMP threads),
    vectorized (a hint; LLVM vectorises), unrolled (`tir-unroll-loop` unrolls it);
    optional `annotations` carry TVM's loop annotations (e.g.
    `pragma_auto_unroll_max_step`). The body has one block whose only argument
    is the loop variable; its `tir.yield` terminator is implicit.

        tir.for %i = %c0 to %c3 kind "serial" {
          ...
        }
        tir.for %j = %c0 to %c8 kind "vectorized" annotations {hint = 1 : i64} {
          ...
        }
    """

    name = "tir.for"

    lb = operand_def(IndexType)
    ub = operand_def(IndexType)
    kind = prop_def(StringAttr)
    annotations = opt_prop_def(DictionaryAttr)
    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        body: Region | Block | Sequence[Operation],
        kind: str = "serial",
        annotations: Mapping[str, Attribute] | DictionaryAttr | None = None,
    ):
        if isinstance(annotations, Mapping):
            annotations = DictionaryAttr(dict(annotations)) if annotations else None
        super().__init__(
            operands=[lb, ub],
            properties={"kind": StringAttr(kind), "annotations": annotations},
            regions=[_single_block_region(body, [IndexType()])],
        )

    @property
    def induction_var(self) -> SSAValue:
        """The loop variable (the body block's argument)."""
        return self.body.block.args[0]

    def verify_(self) -> None:
        if self.kind.data not in LOOP_KINDS:
            raise VerifyException(
                f"tir.for kind must be one of {', '.join(LOOP_KINDS)}, got {self.kind.data!r}"
            )
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException(
                "tir.for body must have exactly one block argument of type index "
                "(the loop variable)"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.induction_var)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" kind ")
        printer.print_attribute(self.kind)
        if self.annotations is not None:
            printer.print_string(" annotations ")
            printer.print_attribute(self.annotations)
        printer.print_string(" ")
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_empty_block=False,
            print_block_terminators=False,
        )
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        index = IndexType()
        indvar = parser.parse_argument(expect_type=False).resolve(index)
        parser.parse_punctuation("=")
        lb = parser.resolve_operand(parser.parse_unresolved_operand(), index)
        parser.parse_keyword("to")
        ub = parser.resolve_operand(parser.parse_unresolved_operand(), index)
        parser.parse_keyword("kind")
        kind = parser.parse_str_literal()
        annotations = None
        if parser.parse_optional_keyword("annotations") is not None:
            annotations = DictionaryAttr(parser.parse_optional_attr_dict())
        body = parser.parse_region((indvar,))
        attrs = parser.parse_optional_attr_dict()
        op = cls(lb, ub, body, kind, annotations)
        op.attributes |= attrs
        return op


@irdl_op_definition
class IfOp(IRDLOperation):
    """Conditional execution without results; the `else` region is optional.

    tir.if %cond {
      ...
    } else {
      ...
    }
    """

    name = "tir.if"

    cond = operand_def(i1)
    then_region = region_def("single_block")
    else_region = region_def()

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        cond: SSAValue | Operation,
        then_body: Region | Block | Sequence[Operation],
        else_body: Region | Block | Sequence[Operation] | None = None,
    ):
        super().__init__(
            operands=[cond],
            regions=[
                _single_block_region(then_body),
                Region() if else_body is None else _single_block_region(else_body),
            ],
        )

    def verify_(self) -> None:
        if len(self.else_region.blocks) > 1:
            raise VerifyException("tir.if else region must have at most one block")
        for region in self.regions:
            if region.blocks and region.block.args:
                raise VerifyException("tir.if regions must not have block arguments")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" ")
        printer.print_region(
            self.then_region, print_entry_block_args=False, print_block_terminators=False
        )
        if self.else_region.blocks:
            printer.print_string(" else ")
            printer.print_region(
                self.else_region,
                print_entry_block_args=False,
                print_block_terminators=False,
            )
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_operand(i1)
        then_region = parser.parse_region()
        else_region = None
        if parser.parse_optional_keyword("else") is not None:
            else_region = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        op = cls(cond, then_region, else_region)
        op.attributes |= attrs
        return op


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Fails the call with `message` when `cond` is false (TVM `AssertStmt`).

    In generated code a failing assert makes the packed function return
    error kind 7 with the assert's position in the function.

        tir.assert %ok, "index out of range"
    """

    name = "tir.assert"

    cond = operand_def(i1)
    message = prop_def(StringAttr)

    assembly_format = "$cond `,` $message attr-dict"

    def __init__(self, cond: SSAValue | Operation, message: str):
        super().__init__(operands=[cond], properties={"message": StringAttr(message)})
