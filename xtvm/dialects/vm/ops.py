"""The ``vm`` dialect's types and ops: TVM's Relay VM instructions as IR.

A ``vm.func`` is a function of blocks; its SSA values are the VM's
registers. Tensors may have ``?`` dimensions: their shapes come from
shape tensors (1-d integer tensors, TVM's shape registers) at run time.
Control flow is MLIR style: ``vm.if`` and ``vm.goto`` end blocks and pass
block arguments (the bytecode turns them into register moves).

The op names and syntax are a contract with the lowerings that produce
them (memory → vm, relay control flow → vm): docs/vm.md lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FixedBitwidthType,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParamAttrConstraint,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    successor_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryFreeEffect,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from xtvm.dialects.memory.ops import DestinationCallOp

DEFAULT_ALIGNMENT = 64
"""Byte alignment of storage (the runtime's ``NDArray`` alignment)."""

NAME_ATTR = "relay.name"
"""The argument/result attribute naming a model input or output."""


@irdl_attr_definition
class StorageType(ParametrizedAttribute, TypeAttribute):
    """A block of raw bytes that tensors are placed in: ``!vm.storage``."""

    name = "vm.storage"


@irdl_attr_definition
class ADTType(ParametrizedAttribute, TypeAttribute):
    """An algebraic data type value (TVM's ADT object): a tag and fields.
    Tuples are tag 0; sequences and optionals are ADTs too: ``!vm.adt``."""

    name = "vm.adt"


def _is_scalar_int(ty: Attribute) -> bool:
    return isinstance(ty, (IntegerType, IndexType))


def _is_shape_tensor(ty: Attribute) -> bool:
    """A 1-d integer tensor: a shape (TVM's shape register)."""
    return (
        isinstance(ty, TensorType)
        and len(ty.get_shape()) == 1
        and isinstance(ty.element_type, IntegerType)
    )


def _dynamic(ty: TensorType) -> bool:
    return not ty.has_static_shape()


# ----------------------------------------------------------------------------
# Functions

_FUNC_RESERVED = ("sym_name", "function_type", "arg_attrs", "res_attrs")


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A VM function: blocks of VM instructions over registers (SSA values).

    ```mlir
    vm.func @main(%x: tensor<?x4xf32> {relay.name = "x"}) -> (tensor<?x4xf32> {relay.name = "y"}) {
      ...
      vm.ret %y : tensor<?x4xf32>
    }
    ```
    The entry block's arguments are the parameters; every block ends in
    ``vm.ret``, ``vm.if`` or ``vm.goto``.
    """

    name = "vm.func"
    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())


    def __init__(
        self,
        name: str,
        inputs: Sequence[Attribute],
        outputs: Sequence[Attribute],
        body: Region | None = None,
        arg_attrs: ArrayAttr[DictionaryAttr] | None = None,
        res_attrs: ArrayAttr[DictionaryAttr] | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=inputs))
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(inputs, outputs),
        }
        if arg_attrs is not None:
            props["arg_attrs"] = arg_attrs
        if res_attrs is not None:
            props["res_attrs"] = res_attrs
        super().__init__(properties=props, regions=[body])

    @property
    def args(self):
        return self.body.blocks[0].args

    def _names(self, attrs: ArrayAttr[DictionaryAttr] | None, count: int, prefix: str) -> list[str]:
        names = []
        for i in range(count):
            entry = attrs.data[i].data.get(NAME_ATTR) if attrs is not None and i < len(attrs.data) else None
            names.append(entry.data if isinstance(entry, StringAttr) else f"{prefix}{i}")
        return names

    def arg_names(self) -> list[str]:
        """Each parameter's ``relay.name``, else its SSA name, else ``input<i>``."""
        names = self._names(self.arg_attrs, len(self.function_type.inputs.data), "input")
        args = self.body.blocks[0].args if self.body.blocks else ()
        for i, arg in enumerate(args):
            if names[i] == f"input{i}" and arg.name_hint:
                names[i] = arg.name_hint
        return names

    def result_names(self) -> list[str]:
        """Each result's ``relay.name``, else ``output<i>``."""
        return self._names(self.res_attrs, len(self.function_type.outputs.data), "output")

    def verify_(self) -> None:
        where = f"vm.func @{self.sym_name.data}"
        if not self.body.blocks:
            raise VerifyException(f"{where} has no body")
        if self.function_type.inputs.data != self.body.blocks[0].arg_types:
            raise VerifyException(
                f"{where}: entry block argument types {list(self.body.blocks[0].arg_types)} "
                f"differ from the function type {self.function_type}"
            )
        for block in self.body.blocks:
            last = block.last_op
            if last is None or not last.has_trait(IsTerminator):
                raise VerifyException(
                    f"{where}: every block must end in vm.ret, vm.if or vm.goto"
                )
            for op in block.ops:
                if op.dialect_name() not in ("vm",):
                    raise VerifyException(
                        f"{where} holds '{op.name}': only vm ops run on the VM"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=_FUNC_RESERVED
        )
        op = cls(name, inputs, outputs, region, arg_attrs, res_attrs)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=_FUNC_RESERVED,
        )


