"""Schedule primitives: TensorIR-style transformations of `tir.prim_func`
loop nests (TVM's `tir.Schedule`), from Python (`Schedule`) or from a
textual trace (`tir-apply-schedule`).

Modules: `nest` (bands of perfectly nested loops), `loops` (split, fuse,
reorder, tile, loop kinds), `cache_write` (register blocking of reductions),
`schedule` (the `Schedule` API), `trace` (the textual instructions).
"""

from xtvm.schedule.error import ScheduleError
from xtvm.schedule.schedule import CacheWriteLoops, LoopRV, Schedule

__all__ = ["CacheWriteLoops", "LoopRV", "Schedule", "ScheduleError"]
