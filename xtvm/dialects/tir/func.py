"""`tir.prim_func` and `tir.return`: the loop program and its terminator."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
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
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

_RESERVED_ATTRS = ("sym_name", "function_type")

BUFFER_SHAPES_ATTR = "tir.buffer_shapes"
"""Discardable attribute recording each argument's logical shape once
`tir-flatten-buffer` has made the buffers 1-d (an `array<i64: ...>` per
argument, empty for scalars); the packed calling convention checks callers'
tensors against these shapes. A dynamic axis is -1 (its extent is a shape
variable, see `SHAPE_VARS_ATTR`)."""

SHAPE_VARS_ATTR = "tir.shape_vars"
"""Discardable attribute naming a prim_func's shape variables: extents known
only at call time. `{n = [array<i64: 0, 0>, array<i64: 2, 0>]}`: `n` is the
extent of argument 0's axis 0 and of argument 2's axis 0. The packed entry
binds each variable from its first (argument, axis) and checks that every
other one holds the same value; the body reads it with `tir.shape_var`.
Every dynamic axis of an argument (`?` in its memref type, or -1 in
`tir.buffer_shapes` once flattened) is listed under exactly one variable."""

DYNAMIC = -1
"""A dynamic axis in `tir.buffer_shapes` and in `PrimFuncOp.buffer_shapes`."""


def is_scalar_arg_type(ty: Attribute) -> bool:
    """True for the scalar parameter types a prim_func accepts (int, index, float)."""
    return isinstance(ty, IntegerType | IndexType | AnyFloat)


def is_static_buffer_type(ty: Attribute) -> bool:
    """True for a statically shaped memref with the default (row-major) layout."""
    return isinstance(ty, MemRefType) and ty.has_static_shape() and isinstance(ty.layout, NoneAttr)


def is_buffer_type(ty: Attribute) -> bool:
    """True for a memref with the default (row-major) layout, static or with
    dynamic axes."""
    return isinstance(ty, MemRefType) and isinstance(ty.layout, NoneAttr)


@irdl_op_definition
class PrimFuncOp(IRDLOperation):
    """A TIR primitive function: a loop program over buffers (TVM `PrimFunc`).

    Arguments are memrefs (buffers) or scalars (int, index, float); there
    are no results, outputs are written into buffer arguments (destination
    passing). The body is one block ending in `tir.return`.
    Discardable attributes: `arg_names` (one string per argument, used in
    error messages and the runtime signature), `tir.buffer_shapes` (the
    logical shapes of flattened buffer arguments, see `BUFFER_SHAPES_ATTR`)
    and `tir.shape_vars` (the variables that are the extents of dynamic axes,
    see `SHAPE_VARS_ATTR`; a buffer may have a dynamic axis only then).

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
    def shape_vars(self) -> dict[str, list[tuple[int, int]]]:
        """`tir.shape_vars` as {name: [(argument, axis), ...]} (empty when absent)."""
        attr = self.attributes.get(SHAPE_VARS_ATTR)
        if not isinstance(attr, DictionaryAttr):
            return {}
        result: dict[str, list[tuple[int, int]]] = {}
        for name, axes in attr.data.items():
            pairs = axes.data if isinstance(axes, ArrayAttr) else ()
            result[name] = [
                tuple(int(v) for v in p.get_values())  # type: ignore[misc]
                for p in pairs
                if isinstance(p, DenseArrayBase)
            ]
        return result

    @shape_vars.setter
    def shape_vars(self, value: dict[str, list[tuple[int, int]]]) -> None:
        self.attributes[SHAPE_VARS_ATTR] = DictionaryAttr(
            {
                name: ArrayAttr(DenseArrayBase.from_list(i64, list(pair)) for pair in axes)
                for name, axes in value.items()
            }
        )

    def axis_vars(self) -> dict[tuple[int, int], str]:
        """Each dynamic (argument, axis) → the name of its shape variable."""
        return {pair: name for name, axes in self.shape_vars.items() for pair in axes}

    def shape_rule(self) -> list[list[int | tuple[int, int]] | None]:
        """The closed-form shape function of the kernel: per argument (None
        for a scalar), per axis, its static extent or the `(argument, axis)`
        that binds its shape variable (the variable's first axis in argument
        order). A caller that knows the inputs' shapes computes the outputs'
        from it: `convert-relay-to-tir` binds every variable from an input."""
        binding = {name: min(axes) for name, axes in self.shape_vars.items()}
        names = self.axis_vars()
        return [
            None
            if shape is None
            else [binding[names[(i, k)]] if d == DYNAMIC else d for k, d in enumerate(shape)]
            for i, shape in enumerate(self.buffer_shapes)
        ]

    def shapes_for(self, inputs: Sequence[Sequence[int]]) -> list[tuple[int, ...] | None]:
        """Every argument's shape when the first arguments have the shapes
        `inputs` (the shape function on concrete sizes); a ValueError when
        a shape variable is bound by an argument not among them."""
        result: list[tuple[int, ...] | None] = []
        for i, rule in enumerate(self.shape_rule()):
            if rule is None:
                result.append(None)
                continue
            dims = []
            for d in rule:
                if isinstance(d, int):
                    dims.append(d)
                elif d[0] < len(inputs):
                    dims.append(int(inputs[d[0]][d[1]]))
                else:
                    raise ValueError(
                        f"@{self.sym_name.data}: axis {d[1]} of argument {d[0]} binds a shape "
                        f"variable, but only {len(inputs)} input shapes are given"
                    )
            result.append(tuple(dims))
        return result

    @property
    def buffer_shapes(self) -> list[tuple[int, ...] | None]:
        """Each argument's logical shape (None for scalars; `DYNAMIC` for a
        dynamic axis).

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
                shapes.append(
                    tuple(DYNAMIC if d == DYNAMIC_INDEX else d for d in arg.type.get_shape())
                )
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
            if not (is_buffer_type(ty) or is_scalar_arg_type(ty)):
                raise VerifyException(
                    f"{where}: argument {i} has type {ty}; expected a memref with "
                    "the default layout, or an int, index or float scalar"
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
        self._verify_shape_vars(where)
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
                if any(d < 0 and d != DYNAMIC for d in dims):
                    raise VerifyException(
                        f"{where}: {BUFFER_SHAPES_ATTR}[{i}] = {list(dims)} has a negative "
                        f"extent other than {DYNAMIC} (dynamic)"
                    )
                if arg.type.has_static_shape():
                    numel = math.prod(arg.type.get_shape())
                    if math.prod(dims) != numel or DYNAMIC in dims:
                        raise VerifyException(
                            f"{where}: {BUFFER_SHAPES_ATTR}[{i}] = {list(dims)} does not "
                            f"have the {numel} elements of {arg.type}"
                        )
                elif DYNAMIC not in dims:
                    raise VerifyException(
                        f"{where}: {BUFFER_SHAPES_ATTR}[{i}] = {list(dims)} is static, "
                        f"but argument {i} has the dynamic type {arg.type}"
                    )
            elif dims:
                raise VerifyException(
                    f"{where}: {BUFFER_SHAPES_ATTR}[{i}] must be empty for scalar argument"
                )

    def _verify_shape_vars(self, where: str) -> None:
        """Every dynamic axis is listed under exactly one shape variable, and
        every listed (argument, axis) is a dynamic axis."""
        attr = self.attributes.get(SHAPE_VARS_ATTR)
        if attr is not None and not (
            isinstance(attr, DictionaryAttr)
            and all(
                isinstance(axes, ArrayAttr)
                and axes.data
                and all(
                    isinstance(p, DenseArrayBase) and p.elt_type == i64 and len(p) == 2
                    for p in axes.data
                )
                for axes in attr.data.values()
            )
        ):
            raise VerifyException(
                f"{where}: {SHAPE_VARS_ATTR} must map each variable name to a non-empty "
                "array of array<i64: argument, axis> pairs"
            )
        dynamic = {
            (i, k)
            for i, shape in enumerate(self.buffer_shapes)
            for k, d in enumerate(shape or ())
            if d == DYNAMIC
        }
        listed: dict[tuple[int, int], str] = {}
        for name, axes in self.shape_vars.items():
            for pair in axes:
                if pair not in dynamic:
                    raise VerifyException(
                        f"{where}: {SHAPE_VARS_ATTR} lists axis {pair[1]} of argument "
                        f"{pair[0]} under '{name}', but that is not a dynamic axis"
                    )
                if pair in listed:
                    raise VerifyException(
                        f"{where}: axis {pair[1]} of argument {pair[0]} is listed under "
                        f"both '{listed[pair]}' and '{name}' in {SHAPE_VARS_ATTR}"
                    )
                listed[pair] = name
        if missing := sorted(dynamic - listed.keys()):
            arg, axis = missing[0]
            raise VerifyException(
                f"{where}: axis {axis} of argument {arg} is dynamic but no shape variable "
                f"in {SHAPE_VARS_ATTR} names it"
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
class ShapeVarOp(IRDLOperation):
    """The value of a shape variable of the enclosing `tir.prim_func` (one
    listed in its `tir.shape_vars`): the extent of a dynamic axis, bound by
    the packed entry at call time.

        %n = tir.shape_var "n"
    """

    name = "tir.shape_var"

    var_name = prop_def(StringAttr)
    res = result_def(IndexType())

    traits = traits_def(Pure())

    assembly_format = "$var_name attr-dict"

    def __init__(self, var_name: str):
        super().__init__(properties={"var_name": StringAttr(var_name)}, result_types=[IndexType()])

    def verify_(self) -> None:
        func = self.parent_op()
        while func is not None and not isinstance(func, PrimFuncOp):
            func = func.parent_op()
        if func is None:
            raise VerifyException("tir.shape_var must be inside a tir.prim_func")
        if self.var_name.data not in func.shape_vars:
            known = ", ".join(func.shape_vars) or "none"
            raise VerifyException(
                f"tir.shape_var '{self.var_name.data}' is not a shape variable of "
                f"@{func.sym_name.data} (its {SHAPE_VARS_ATTR}: {known})"
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