@irdl_op_definition
class RetOp(IRDLOperation):
    """Returns from a ``vm.func`` (TVM's ``Ret``); types match the function's results.

    ```mlir
    vm.ret %y, %z : tensor<2x10xf32>, tensor<2xi64>
    ```
    """

    name = "vm.ret"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        fn = self.parent_op()
        while fn is not None and not isinstance(fn, FuncOp):
            fn = fn.parent_op()
        if fn is None:
            raise VerifyException("vm.ret must be inside a vm.func")
        expected = list(fn.function_type.outputs.data)
        got = [v.type for v in self.values]
        if got != expected:
            raise VerifyException(
                f"vm.ret returns ({', '.join(map(str, got))}) but @{fn.sym_name.data} "
                f"returns ({', '.join(map(str, expected))})"
            )


def _fits(value: Attribute, param: Attribute) -> bool:
    """Whether a register of type ``value`` may be passed where ``param``
    is taken: the same type, or a tensor whose sizes the parameter leaves
    as ``?`` (the branches of a relay.if joined: ``3x4`` into ``?x4``)."""
    if value == param:
        return True
    if not (isinstance(value, TensorType) and isinstance(param, TensorType)):
        return False
    v, p = value.get_shape(), param.get_shape()
    return (
        value.element_type == param.element_type
        and len(v) == len(p)
        and all(a == b or b == DYNAMIC_INDEX for a, b in zip(v, p))
    )


def _check_successor_args(what: str, block: Block, args: Sequence[SSAValue]) -> None:
    want = list(block.arg_types)
    got = [a.type for a in args]
    if len(want) != len(got) or not all(_fits(g, w) for g, w in zip(got, want)):
        raise VerifyException(
            f"{what} passes ({', '.join(map(str, got))}) to a block taking "
            f"({', '.join(map(str, want))})"
        )


@irdl_op_definition
class IfOp(IRDLOperation):
    """Branches on ``cond`` (TVM's ``If``): to ``then`` if it is nonzero.
    ``cond`` is an integer scalar (e.g. from ``vm.load_consti``) or a
    one-element integer tensor (e.g. computed by a kernel).

    ```mlir
    vm.if %c : tensor<i1>, ^then(%x : tensor<4xf32>), ^else
    ```
    """

    name = "vm.if"
    cond = operand_def()
    then_arguments = var_operand_def()
    else_arguments = var_operand_def()
    then_block = successor_def()
    else_block = successor_def()
    traits = traits_def(IsTerminator())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$cond `:` type($cond) `,` "
        "$then_block (`(` $then_arguments^ `:` type($then_arguments) `)`)? `,` "
        "$else_block (`(` $else_arguments^ `:` type($else_arguments) `)`)? attr-dict"
    )

    def __init__(
        self,
        cond: SSAValue,
        then_block: Block,
        then_args: Sequence[SSAValue],
        else_block: Block,
        else_args: Sequence[SSAValue],
    ):
        super().__init__(operands=[cond, then_args, else_args], successors=[then_block, else_block])

    def verify_(self) -> None:
        ty = self.cond.type
        ok = _is_scalar_int(ty) or (
            isinstance(ty, TensorType)
            and isinstance(ty.element_type, IntegerType)
            and ty.has_static_shape()
            and all(d == 1 for d in ty.get_shape())
        )
        if not ok:
            raise VerifyException(
                f"vm.if condition must be an integer scalar or a one-element integer tensor, got {ty}"
            )
        _check_successor_args("vm.if (then)", self.then_block, self.then_arguments)
        _check_successor_args("vm.if (else)", self.else_block, self.else_arguments)


