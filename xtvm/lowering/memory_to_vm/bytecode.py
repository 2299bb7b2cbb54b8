"""The vm stage → an :class:`xtvm.runtime.vm.Executable` (TVM's VM
compiler back end): registers, instructions, constant pool, kernel table.

Every SSA value of a ``vm.func`` gets a register (parameters first, in
order). Blocks are laid out in order; block arguments become ``move``s
before the jump (through fresh registers when a move would overwrite a
value another move still reads), and a ``vm.if`` whose successor takes
arguments jumps to a small trampoline of moves. ``docs/vm.md`` lists the
opcodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, SSAValue

from xtvm.constants import numpy_from_dense
from xtvm.dialects import vm
from xtvm.dtypes import dtype_name
from xtvm.runtime.vm.executable import Executable, Function


class BytecodeError(ValueError):
    """A vm function the bytecode cannot express."""


def type_info(ty: Attribute, name: str | None = None) -> dict:
    """A parameter or result type as the executable describes it."""
    if isinstance(ty, TensorType):
        shape = [None if d < 0 else int(d) for d in ty.get_shape()]
        info: dict = {"kind": "tensor", "shape": shape, "dtype": dtype_name(ty.element_type)}
    elif isinstance(ty, IntegerType | IndexType):
        info = {"kind": "int"}
    elif isinstance(ty, vm.ADTType):
        info = {"kind": "adt"}
    elif isinstance(ty, vm.StorageType):
        info = {"kind": "storage"}
    else:
        raise BytecodeError(f"the VM has no registers of type {ty}")
    if name is not None:
        info["name"] = name
    return info


@dataclass
class _Tables:
    """What the functions of one executable share."""

    functions: dict[str, int]
    constants: list[np.ndarray] = field(default_factory=list)
    kernels: dict[str, int] = field(default_factory=dict)

    def kernel(self, name: str) -> int:
        return self.kernels.setdefault(name, len(self.kernels))


class _FunctionCompiler:
    def __init__(self, fn: vm.FuncOp, tables: _Tables):
        self.fn = fn
        self.tables = tables
        self.regs: dict[SSAValue, int] = {}
        self.count = 0  # registers so far (values and temporaries)
        self.code: list[list] = []
        self.source: list[str] = []
        self.block_pc: dict[Block, int] = {}
        self.patches: list[tuple[int, int, Block]] = []  # (pc, operand, block)

    def reg(self, value: SSAValue) -> int:
        found = self.regs.get(value)
        if found is None:
            found = self.regs[value] = self.fresh()
        return found

    def fresh(self) -> int:
        """A new register (for a value, or a parallel move's temporary)."""
        self.count += 1
        return self.count - 1

    def emit(self, ins: list, source: str) -> int:
        self.code.append(ins)
        self.source.append(source)
        return len(self.code) - 1

    def jump_to(self, block: Block, args: list[SSAValue], source: str) -> None:
        """Moves of ``args`` into ``block``'s arguments, then a goto."""
        dsts = [self.reg(a) for a in block.args]
        srcs = [self.reg(a) for a in args]
        pairs = [(d, s) for d, s in zip(dsts, srcs) if d != s]
        if any(d in srcs for d, _ in pairs):  # a parallel move: through fresh registers
            temps = [(self.fresh(), s) for _, s in pairs]
            for t, s in temps:
                self.emit(["move", t, s], source)
            pairs = [(d, t) for (d, _), (t, _) in zip(pairs, temps)]
        for d, s in pairs:
            self.emit(["move", d, s], source)
        pc = self.emit(["goto", -1], source)
        self.patches.append((pc, 1, block))

    def compile(self) -> Function:
        fn = self.fn
        for arg in fn.body.blocks[0].args:
            self.reg(arg)
        for block in fn.body.blocks:
            for arg in block.args:
                self.reg(arg)
        trampolines: list[tuple[int, int, Block, list[SSAValue]]] = []
        for block in fn.body.blocks:
            self.block_pc[block] = len(self.code)
            for op in block.ops:
                if isinstance(op, vm.IfOp):
                    pc = self.emit(["if", self.reg(op.cond), -1, -1], "vm.if")
                    for k, (succ, args) in enumerate(
                        ((op.then_block, list(op.then_arguments)), (op.else_block, list(op.else_arguments)))
                    ):
                        if args:
                            trampolines.append((pc, 2 + k, succ, args))
                        else:
                            self.patches.append((pc, 2 + k, succ))
                elif isinstance(op, vm.GotoOp):
                    self.jump_to(op.successor, list(op.arguments), "vm.goto")
                else:
                    self.emit(*self.instruction(op))
        for pc, operand, succ, args in trampolines:
            self.code[pc][operand] = len(self.code)
            self.jump_to(succ, args, "vm.if")
        for pc, operand, block in self.patches:
            self.code[pc][operand] = self.block_pc[block]
        params = [type_info(t, n) for t, n in zip(fn.function_type.inputs.data, fn.arg_names())]
        results = [type_info(t, n) for t, n in zip(fn.function_type.outputs.data, fn.result_names())]
        return Function(fn.sym_name.data, params, results, self.count, self.code, self.source)

    def instruction(self, op) -> tuple[list, str]:  # noqa: C901
        r = self.reg
        if isinstance(op, vm.InvokePackedOp):
            name = op.callee.string_value()
            args = [r(v) for v in [*op.inputs, *op.outputs]]
            return ["invoke_packed", self.tables.kernel(name), args, len(op.outputs)], f"vm.invoke_packed @{name}"
        if isinstance(op, vm.AllocStorageOp) and op.shape is not None:
            ins = ["alloc_storage_shape", r(op.storage), r(op.shape), op.alignment.value.data,
                   dtype_name(op.dtype_hint)]
            return ins, op.name
        if isinstance(op, vm.AllocStorageOp):
            static = op.size.value.data if op.size is not None else None
            dynamic = r(op.dynamic_size) if op.dynamic_size is not None else None
            hint = dtype_name(op.dtype_hint) if op.dtype_hint is not None else ""
            return ["alloc_storage", r(op.storage), static, dynamic, op.alignment.value.data, hint], op.name
        if isinstance(op, vm.AllocTensorOp):
            ty = op.result.type
            shape = [None if d < 0 else int(d) for d in ty.get_shape()]
            shape_reg = r(op.shape) if op.shape is not None else None
            ins = ["alloc_tensor", r(op.result), r(op.storage), op.offset.value.data, shape, shape_reg,
                   dtype_name(ty.element_type)]
            return ins, op.name
        if isinstance(op, vm.KillOp):
            return ["kill", r(op.value)], op.name
        if isinstance(op, vm.LoadConstOp):
            what = f"constant %{op.result.name_hint}" if op.result.name_hint else None
            value = numpy_from_dense(op.value, what)  # ascontiguousarray makes 0-d arrays 1-d
            self.tables.constants.append(np.ascontiguousarray(value).reshape(value.shape))
            return ["load_const", r(op.result), len(self.tables.constants) - 1], op.name
        if isinstance(op, vm.LoadConstIOp):
            return ["load_consti", r(op.result), op.value.value.data], op.name
        if isinstance(op, vm.ShapeOfOp):
            return ["shape_of", r(op.result), r(op.tensor)], op.name
        if isinstance(op, vm.ShapeFromOp):
            flat = [v for pair in op.pairs() for v in pair]
            return ["shape_from", r(op.result), [r(v) for v in op.tensors], flat], op.name
        if isinstance(op, vm.ReshapeTensorOp):
            shape = [None if d < 0 else int(d) for d in op.result.type.get_shape()]
            shape_reg = r(op.shape) if op.shape is not None else None
            return ["reshape_tensor", r(op.result), r(op.tensor), shape, shape_reg], op.name
        if isinstance(op, vm.AllocADTOp):
            return ["alloc_adt", r(op.result), op.tag.value.data, [r(v) for v in op.fields]], op.name
        if isinstance(op, vm.GetFieldOp):
            return ["get_field", r(op.result), r(op.adt), op.index.value.data], op.name
        if isinstance(op, vm.GetTagOp):
            return ["get_tag", r(op.result), r(op.adt)], op.name
        if isinstance(op, vm.InvokeOp):
            name = op.callee.string_value()
            index = self.tables.functions.get(name)
            if index is None:
                raise BytecodeError(f"vm.invoke @{name}: the module has no vm.func @{name}")
            return ["invoke", index, [r(v) for v in op.args], [r(v) for v in op.res]], f"vm.invoke @{name}"
        if isinstance(op, vm.RetOp):
            return ["ret", [r(v) for v in op.values]], op.name
        raise BytecodeError(f"@{self.fn.sym_name.data}: '{op.name}' has no VM instruction")


def compile_executable(module: ModuleOp) -> Executable:
    """The executable of every ``vm.func`` in ``module`` (not yet bound to a
    kernel library). Kernels it names must be the module's
    ``tir.prim_func``s, which the caller compiles."""
    fns = [op for op in module.ops if isinstance(op, vm.FuncOp)]
    if not fns:
        raise BytecodeError("the module has no vm.func (run convert-memory-to-vm first)")
    tables = _Tables({f.sym_name.data: i for i, f in enumerate(fns)})
    functions = [_FunctionCompiler(f, tables).compile() for f in fns]
    return Executable(functions, tables.constants, list(tables.kernels))
