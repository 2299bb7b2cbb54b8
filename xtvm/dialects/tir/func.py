"""`tir.prim_func` and `tir.return`: the loop program and its terminator."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, BlockArgument, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

_RESERVED_ATTRS = ("sym_name", "function_type")

BUFFER_SHAPES_ATTR = "tir.buffer_shapes"
"""Discardable attribute recording each argument's logical shape once
`tir-flatten-buffer` has made the buffers 1-d (an `array<i64: ...>` per
argument, empty for scalars); the packed calling convention checks callers'
tensors against these shapes."""


def is_scalar_arg_type(ty: Attribute) -> bool:
    """True for the scalar parameter types a prim_func accepts (int, index, float)."""
    return isinstance(ty, IntegerType | IndexType | AnyFloat)


def is_static_buffer_type(ty: Attribute) -> bool:
    """True for a statically shaped memref with the default (row-major) layout."""
    return isinstance(ty, MemRefType) and ty.has_static_shape() and isinstance(ty.layout, NoneAttr)


@irdl_op_definition
class PrimFuncOp(IRDLOperation):
    """A TIR primitive function: a loop program over buffers (TVM `PrimFunc`).

    Arguments are statically shaped memrefs (buffers) or scalars (int, index,
    float); there are no results, outputs are written into buffer arguments
    (destination passing). The body is one block ending in `tir.return`.
    Discardable attributes: `arg_names` (one string per argument, used in
    error messages and the runtime signature) and `tir.buffer_shapes` (the
    logical shapes of flattened buffer arguments, see `BUFFER_SHAPES_ATTR`).

        tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>)
            attributes {arg_names = ["A", "B"]} {
          ...
          tir.return
        }
    """

    name = "tir.prim_func"

    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        body: Region | None = None,
        arg_names: Sequence[str] | None = None,
    ):
        function_type = FunctionType.from_lists(arg_types, [])
        if body is None:
            body = Region(Block(arg_types=arg_types))
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": function_type},
            regions=[body],
        )
        if arg_names is not None:
            self.attributes["arg_names"] = ArrayAttr(StringAttr(n) for n in arg_names)

    @property
    def args(self) -> tuple[BlockArgument, ...]:
        """The function's parameters (entry block arguments)."""
        return self.body.block.args

    @property
    def arg_names(self) -> list[str]:
        """Parameter names from `arg_names`, or `arg0, arg1, ...` when absent."""
        names = self.attributes.get("arg_names")
        if isinstance(names, ArrayAttr):
            return [n.data for n in names.data if isinstance(n, StringAttr)]
        return [f"arg{i}" for i in range(len(self.args))]

    @property
    def buffer_shapes(self) -> list[tuple[int, ...] | None]:
        """Each argument's logical shape (None for scalars).

        This is `tir.buffer_shapes` when flattening recorded it, else the
        memref shape.
        """
        recorded = self.attributes.get(BUFFER_SHAPES_ATTR)
        shapes: list[tuple[int, ...] | None] = []
        for i, arg in enumerate(self.args):
            if not isinstance(arg.type, MemRefType):
                shapes.append(None)
            elif isinstance(recorded, ArrayAttr):
                entry = recorded.data[i]
                assert isinstance(entry, DenseArrayBase)
                shapes.append(tuple(int(d) for d in entry.get_values()))
            else:
                shapes.append(tuple(arg.type.get_shape()))
        return shapes

    def verify_(self) -> None:
        where = f"tir.prim_func @{self.sym_name.data}"
        if self.function_type.outputs.data:
            raise VerifyException(f"{where} must not have results")
        if len(self.body.blocks) != 1:
            raise VerifyException(
                f"{where}: body must be one block ending with tir.return, "
                f"got {len(self.body.blocks)} blocks"
            )
        block = self.body.block
        if self.function_type.inputs.data != block.arg_types:
            raise VerifyException(
                f"{where}: entry block argument types {list(block.arg_types)} "
                f"differ from the function type {self.function_type}"
            )
        for i, ty in enumerate(block.arg_types):
            if not (is_static_buffer_type(ty) or is_scalar_arg_type(ty)):
                raise VerifyException(
                    f"{where}: argument {i} has type {ty}; expected a statically "
                    "shaped memref with the default layout, or an int, index or "
                    "float scalar"
                )
        names = self.attributes.get("arg_names")
        if names is not None:
            if not isinstance(names, ArrayAttr) or not all(
                isinstance(n, StringAttr) for n in names.data
            ):
                raise VerifyException(f"{where}: arg_names must be an array of strings")
            if len(names.data) != len(block.args):
                raise VerifyException(
                    f"{where}: arg_names has {len(names.data)} entries for "
                    f"{len(block.args)} arguments"
                )
        self._verify_buffer_shapes(where)
        if not isinstance(block.last_op, ReturnOp):
            raise VerifyException(f"{where}: body must end with tir.return")

    def _verify_buffer_shapes(self, where: str) -> None:
        shapes = self.attributes.get(BUFFER_SHAPES_ATTR)
        if shapes is None:
            return
        args = self.body.block.args
        if not isinstance(shapes, ArrayAttr) or len(shapes.data) != len(args):
            raise VerifyException(
                f"{where}: {BUFFER_SHAPES_ATTR} must be an array with one "
                f"array<i64: ...> per argument"
            )
        for i, (entry, arg) in enumerate(zip(shapes.data, args, strict=True)):
            if not isinstance(entry, DenseArrayBase) or entry.elt_type != i64:
                raise VerifyException(f"{where}: {BUFFER_SHAPES_ATTR}[{i}] must be array<i64: ...>")
            dims = entry.get_values()
            if isinstance(arg.type, MemRefType):
                numel = math.prod(arg.type.get_shape())
                if math.prod(dims) != numel or any(d < 0 for d in dims):
                    raise VerifyException(
                        f"{where}: {BUFFER_SHAPES_ATTR}[{i}] = {list(dims)} does not have "
                        f"the {numel} elements of {arg.type}"
                    )
            elif dims:
                raise VerifyException(
                    f"{where}: {BUFFER_SHAPES_ATTR}[{i}] must be empty for scalar argument"
                )

    @classmethod
    def parse(cls, parser: Parser) -> PrimFuncOp:
        name, inputs, outputs, region, extra_attrs, arg_attrs, _ = parse_func_op_like(
            parser, reserved_attr_names=_RESERVED_ATTRS
        )
        if outputs:
            parser.raise_error(f"tir.prim_func @{name} must not have results")
        if arg_attrs is not None:
            parser.raise_error("tir.prim_func does not take argument attributes")
        op = cls(name, inputs, region)
        if extra_attrs is not None:
            op.attributes |= extra_attrs.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            reserved_attr_names=_RESERVED_ATTRS,
        )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Terminates a `tir.prim_func` body; takes no operands.

    tir.return
    """

    name = "tir.return"

    traits = traits_def(IsTerminator(), HasParent(PrimFuncOp))

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()