@irdl_op_definition
class GotoOp(IRDLOperation):
    """Jumps to a block, passing its arguments (TVM's ``Goto``; the
    bytecode moves the values into the block's registers first).

    ```mlir
    vm.goto ^loop(%i, %acc : i64, tensor<4xf32>)
    ```
    """

    name = "vm.goto"
    arguments = var_operand_def()
    successor = successor_def()
    traits = traits_def(IsTerminator())
    assembly_format = "$successor (`(` $arguments^ `:` type($arguments) `)`)? attr-dict"

    def __init__(self, dest: Block, args: Sequence[SSAValue] = ()):
        super().__init__(operands=[args], successors=[dest])

    def verify_(self) -> None:
        _check_successor_args("vm.goto", self.successor, self.arguments)


@irdl_op_definition
class InvokeOp(IRDLOperation):
    """Calls another ``vm.func`` (TVM's ``Invoke``).

    ```mlir
    %r = vm.invoke @body(%x, %i) : (tensor<4xf32>, i64) -> tensor<4xf32>
    ```
    """

    name = "vm.invoke"
    callee = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    res = var_result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"

    def __init__(self, callee: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]):
        super().__init__(
            operands=[args], result_types=[result_types], properties={"callee": SymbolRefAttr(callee)}
        )

    def verify_(self) -> None:
        from xdsl.traits import SymbolTable

        name = self.callee.string_value()
        found = SymbolTable.lookup_symbol(self, name)
        if found is None:
            return  # a module under construction; the executable checks again
        if not isinstance(found, FuncOp):
            raise VerifyException(f"vm.invoke @{name}: '{found.name}' is not a vm.func")
        ft = found.function_type
        if [a.type for a in self.args] != list(ft.inputs.data) or [r.type for r in self.res] != list(
            ft.outputs.data
        ):
            raise VerifyException(
                f"vm.invoke @{name}: call type ({', '.join(str(a.type) for a in self.args)}) -> "
                f"({', '.join(str(r.type) for r in self.res)}) differs from the callee's {ft}"
            )


# ----------------------------------------------------------------------------
# Kernels and memory


@irdl_op_definition
class InvokePackedOp(DestinationCallOp):
    """Calls the kernel ``callee`` (a ``tir.prim_func`` of the module, in the
    kernel library at run time) on its inputs, then the tensors it writes
    (TVM's ``InvokePacked``, destination passing).

    ```mlir
    vm.invoke_packed @fused_add ins(%a, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%c : tensor<?x4xf32>)
    ```
    """

    name = "vm.invoke_packed"


@irdl_op_definition
class AllocStorageOp(IRDLOperation):
    """Allocates storage (TVM's ``AllocStorage``): ``size`` bytes as an
    attribute when known at compile time, or an integer operand computed at
    run time, or ``shape(...)``: the bytes of one tensor of that shape (a
    1-d integer tensor) and of element type ``dtype_hint``; ``alignment`` a
    power of two; ``dtype_hint`` the element type the storage will hold.

    ```mlir
    %s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64, dtype_hint = f32} : !vm.storage
    %d = vm.alloc_storage %nbytes : i64 {alignment = 64 : i64, dtype_hint = f32} : !vm.storage
    %e = vm.alloc_storage shape(%shp : tensor<2xi64>) {alignment = 64 : i64, dtype_hint = f32} : !vm.storage
    ```
    """

    name = "vm.alloc_storage"
    dynamic_size = opt_operand_def(IntegerType | IndexType)
    shape = opt_operand_def(TensorType)
    size = opt_prop_def(IntegerAttr.constr(type=i64))
    alignment = prop_def(IntegerAttr.constr(type=i64))
    dtype_hint = opt_prop_def(AnyAttr())
    storage = result_def(StorageType)
    traits = traits_def(MemoryAllocEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "($dynamic_size^ `:` type($dynamic_size))? (`shape` `(` $shape^ `:` type($shape) `)`)? "
        "attr-dict `:` type($storage)"
    )

    def __init__(
        self,
        size: int | SSAValue,
        alignment: int = DEFAULT_ALIGNMENT,
        dtype_hint: Attribute | None = None,
    ):
        """``size``: bytes (an int, or an integer value), or a shape tensor
        value (then ``dtype_hint`` is required)."""
        props: dict[str, Attribute] = {"alignment": IntegerAttr(alignment, i64)}
        operands: list = [[], []]
        if isinstance(size, int):
            props["size"] = IntegerAttr(size, i64)
        elif isinstance(size.type, TensorType):
            operands = [[], [size]]
        else:
            operands = [[size], []]
        if dtype_hint is not None:
            props["dtype_hint"] = dtype_hint
        super().__init__(operands=operands, properties=props, result_types=[StorageType()])

    def verify_(self) -> None:
        given = [self.size is not None, self.dynamic_size is not None, self.shape is not None]
        if sum(given) != 1:
            raise VerifyException(
                "vm.alloc_storage takes its size either as an attribute (static) or as an "
                "operand (run time), exactly one of them"
            )
        if self.shape is not None:
            if not _is_shape_tensor(self.shape.type):
                raise VerifyException(
                    f"vm.alloc_storage shape operand must be a 1-d integer tensor, got {self.shape.type}"
                )
            if not isinstance(self.dtype_hint, FixedBitwidthType):
                raise VerifyException(
                    "vm.alloc_storage with a shape needs the element type as dtype_hint"
                )
        if self.size is not None and self.size.value.data < 0:
            raise VerifyException(f"vm.alloc_storage size {self.size.value.data} is negative")
        align = self.alignment.value.data
        if align <= 0 or align & (align - 1):
            raise VerifyException(f"vm.alloc_storage alignment {align} is not a power of two")


