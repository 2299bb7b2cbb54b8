"""The auto_scheduler (Ansor, simplified): template-free schedules.

* :mod:`.sketch`: the sketch of a kernel (multi-level tiling with
  ``cache_write``, the epilogue inlined, fuse + parallel + vectorize +
  unroll) and its random annotation, recorded as a schedule trace;
* :mod:`.search`: the per-task evolutionary search guided by a learned
  cost model, and the task scheduler spreading trials over a model's tasks.

Its records are traces (``{"trace": [...], "sketch": {...}}`` configs),
which ``apply_history_best`` replays on the kernel's default nests.
"""
