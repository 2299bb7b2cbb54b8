"""``convert-memory-to-vm``: the memory stage's graph function becomes a
``vm.func`` (TVM's VM compiler, for models the VM runs).

Input invariant: ``func.func @main`` in its memory form (``memory-plan``:
``relay.const``, ``memory.alloc_storage``/``alloc_tensor``/``invoke_kernel``/
``kill``, ``relay.tuple``/``tuple_get``, ``func.return``); kernels are
``tir.prim_func``s, which stay as they are (they become the kernel library).

Output IR: ``vm.func @main`` with the same registers, one vm op per memory
op; no ``memory`` or ``relay`` op and no ``func.func @main`` is left (the
conversion driver names any op left behind).

| source op | becomes |
|---|---|
| ``func.func @main`` | ``vm.func @main`` (tuple results flattened, as the graph executor does) |
| ``relay.const`` | ``vm.load_const`` (the value stays in the IR) |
| ``memory.alloc_storage`` | ``vm.alloc_storage`` (static size) |
| ``memory.alloc_tensor`` | ``vm.alloc_tensor``; a tensor the function returns gets its own ``vm.alloc_storage``, so results are fresh arrays at every call while the arena is reused |
| ``memory.invoke_kernel`` | ``vm.invoke_packed`` |
| ``memory.kill`` | ``vm.kill`` |
| ``relay.tuple`` / ``relay.tuple_get`` | ``vm.alloc_adt 0`` / ``vm.get_field`` (erased when only the return used them) |
| ``func.return`` | ``vm.ret`` of the flattened results |

```mlir
%s = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
%t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
// becomes
%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
%t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xtvm.dialects import memory, vm
from xtvm.dialects.memory import tensor_nbytes
from xtvm.dialects.relay import ConstOp, TupleGetOp, TupleOp
from xtvm.lowering.conversion import ConversionTarget, apply_conversion
from xtvm.lowering.memory_to_vm.control_flow import lower_control_flow

PASS_NAME = "convert-memory-to-vm"


def _flat(values: list[SSAValue]) -> list[SSAValue]:
    """Values with tuples (``relay.tuple``, ``vm.alloc_adt``) replaced by
    their fields, recursively."""
    out: list[SSAValue] = []
    for v in values:
        owner = v.owner
        if isinstance(owner, TupleOp | vm.AllocADTOp):
            out += _flat(list(owner.fields))
        elif isinstance(owner, TupleGetOp) and isinstance(owner.tuple.owner, TupleOp | vm.AllocADTOp):
            out += [_flat([owner.tuple])[owner.index.value.data]]
        elif isinstance(owner, vm.GetFieldOp) and isinstance(owner.adt.owner, vm.AllocADTOp):
            out += [_flat([owner.adt])[owner.index.value.data]]
        else:
            out.append(v)
    return out


def _returned(value: SSAValue) -> bool:
    """Whether the function returns ``value`` (directly or in a tuple)."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, func.ReturnOp | vm.RetOp):
            return True
        if isinstance(user, TupleOp | vm.AllocADTOp) and _returned(user.results[0]):
            return True
    return False


@dataclass
class LowerGraphFunction(RewritePattern):
    """``func.func @main`` (memory form) → ``vm.func @main``: the body
    moves over; the results are the flattened returned values."""

    entry: str = "main"

    @op_type_rewrite_pattern
    def match_and_rewrite(self, fn: func.FuncOp, rewriter: PatternRewriter) -> None:
        if fn.sym_name.data != self.entry or fn.is_declaration:
            return
        ret = fn.body.blocks[-1].last_op
        outputs = (
            [v.type for v in _flat(list(ret.arguments))]
            if isinstance(ret, func.ReturnOp)
            else list(fn.function_type.outputs.data)
        )
        res_attrs = fn.res_attrs
        if res_attrs is not None and len(res_attrs.data) != len(outputs):
            res_attrs = None
        inputs = list(fn.function_type.inputs.data)
        body = fn.detach_region(fn.body)
        new = vm.FuncOp(fn.sym_name.data, inputs, outputs, body, fn.arg_attrs, res_attrs)
        for name, attr in fn.attributes.items():
            new.attributes[name] = attr
        rewriter.replace(fn, new, new_results=[])


class LowerReturn(RewritePattern):
    """``func.return`` → ``vm.ret`` of the flattened values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.parent_op(), vm.FuncOp):
            rewriter.replace(op, vm.RetOp(_flat(list(op.arguments))))


class LowerConst(RewritePattern):
    """``relay.const`` → ``vm.load_const`` (same value, same name)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstOp, rewriter: PatternRewriter) -> None:
        new = vm.LoadConstOp(op.value)
        new.result.name_hint = op.result.name_hint
        rewriter.replace(op, new)


