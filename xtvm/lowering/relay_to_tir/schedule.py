"""Schedules at kernel build time: a te op whose ``attrs["schedule"]`` names
a schedule function (TVM's op strategy picking ``schedule_conv2d_NCHWc`` and
the like) has it applied to the kernel that computes it, as
``schedule(sch, tensor, outputs)`` (``outputs``: the kernel's output tensors,
e.g. to schedule the fused epilogue). A kernel that no op schedule claims
gets :func:`xtvm.topi.x86.injective.schedule_default` if it is made of
injective ops and pools (parallel, vectorized rows), else keeps its nests.
A kernel with dynamic shapes gets :func:`xtvm.topi.x86.dynamic.schedule_dynamic`
instead (the op schedules split constant extents).
A kernel with a zero-size tensor (batch 0, an empty reduction axis) keeps
its nests too: a loop of extent 0 runs nothing, and the schedules' tiles
(``min(16, M)`` and the like) have no meaning for it.

``convert-relay-to-tir{schedules=false}`` does not call this: its kernels
keep the default loop nests (one serial nest per stage), e.g. to compare the
two.
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.autotvm.dispatch import current_trace
from xtvm.dialects import tir
from xtvm.schedule import Schedule
from xtvm.schedule.trace import apply_instruction
from xtvm.te.placement import topological_order
from xtvm.te.symbolic import is_static
from xtvm.topi.x86.dynamic import schedule_dynamic
from xtvm.topi.x86.injective import schedule_default


def apply_schedules(func: tir.PrimFuncOp, outputs: Sequence[te.Tensor]) -> None:
    """Run, in producer order, the schedule of every te op behind ``outputs``
    on ``func`` (the prim_func ``te.create_prim_func`` made from them).
    An auto_scheduler record applied to this kernel replaces them: its
    schedule trace is replayed on the default nests."""
    trace = current_trace()
    if trace is not None:
        sch = Schedule(func)
        for instruction in trace:
            apply_instruction(sch, instruction)
        return
    tensors = topological_order(outputs)
    if not all(is_static(tensor.shape) for tensor in tensors):
        schedule_dynamic(Schedule(func), outputs)
        return
    if any(0 in tensor.shape for tensor in tensors):
        return
    sch: Schedule | None = None
    for tensor in tensors:
        schedule = tensor.op.attrs.get("schedule")
        if schedule is not None:
            sch = sch or Schedule(func)
            schedule(sch, tensor, list(outputs))
    if sch is None:
        schedule_default(Schedule(func), outputs)
