"""``memory-concat-in-place``: kernels write their results straight into
the concatenation that reads them, and the concatenation copies nothing.

On batch 1, a concatenation along an axis before which every dim is 1
(channels of NCHW, channel blocks of NCHW16c) places each input as one
contiguous byte range of its output, the inputs back to back. The kernel
writing an input can write it there: the input becomes a tensor inside the
output's storage, and the concatenation's call has nothing left to do
(``memory.in_place``: the graph JSON makes it a ``__nop`` node, the AOT
entry drops it). Nested concatenations (DenseNet's blocks) move with their
inputs. Run anyway, the concatenation kernel still gives the right result:
it copies each element onto itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects.memory import AllocStorageOp, AllocTensorOp, InvokeKernelOp, KillOp
from xtvm.dialects.tir import PrimFuncOp

CONCATENATE_AXIS_ATTR = "xtvm.concatenate_axis"
"""On a ``tir.prim_func`` that only concatenates its inputs, in argument
order, along this axis (set by ``convert-relay-to-tir``)."""

IN_PLACE_ATTR = "memory.in_place"
"""On a ``memory.invoke_kernel`` of a concatenation whose inputs already lie
in its output, as its output holds them: the call is not made."""


def _own_storage(tensor: SSAValue) -> AllocStorageOp | None:
    """The storage ``tensor`` fills from offset 0, else None. Other tensors
    in it are those a concatenation made in place holds (its inputs): the
    storage moves with them."""
    alloc = tensor.owner
    if not isinstance(alloc, AllocTensorOp) or alloc.offset.value.data != 0:
        return None
    storage = alloc.storage.owner
    if not isinstance(storage, AllocStorageOp) or storage.size.value.data != alloc.nbytes:
        return None
    return storage


def _placeable(tensor: SSAValue) -> bool:
    """Whether ``tensor`` may move into a concatenation's output: it fills
    its own storage, one kernel writes it (or it is a concatenation made in
    place), and it is neither returned nor in a tuple (``memory.kill`` and
    other kernels reading it are fine: its bytes stay its own while it
    lives, inside the output)."""
    if _own_storage(tensor) is None:
        return False
    writes = 0
    for use in tensor.uses:
        op = use.operation
        if isinstance(op, InvokeKernelOp):
            writes += tensor in op.outputs
        elif not isinstance(op, KillOp):
            return False  # func.return, relay.tuple, ...
    return writes == 1


def _offsets(call: InvokeKernelOp, axis: int, alignment: int) -> list[int] | None:
    """The byte offset of each input of the concatenation ``call`` in its
    output, when every input is one contiguous, ``alignment``-aligned range
    of it (every dim before ``axis`` is 1), else None."""
    (out,) = call.outputs
    assert isinstance(out.type, TensorType)
    if any(d != 1 for d in out.type.get_shape()[:axis]):
        return None
    offsets, end = [], 0
    for value in call.inputs:
        alloc = value.owner
        if not isinstance(alloc, AllocTensorOp) or end % alignment:
            return None
        offsets.append(end)
        end += alloc.nbytes
    assert isinstance(out.owner, AllocTensorOp)
    return offsets if end == out.owner.nbytes else None


def _place_in_output(call: InvokeKernelOp, offsets: list[int]) -> None:
    """Move the storage of each input of ``call`` (with every tensor in it:
    a nested concatenation's inputs) into its output's storage at the
    input's offset, that storage first allocated before all of them."""
    (out,) = call.outputs
    storage = _own_storage(out)
    assert storage is not None
    sources = [_own_storage(v) for v in call.inputs]
    moved = [u.operation for s in sources if s is not None for u in s.storage.uses]
    first = min(moved, key=_position)
    storage.detach()
    Rewriter.insert_op(storage, InsertPoint.before(first))
    for source, offset in zip(sources, offsets, strict=True):
        assert source is not None
        for alloc in [u.operation for u in source.storage.uses]:
            assert isinstance(alloc, AllocTensorOp) and isinstance(alloc.result.type, TensorType)
            placed = AllocTensorOp(storage.storage, offset + alloc.offset.value.data, alloc.result.type)
            Rewriter.replace_op(alloc, placed)
        Rewriter.erase_op(source)
    call.attributes[IN_PLACE_ATTR] = UnitAttr()


def _position(op: Operation) -> int:
    block = op.parent_block()
    assert block is not None
    return block.get_operation_index(op)


def _concat_in_place(fn: func.FuncOp, axes: dict[str, int]) -> None:
    for call in list(fn.body.block.ops):
        if not isinstance(call, InvokeKernelOp) or IN_PLACE_ATTR in call.attributes:
            continue
        axis = axes.get(call.callee.string_value())
        if axis is None or len(call.outputs) != 1 or not call.inputs:
            continue
        out_storage = _own_storage(call.outputs[0])
        if out_storage is None or len(set(call.inputs)) != len(call.inputs):
            continue
        if out_storage.storage.uses.get_length() != 1 or not all(map(_placeable, call.inputs)):
            continue
        offsets = _offsets(call, axis, out_storage.alignment.value.data)
        if offsets is not None:
            _place_in_output(call, offsets)


@dataclass(frozen=True)
class ConcatInPlacePass(ModulePass):
    """Place the inputs of concatenation kernels inside their output, so
    that their producers write the concatenation and the concatenation
    copies nothing.

    A ``memory.invoke_kernel`` of a kernel marked ``xtvm.concatenate_axis``
    (its body concatenates its inputs, in argument order) qualifies when:
    its output fills its own ``memory.alloc_storage`` alone (as
    ``memory-manifest-alloc`` makes it); its inputs are distinct, each
    fills its own storage from offset 0 (alone, or holding the inputs of a
    concatenation it is the in-place result of), is written by one kernel
    and is neither returned nor in a tuple (not a graph input or constant,
    not already moved into another concatenation; other kernels may read
    it); every dim of the output before the axis is 1, so that the inputs
    are consecutive byte ranges of the output; and each range starts at a
    multiple of the storage's alignment.

    Then the output's storage moves before the first tensor to move, each
    input's storage is replaced by the output's at the input's byte offset
    (every tensor in it keeping its place relative to the input), and the
    call gets ``memory.in_place``. ``memory-plan`` plans tensors sharing
    bytes and lifetime in one storage as one block; the graph JSON makes
    the call a ``__nop`` node, the AOT entry drops it.

    ```mlir
    %a = memory.alloc_tensor %a_storage {offset = 0 : i64} : tensor<1x16xf32>
    memory.invoke_kernel @k1 ins(%x : tensor<1x16xf32>) outs(%a : tensor<1x16xf32>)
    %b = memory.alloc_tensor %b_storage {offset = 0 : i64} : tensor<1x16xf32>
    memory.invoke_kernel @k2 ins(%x : tensor<1x16xf32>) outs(%b : tensor<1x16xf32>)
    %c = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<1x32xf32>
    memory.invoke_kernel @concat ins(%a, %b : ...) outs(%c : tensor<1x32xf32>)
    // becomes
    %c_storage = memory.alloc_storage {size = 128 : i64, alignment = 64 : i64} : !memory.storage
    %a = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<1x16xf32>
    ...
    %b = memory.alloc_tensor %c_storage {offset = 64 : i64} : tensor<1x16xf32>
    ...
    %c = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<1x32xf32>
    memory.invoke_kernel @concat ins(%a, %b : ...) outs(%c : tensor<1x32xf32>) {memory.in_place}
    ```
    """

    name = "memory-concat-in-place"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        axes = {
            k.sym_name.data: attr.value.data
            for k in op.ops
            if isinstance(k, PrimFuncOp)
            and isinstance(attr := k.attributes.get(CONCATENATE_AXIS_ATTR), IntegerAttr)
        }
        if not axes:
            return
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and len(fn.body.blocks) == 1:
                _concat_in_place(fn, axes)