@irdl_op_definition
class AllocTensorOp(IRDLOperation):
    """A tensor in ``storage`` at byte ``offset`` (TVM's ``AllocTensor`` /
    ``AllocTensorReg``). A static shape comes from the result type; a result
    with ``?`` dimensions takes a shape tensor operand (``shape(...)``) whose
    values must agree with the static dimensions at run time.

    ```mlir
    %t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
    %u = vm.alloc_tensor %s shape(%shp : tensor<2xi64>) {offset = 0 : i64} : tensor<?x256xf32>
    ```
    """

    name = "vm.alloc_tensor"
    storage = operand_def(StorageType)
    shape = opt_operand_def(TensorType)
    offset = prop_def(IntegerAttr.constr(type=i64))
    result = result_def(TensorType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$storage (`shape` `(` $shape^ `:` type($shape) `)`)? attr-dict `:` type($result)"
    )

    def __init__(
        self,
        storage: SSAValue,
        offset: int,
        result_type: TensorType,
        shape: SSAValue | None = None,
    ):
        super().__init__(
            operands=[storage, [] if shape is None else [shape]],
            properties={"offset": IntegerAttr(offset, i64)},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        ty = self.result.type
        if not isinstance(ty.element_type, FixedBitwidthType):
            raise VerifyException(f"vm.alloc_tensor needs a fixed-width element type, got {ty}")
        offset = self.offset.value.data
        if offset < 0:
            raise VerifyException(f"vm.alloc_tensor offset {offset} is negative")
        if _dynamic(ty) and self.shape is None:
            raise VerifyException(
                f"vm.alloc_tensor of {ty} needs a shape operand for its '?' dimensions"
            )
        if self.shape is not None:
            sty = self.shape.type
            if not _is_shape_tensor(sty) or sty.get_shape()[0] != len(ty.get_shape()):
                raise VerifyException(
                    f"vm.alloc_tensor shape operand must be a 1-d integer tensor of "
                    f"{len(ty.get_shape())} element(s) (the rank of {ty}), got {sty}"
                )
        owner = self.storage.owner
        if (
            not _dynamic(ty)
            and isinstance(owner, AllocStorageOp)
            and owner.size is not None
        ):
            import math

            nbytes = math.prod(ty.get_shape()) * ty.element_type.size
            if offset + nbytes > owner.size.value.data:
                raise VerifyException(
                    f"vm.alloc_tensor {ty} at offset {offset} needs bytes up to "
                    f"{offset + nbytes}, but its storage has {owner.size.value.data}"
                )


@irdl_op_definition
class KillOp(IRDLOperation):
    """Frees a register (TVM's ``KillRegister``): nothing uses the value
    afterwards, so its memory may be released or reused.

    ```mlir
    vm.kill %t : tensor<1x256xf32>
    ```
    """

    name = "vm.kill"
    value = operand_def()
    traits = traits_def(MemoryFreeEffect())
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])

    def verify_(self) -> None:
        block = self.parent_block()
        for use in self.value.uses:
            user = use.operation
            if user is not self and user.parent_block() is block and not user.is_before_in_block(self):
                raise VerifyException(f"vm.kill frees a value that '{user.name}' uses afterwards")


# ----------------------------------------------------------------------------
# Constants, shapes and ADTs


