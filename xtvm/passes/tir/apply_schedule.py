"""`tir-apply-schedule`: replay the schedule trace a `tir.prim_func` carries."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass

from xtvm.dialects.tir import PrimFuncOp
from xtvm.schedule import Schedule, ScheduleError
from xtvm.schedule.trace import apply_instruction

SCHEDULE_ATTR = "schedule"
"""The prim_func attribute holding the trace: an array of instruction strings."""


def apply_schedule(func: PrimFuncOp) -> None:
    """Apply and remove `func`'s `schedule` attribute; a ScheduleError names
    the function, the instruction and what is wrong."""
    trace = func.attributes.get(SCHEDULE_ATTR)
    if trace is None:
        return
    where = f"tir-apply-schedule: @{func.sym_name.data}"
    if not isinstance(trace, ArrayAttr) or not all(isinstance(s, StringAttr) for s in trace.data):
        raise ScheduleError(f"{where}: the '{SCHEDULE_ATTR}' attribute must be an array of strings")
    sch = Schedule(func)
    for n, text in enumerate(trace.data):
        assert isinstance(text, StringAttr)
        try:
            apply_instruction(sch, text.data)
        except ScheduleError as e:
            raise ScheduleError(f"{where}: instruction {n} '{text.data}': {e}") from None
    del func.attributes[SCHEDULE_ATTR]


@dataclass(frozen=True)
class TirApplySchedulePass(ModulePass):
    """Apply each `tir.prim_func`'s schedule trace, then drop the attribute.

    Input: prim_funcs, some with `schedule = ["instruction", ...]` (the text
    `xtvm.schedule.Schedule.trace` produces; the instructions are listed in
    `xtvm.schedule.trace`). Output: the loop nests transformed by the
    instructions in order; functions without a trace are unchanged. A bad
    instruction fails the pass with the function, the instruction's position
    and text, and the reason. Run `tir-simplify` afterwards to fold the
    index arithmetic splits and fusions leave.

        tir.prim_func @f(%A: memref<8xf32>) attributes {schedule = ["split A.i [None, 4]"]} {
          tir.for %i = %c0 to %c8 kind "serial" { ... }
      becomes
        tir.prim_func @f(%A: memref<8xf32>) {
          tir.for %i.0 = %c0 to %c2 kind "serial" {
            tir.for %i.1 = %c0 to %c4 kind "serial" {
              %0 = arith.muli %i.0, %c4 : index
              %i = arith.addi %0, %i.1 : index
              ...
    """

    name = "tir-apply-schedule"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in list(op.walk()):
            if isinstance(func, PrimFuncOp):
                apply_schedule(func)
