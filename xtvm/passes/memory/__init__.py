"""Memory passes (TVM's ``ManifestAlloc``, ``GraphPlanMemory`` and
``StaticMemoryPlan``): make allocation explicit, then plan it.

* ``memory-manifest-alloc`` (:mod:`.manifest_alloc`): kernel calls become
  ``memory`` allocations and destination-passing calls.
* ``memory-plan`` (:mod:`.plan_memory`): tensors with disjoint lifetimes
  share storage ids or arena bytes.

The algorithms work on plain lifetimes (:mod:`.planner`); :mod:`.liveness`
computes those from a graph function.
"""

from xtvm.passes.memory.liveness import MemoryPlanError

__all__ = ["MemoryPlanError"]
