"""Memory passes (TVM's ``ManifestAlloc``, ``GraphPlanMemory`` and
``StaticMemoryPlan``): make allocation explicit, then plan it.

* ``memory-manifest-alloc`` (:mod:`.manifest_alloc`): kernel calls become
  ``memory`` allocations and destination-passing calls.
* ``memory-plan`` (:mod:`.plan_memory`): tensors with disjoint lifetimes
  share storage ids or arena bytes.
* :func:`storage_plan` (:mod:`.storage_plan`): the same plan as storage ids
  and offsets for graph codegen.

The algorithms work on plain lifetimes (:mod:`.planner`); :mod:`.liveness`
computes those from a graph function.
"""

from xtvm.passes.memory.liveness import MemoryPlanError
from xtvm.passes.memory.storage_plan import StoragePlan, storage_plan

__all__ = ["MemoryPlanError", "StoragePlan", "storage_plan"]