class LowerAllocStorage(RewritePattern):
    """``memory.alloc_storage`` → ``vm.alloc_storage`` (static size)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memory.AllocStorageOp, rewriter: PatternRewriter) -> None:
        new = vm.AllocStorageOp(op.size.value.data, op.alignment.value.data)
        new.storage.name_hint = op.storage.name_hint
        rewriter.replace(op, new)


class LowerAllocTensor(RewritePattern):
    """``memory.alloc_tensor`` → ``vm.alloc_tensor``; a returned tensor
    gets a storage of its own."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memory.AllocTensorOp, rewriter: PatternRewriter) -> None:
        ty = op.result.type
        assert isinstance(ty, TensorType)
        new_ops: list[Operation] = []
        storage, offset = op.storage, op.offset.value.data
        if _returned(op.result):
            own = vm.AllocStorageOp(tensor_nbytes(ty) or 0, vm.DEFAULT_ALIGNMENT, ty.element_type)
            own.storage.name_hint = f"{op.result.name_hint}_storage" if op.result.name_hint else None
            new_ops.append(own)
            storage, offset = own.storage, 0
        tensor = vm.AllocTensorOp(storage, offset, ty)
        tensor.result.name_hint = op.result.name_hint
        rewriter.replace(op, [*new_ops, tensor], [tensor.result])


class LowerInvokeKernel(RewritePattern):
    """``memory.invoke_kernel`` → ``vm.invoke_packed``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memory.InvokeKernelOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(
            op, vm.InvokePackedOp(op.callee.string_value(), list(op.inputs), list(op.outputs))
        )


class LowerKill(RewritePattern):
    """``memory.kill`` → ``vm.kill``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memory.KillOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, vm.KillOp(op.tensor))


class LowerTuple(RewritePattern):
    """``relay.tuple`` → ``vm.alloc_adt 0`` (erased when nothing else uses it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleOp, rewriter: PatternRewriter) -> None:
        users = [use.operation for use in op.result.uses]
        if not users:
            rewriter.erase(op)
            return
        if all(isinstance(u, func.ReturnOp) for u in users):
            return  # the return flattens it first; then it is dead
        new = vm.AllocADTOp(0, list(op.fields))
        new.result.name_hint = op.result.name_hint
        rewriter.replace(op, new)


class LowerTupleGet(RewritePattern):
    """``relay.tuple_get`` → ``vm.get_field``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleGetOp, rewriter: PatternRewriter) -> None:
        if not op.result.uses:
            rewriter.erase(op)
            return
        new = vm.GetFieldOp(op.tuple, op.index.value.data, op.result.type)
        new.result.name_hint = op.result.name_hint
        rewriter.replace(op, new)


def populate_memory_to_vm_patterns(entry: str = "main") -> list[RewritePattern]:
    """The patterns, graph function first (the others lower its body)."""
    return [
        LowerGraphFunction(entry),
        LowerReturn(),
        LowerConst(),
        LowerAllocStorage(),
        LowerAllocTensor(),
        LowerInvokeKernel(),
        LowerKill(),
        LowerTupleGet(),
        LowerTuple(),
    ]


def _illegal(op: Operation) -> bool:
    """Inside a ``vm.func`` only vm ops may stay; ``func.func @main`` must go."""
    parent = op.parent_op()
    return isinstance(parent, vm.FuncOp) and op.dialect_name() != "vm"


TARGET = ConversionTarget(illegal_dialects=frozenset({"memory"}), illegal_if=_illegal)


@dataclass(frozen=True)
class ConvertMemoryToVmPass(ModulePass):
    """Lower the memory stage's ``@main`` to a ``vm.func`` (see the module
    docstring); kernels stay ``tir.prim_func``s."""

    name = "convert-memory-to-vm"

    entry: str = "main"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and fn.sym_name.data == self.entry:
                lower_control_flow(fn)  # relay.if / relay.while → blocks (control_flow.py)
        apply_conversion(op, populate_memory_to_vm_patterns(self.entry), TARGET, pass_name=PASS_NAME)
        left = [f for f in op.ops if isinstance(f, func.FuncOp) and f.sym_name.data == self.entry]
        if left:
            from xtvm.lowering.conversion import ConversionError, legality_report

            raise ConversionError(legality_report(PASS_NAME, left))