@irdl_op_definition
class LoadConstOp(IRDLOperation):
    """A constant tensor of the executable's constant pool (TVM's
    ``LoadConst``). The value stays in the IR (dense, or a
    ``dense_resource`` blob for large ones), so a vm stage file is the
    whole program.

    ```mlir
    %w = vm.load_const dense<[1.0, 2.0]> : tensor<2xf32>
    ```
    """

    name = "vm.load_const"
    T: ClassVar = VarConstraint("T", base(TensorType))
    value = prop_def(
        ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr()))
        | ParamAttrConstraint(DenseResourceAttr, (AnyAttr(), T))
    )
    result = result_def(T)
    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr | DenseResourceAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])


@irdl_op_definition
class LoadConstIOp(IRDLOperation):
    """An integer scalar (TVM's ``LoadConsti``): loop counters, conditions, tags.

    ```mlir
    %c = vm.load_consti 3 : i64
    ```
    """

    name = "vm.load_consti"
    T: ClassVar = VarConstraint("T", base(IntegerType) | base(IndexType))
    value = prop_def(ParamAttrConstraint(IntegerAttr, (AnyAttr(), T)))
    result = result_def(T)
    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: int, ty: IntegerType | IndexType = i64):
        super().__init__(properties={"value": IntegerAttr(value, ty)}, result_types=[ty])


@irdl_op_definition
class ShapeOfOp(IRDLOperation):
    """The shape of a tensor as a 1-d integer tensor (TVM's ``ShapeOf``).

    ```mlir
    %s = vm.shape_of %x : tensor<?x4xf32> -> tensor<2xi64>
    ```
    """

    name = "vm.shape_of"
    tensor = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$tensor attr-dict `:` type($tensor) `->` type($result)"

    def __init__(self, tensor: SSAValue):
        rank = len(tensor.type.get_shape())
        super().__init__(operands=[tensor], result_types=[TensorType(i64, [rank])])

    def verify_(self) -> None:
        rank = len(self.tensor.type.get_shape())
        if self.result.type != TensorType(i64, [rank]):
            raise VerifyException(
                f"vm.shape_of of a rank-{rank} tensor gives tensor<{rank}xi64>, not {self.result.type}"
            )


@irdl_op_definition
class ShapeFromOp(IRDLOperation):
    """A shape built from the dimensions of tensors (the shape function of
    every kernel whose output dimensions are input dimensions: elementwise
    ops, dense, convolutions and pools over a dynamic batch, ...). ``dims``
    holds a pair per result dimension: ``(i, axis)`` is axis ``axis`` of
    operand ``i``, ``(-1, d)`` the constant ``d``.

    ```mlir
    %s = vm.shape_from %x {dims = array<i64: 0, 0, -1, 256>} : (tensor<?x784xf32>) -> tensor<2xi64>
    ```
    (``[x.shape[0], 256]``).
    """

    name = "vm.shape_from"
    tensors = var_operand_def(TensorType)
    dims = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tensors attr-dict `:` functional-type($tensors, $result)"

    def __init__(self, tensors: Sequence[SSAValue], dims: Sequence[tuple[int, int]]):
        flat = [v for pair in dims for v in pair]
        super().__init__(
            operands=[tensors],
            properties={"dims": DenseArrayBase.from_list(i64, flat)},
            result_types=[TensorType(i64, [len(dims)])],
        )

    def pairs(self) -> list[tuple[int, int]]:
        values = list(self.dims.get_values())
        return list(zip(values[::2], values[1::2]))

    def verify_(self) -> None:
        values = self.dims.get_values()
        if len(values) % 2:
            raise VerifyException("vm.shape_from dims holds (source, axis) pairs: an even count")
        rank = len(values) // 2
        if self.result.type != TensorType(i64, [rank]):
            raise VerifyException(
                f"vm.shape_from of {rank} dimension(s) gives tensor<{rank}xi64>, not {self.result.type}"
            )
        for k, (src, axis) in enumerate(self.pairs()):
            if src == -1:
                if axis < 0:
                    raise VerifyException(f"vm.shape_from dimension {k}: constant {axis} is negative")
                continue
            if not 0 <= src < len(self.tensors):
                raise VerifyException(
                    f"vm.shape_from dimension {k} reads operand {src}; there are {len(self.tensors)}"
                )
            src_rank = len(self.tensors[src].type.get_shape())
            if not 0 <= axis < src_rank:
                raise VerifyException(
                    f"vm.shape_from dimension {k} reads axis {axis} of a rank-{src_rank} operand"
                )


