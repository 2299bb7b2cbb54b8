"""``vm-share-dynamic-storage``: a tensor of run-time shape takes the
storage of a dead one when that storage is provably large enough, so that a
dynamic model's memory is not the sum of its intermediates (memory
planning for ``?`` sizes; the static ones are planned by ``memory-plan``).

Input: ``vm-manifest-dynamic-alloc``'s output in a straight-line function:
per dynamic result a ``vm.shape_from``, a ``vm.alloc_storage shape(...)``,
a ``vm.alloc_tensor`` and a ``vm.kill`` of the tensor after its last use.

Sizes are symbolic: ``vm.shape_from`` makes each ``?`` axis of a result the
very value of an input's axis, so the axes fall into classes of equal run-
time extents (a union-find over ``(tensor, axis)``). A storage's size is
``c × Π classes`` (``c``: the static extents times the element size). A
new tensor of ``c' × Π classes'`` takes a free storage when the two class
multisets are equal and ``c >= c'``: then it fits at every run-time size
(``?x64xf32`` in the storage of a dead ``?x256xf32`` of the same ``?``).
The smallest such storage is taken. The VM still checks at run time that
the tensor fits (``alloc_tensor``).

A storage is free once its tensor is killed, if every use of that tensor
was a kernel call (``memory.invoke_kernel``, or a static one's
``relay.call_lowered`` that ``memory-manifest-alloc`` lowers later) or read
its shape (an alias made by a reshape would outlive the kill). A
tensor the function returns keeps its own storage. The storage register of
a shared storage is killed after the last tensor allocated from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import vm
from xtvm.dialects.memory import InvokeKernelOp
from xtvm.dialects.relay import CallLoweredOp
from xtvm.passes.memory.liveness import tensors_in

PASS_NAME = "vm-share-dynamic-storage"

Key = tuple[int, tuple[int, ...]]
"""A symbolic size: the static factor in bytes and the sorted extent classes."""


class _Classes:
    """Union-find over ``(value, axis)`` pairs: axes of equal run-time extent."""

    def __init__(self) -> None:
        self.parent: dict[tuple[SSAValue, int], tuple[SSAValue, int]] = {}
        self.ids: dict[tuple[SSAValue, int], int] = {}

    def find(self, x: tuple[SSAValue, int]) -> tuple[SSAValue, int]:
        while (p := self.parent.get(x, x)) != x:
            x = p
        return x

    def union(self, a: tuple[SSAValue, int], b: tuple[SSAValue, int]) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def id(self, x: tuple[SSAValue, int]) -> int:
        return self.ids.setdefault(self.find(x), len(self.ids))


def _element_bytes(ty: TensorType) -> int | None:
    width = getattr(ty.element_type, "bitwidth", None)
    return None if width is None or width % 8 else width // 8


def _size_key(tensor: vm.AllocTensorOp, classes: _Classes) -> Key | None:
    """The symbolic size of ``tensor`` (from a ``vm.shape_from``), unifying
    each ``?`` axis with the input axis it is read from; None if unknown."""
    shape = tensor.shape
    ty = tensor.result.type
    if shape is None or not isinstance(shape.owner, vm.ShapeFromOp) or not isinstance(ty, TensorType):
        return None
    factor = _element_bytes(ty)
    if factor is None:
        return None
    source = shape.owner
    flat = list(source.dims.get_values())
    ids = []
    for axis, (src, a) in enumerate(zip(flat[::2], flat[1::2])):
        if src < 0:
            factor *= a
            continue
        operand = source.tensors[src]
        extent = operand.type.get_shape()[a] if isinstance(operand.type, TensorType) else DYNAMIC_INDEX
        if extent != DYNAMIC_INDEX:
            factor *= extent
            continue
        classes.union((tensor.result, axis), (operand, a))
        ids.append((tensor.result, axis))
    return factor, tuple(sorted(classes.id(x) for x in ids))


def _only_kernel_uses(tensor: SSAValue) -> bool:
    return all(
        isinstance(
            use.operation, (InvokeKernelOp, CallLoweredOp, vm.KillOp, vm.ShapeFromOp, vm.ShapeOfOp)
        )
        for use in tensor.uses
    )


def _returned(fn: func.FuncOp) -> set[SSAValue]:
    ret = fn.body.block.last_op
    if not isinstance(ret, func.ReturnOp):
        return set()
    return {t for operand in ret.operands for t in tensors_in(operand)}


def share_storage(fn: func.FuncOp) -> int:
    """Share the dynamic storages of ``fn`` (see the module); the number of
    allocations removed."""
    classes = _Classes()
    returned = _returned(fn)
    free: list[tuple[Key, SSAValue]] = []  # (the storage's size, the storage)
    storage_key: dict[SSAValue, Key] = {}
    holder: dict[SSAValue, SSAValue] = {}  # tensor -> its shareable storage
    shared: set[SSAValue] = set()
    removed = 0
    for op in list(fn.body.block.ops):
        if isinstance(op, vm.AllocTensorOp):
            key = _size_key(op, classes)
            storage = op.storage
            alloc = storage.owner
            fresh = isinstance(alloc, vm.AllocStorageOp) and alloc.shape is op.shape
            if key is None or not fresh or op.result in returned:
                continue
            fits = [(k, s) for k, s in free if k[1] == key[1] and k[0] >= key[0]]
            if fits:
                k, donor = min(fits, key=lambda f: f[0][0])
                free.remove((k, donor))
                for use in list(storage.uses):
                    if use.operation is not op:  # the kill after the alloc_tensor
                        Rewriter.erase_op(use.operation)
                op.operands = [donor, *op.operands[1:]]
                Rewriter.erase_op(alloc)
                shared.add(donor)
                removed += 1
                key, storage = k, donor
            storage_key[storage] = key
            if _only_kernel_uses(op.result):
                holder[op.result] = storage
        elif isinstance(op, vm.KillOp) and op.value in holder:
            storage = holder.pop(op.value)
            free.append((storage_key[storage], storage))
    for storage in shared:
        _kill_after_last_tensor(storage)
    return removed


def _kill_after_last_tensor(storage: SSAValue) -> None:
    """One ``vm.kill`` of ``storage``, after the last tensor allocated from it."""
    users: list[Operation] = []
    for use in list(storage.uses):
        if isinstance(use.operation, vm.KillOp):
            Rewriter.erase_op(use.operation)
        else:
            users.append(use.operation)
    block = users[0].parent_block()
    assert block is not None
    last = max(users, key=block.get_operation_index)
    Rewriter.insert_op(vm.KillOp(storage), InsertPoint.after(last))


@dataclass(frozen=True)
class ShareDynamicStoragePass(ModulePass):
    """Let tensors of run-time shape reuse the storage of dead ones when it
    is provably large enough (see the module docstring)."""

    name = "vm-share-dynamic-storage"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            straight = isinstance(fn, func.FuncOp) and len(fn.body.blocks) == 1 and not any(
                o.regions for o in fn.body.block.ops
            )
            if straight:
                share_storage(fn)  # type: ignore[arg-type]