@irdl_op_definition
class ReshapeTensorOp(IRDLOperation):
    """The same bytes under another shape (TVM's ``ReshapeTensor``): from
    the result type when static, else from a shape tensor operand.

    ```mlir
    %r = vm.reshape_tensor %x : tensor<2x3xf32> -> tensor<6xf32>
    %d = vm.reshape_tensor %x shape(%s : tensor<2xi64>) : tensor<?x3xf32> -> tensor<?xf32>
    ```
    """

    name = "vm.reshape_tensor"
    tensor = operand_def(TensorType)
    shape = opt_operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = (
        "$tensor (`shape` `(` $shape^ `:` type($shape) `)`)? attr-dict "
        "`:` type($tensor) `->` type($result)"
    )

    def __init__(self, tensor: SSAValue, result_type: TensorType, shape: SSAValue | None = None):
        super().__init__(operands=[tensor, [] if shape is None else [shape]], result_types=[result_type])

    def verify_(self) -> None:
        import math

        src, dst = self.tensor.type, self.result.type
        if src.element_type != dst.element_type:
            raise VerifyException(
                f"vm.reshape_tensor keeps the element type: {src} -> {dst}"
            )
        if _dynamic(dst) and self.shape is None:
            raise VerifyException(f"vm.reshape_tensor to {dst} needs a shape operand")
        if self.shape is not None:
            sty = self.shape.type
            if not _is_shape_tensor(sty) or sty.get_shape()[0] != len(dst.get_shape()):
                raise VerifyException(
                    f"vm.reshape_tensor shape operand must be a 1-d integer tensor of "
                    f"{len(dst.get_shape())} element(s), got {sty}"
                )
        if not _dynamic(src) and not _dynamic(dst):
            if math.prod(src.get_shape()) != math.prod(dst.get_shape()):
                raise VerifyException(
                    f"vm.reshape_tensor changes the number of elements: {src} -> {dst}"
                )


@irdl_op_definition
class AllocADTOp(IRDLOperation):
    """An ADT value of ``tag`` holding ``fields`` (TVM's ``AllocADT``): a
    tuple is tag 0.

    ```mlir
    %t = vm.alloc_adt 0 (%a, %b : tensor<2xf32>, tensor<3xf32>) : !vm.adt
    ```
    """

    name = "vm.alloc_adt"
    tag = prop_def(IntegerAttr.constr(type=i64))
    fields = var_operand_def()
    result = result_def(ADTType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tag (`(` $fields^ `:` type($fields) `)`)? attr-dict `:` type($result)"

    def __init__(self, tag: int, fields: Sequence[SSAValue]):
        super().__init__(
            operands=[fields], properties={"tag": IntegerAttr(tag, i64)}, result_types=[ADTType()]
        )

    def verify_(self) -> None:
        if self.tag.value.data < 0:
            raise VerifyException(f"vm.alloc_adt tag {self.tag.value.data} is negative")


@irdl_op_definition
class GetFieldOp(IRDLOperation):
    """Field ``index`` of an ADT (TVM's ``GetField``); the result type says
    what the field holds (checked at run time).

    ```mlir
    %a = vm.get_field %t, 0 : tensor<2xf32>
    ```
    """

    name = "vm.get_field"
    adt = operand_def(ADTType)
    index = prop_def(IntegerAttr.constr(type=i64))
    result = result_def()
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$adt `,` $index attr-dict `:` type($result)"

    def __init__(self, adt: SSAValue, index: int, result_type: Attribute):
        super().__init__(
            operands=[adt], properties={"index": IntegerAttr(index, i64)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        index = self.index.value.data
        if index < 0:
            raise VerifyException(f"vm.get_field index {index} is negative")
        owner = self.adt.owner
        if isinstance(owner, AllocADTOp):
            if index >= len(owner.fields):
                raise VerifyException(
                    f"vm.get_field index {index} is out of range: the ADT has {len(owner.fields)} field(s)"
                )
            if owner.fields[index].type != self.result.type:
                raise VerifyException(
                    f"vm.get_field {index} gives {self.result.type}, but the field holds "
                    f"{owner.fields[index].type}"
                )


@irdl_op_definition
class GetTagOp(IRDLOperation):
    """The tag of an ADT value (TVM's ``GetTag``).

    ```mlir
    %k = vm.get_tag %t : i64
    ```
    """

    name = "vm.get_tag"
    adt = operand_def(ADTType)
    result = result_def(IntegerType | IndexType)
    traits = traits_def(Pure())
    assembly_format = "$adt attr-dict `:` type($result)"

    def __init__(self, adt: SSAValue):
        super().__init__(operands=[adt], result_types=[i64])
