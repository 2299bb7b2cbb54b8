"""memory-manifest-alloc, memory-plan and the graph executor's placement read
off the planned IR, on random graph functions, checked against an independent liveness oracle and by running the
graph (NumPy stand-in kernels) in the planned memory."""

import random
from collections.abc import Callable

import numpy as np
import pytest
from memory_graphs import RandomGraph, Tensor
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr
from xdsl.parser import Parser

from xtvm.dialects.memory import AllocTensorOp, InvokeKernelOp, KillOp
from xtvm.driver.pipeline import mlir_context
from xtvm.lowering.memory_to_llvm.graph_json import entry_offsets, layout_workspace
from xtvm.passes.memory import MemoryPlanError
from xtvm.passes.memory.manifest_alloc import ManifestAllocPass
from xtvm.passes.memory.plan_memory import PlanMemoryPass


def main_of(graph: RandomGraph) -> tuple[func.FuncOp, dict[str, object]]:
    """The parsed @main and its tensor values by name."""
    return main_of_module(graph.module())


def main_of_module(module) -> tuple[func.FuncOp, dict[str, object]]:
    """A module's @main and its tensor values by name."""
    fn = module.body.block.first_op
    assert isinstance(fn, func.FuncOp)
    values = {v.name_hint: v for v in fn.args}
    for op in fn.walk():
        values |= {r.name_hint: r for r in op.results}
    return fn, values


def run_graph(graph: RandomGraph, place: Callable[[Tensor], np.ndarray]) -> list[np.ndarray]:
    """Run the graph with each tensor in the array ``place`` gives it.

    Each stand-in kernel first poisons its outputs, then reads its inputs, so
    a plan that lets a kernel's output overlap a live tensor changes the
    result.
    """
    for t in graph.tensors:
        if t.kind != "kernel":
            place(t)[:] = np.arange(t.elements, dtype=np.float32) * 0.25 + len(t.name)
    for i, k in enumerate(graph.kernels):
        for out in k.outputs:
            place(out)[:] = np.nan
        values = np.concatenate([place(t) for t in k.inputs])
        for j, out in enumerate(k.outputs):
            place(out)[:] = np.resize(values, out.elements) * 0.5 + i + j
    return [place(t).copy() for t in graph.returned]


def separate_buffers(graph: RandomGraph) -> Callable[[Tensor], np.ndarray]:
    arrays = {t.name: np.empty(t.elements, np.float32) for t in graph.tensors}
    return lambda t: arrays[t.name]


def views(buffers: dict[int, np.ndarray], key: Callable[[Tensor], tuple[int, int]]):
    def place(t: Tensor) -> np.ndarray:
        buffer, offset = key(t)
        return buffers[buffer][offset : offset + t.nbytes].view(np.float32)

    return place


@pytest.mark.parametrize("arena", [True, False])
@pytest.mark.parametrize("seed", range(30))
def test_graph_executor_places_tensors_where_the_ir_planned_them(seed: int, arena: bool) -> None:
    """The graph executor's offsets are read off the planned IR (no planning
    of its own): running the graph at those offsets gives the results of
    separate buffers, and every kernel output is where memory-plan put it."""
    rng = random.Random(seed)
    graph = RandomGraph.make(rng, rng.randint(1, 14))
    module = graph.module()
    ctx = mlir_context()
    ManifestAllocPass().apply(ctx, module)
    PlanMemoryPass(arena=arena).apply(ctx, module)
    fn, values = main_of_module(module)
    layout = layout_workspace(fn)
    offsets = entry_offsets(fn, layout)
    offset = {t.name: offsets[values[t.name]] for t in graph.tensors}
    allocs = {op.result.name_hint: op for op in fn.walk() if isinstance(op, AllocTensorOp)}
    for name, alloc in allocs.items():
        storage_start = layout.workspace_offsets[alloc.storage]
        assert offset[name] == storage_start + alloc.offset.value.data
    for t in graph.tensors:
        assert offset[t.name] % 64 == 0
        if t.kind != "kernel":
            assert offset[t.name] >= layout.workspace_bytes  # inputs and constants follow it

    expected = run_graph(graph, separate_buffers(graph))
    size = max(offset[t.name] + t.nbytes for t in graph.tensors)
    arena_buffer = {0: np.empty(size, np.uint8)}
    in_arena = run_graph(graph, views(arena_buffer, lambda t: (0, offset[t.name])))
    for e, a in zip(expected, in_arena, strict=True):
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("arena", [True, False])
@pytest.mark.parametrize("seed", range(15))
def test_passes_on_random_graphs(seed: int, arena: bool) -> None:
    rng = random.Random(1000 + seed)
    graph = RandomGraph.make(rng, rng.randint(1, 12))
    module = graph.module()
    ctx = mlir_context()
    ManifestAllocPass().apply(ctx, module)
    module.verify()
    fn = module.body.block.first_op
    assert isinstance(fn, func.FuncOp)
    kills = [op.tensor.name_hint for op in fn.walk() if isinstance(op, KillOp)]
    kernel_outputs = [t for t in graph.tensors if t.kind == "kernel"]
    assert sorted(kills) == sorted(t.name for t in kernel_outputs if t not in graph.returned)
    assert sum(isinstance(op, InvokeKernelOp) for op in fn.walk()) == len(graph.kernels)

    PlanMemoryPass(arena=arena).apply(ctx, module)
    module.verify()  # kills still follow every use, tensors fit their storage
    allocs = {op.result.name_hint: op for op in fn.walk() if isinstance(op, AllocTensorOp)}
    assert set(allocs) == {t.name for t in kernel_outputs}
    for a in kernel_outputs:
        for b in kernel_outputs:
            if not graph.must_not_share(a, b):
                continue
            x, y = allocs[a.name], allocs[b.name]
            if x.storage != y.storage:
                continue
            assert arena, f"{a.name} and {b.name} share a storage id"
            ox, oy = x.offset.value.data, y.offset.value.data
            assert ox + a.nbytes <= oy or oy + b.nbytes <= ox, (a.name, b.name)
    planned = fn.attributes["memory.planned_bytes"]
    naive = fn.attributes["memory.naive_bytes"]
    assert isinstance(planned, IntegerAttr) and isinstance(naive, IntegerAttr)
    assert planned.value.data <= naive.value.data
    assert naive.value.data == sum(-(-t.nbytes // 64) * 64 for t in kernel_outputs)


@pytest.mark.parametrize("n", [2, 5, 9])
def test_chain_of_n_equal_tensors_needs_two_slots(n: int) -> None:
    args = "%x: tensor<256xf32>"
    body = ["%t0 = relay.call_lowered @k(%x) : (tensor<256xf32>) -> tensor<256xf32>"]
    body += [
        f"%t{i} = relay.call_lowered @k(%t{i - 1}) : (tensor<256xf32>) -> tensor<256xf32>"
        for i in range(1, n)
    ]
    text = (
        f"func.func @main({args}) -> tensor<256xf32> {{\n  "
        + "\n  ".join(body)
        + f"\n  func.return %t{n - 1} : tensor<256xf32>\n}}"
    )
    module = Parser(mlir_context(), text).parse_module()
    fn = module.body.block.first_op
    assert isinstance(fn, func.FuncOp)
    ctx = Context()
    ManifestAllocPass().apply(ctx, module)
    PlanMemoryPass().apply(ctx, module)
    assert fn.attributes["memory.planned_bytes"] == IntegerAttr(2048, 64)


def test_inputs_and_constants_get_storage_of_their_own() -> None:
    text = """
    func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
      %w = relay.const dense<1.0> : tensor<16xf32>
      %a = relay.call_lowered @k1(%x, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      %b = relay.call_lowered @k2(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %c = relay.call_lowered @k3(%b) : (tensor<16xf32>) -> tensor<16xf32>
      func.return %c : tensor<16xf32>
    }
    """
    module = Parser(mlir_context(), text).parse_module()
    ManifestAllocPass().apply(Context(), module)
    PlanMemoryPass().apply(Context(), module)
    fn, _ = main_of_module(module)
    layout = layout_workspace(fn)
    assert layout.workspace_bytes == 2 * 64  # a and c share a slot, b has the other
    offsets = {v.name_hint: o for v, o in entry_offsets(fn, layout).items()}
    assert offsets == {"a": 0, "b": 64, "c": 0, "x": 128, "w": 192}


def test_graph_lowering_rejects_a_dynamic_shape() -> None:
    text = """
    func.func @main(%x: tensor<?xf32>) -> tensor<4xf32> {
      %a = relay.call_lowered @k(%x) : (tensor<?xf32>) -> tensor<4xf32>
      func.return %a : tensor<4xf32>
    }
    """
    module = Parser(mlir_context(), text).parse_module()
    ManifestAllocPass().apply(Context(), module)
    fn, _ = main_of_module(module)
    with pytest.raises(MemoryPlanError, match=r"'x' has type tensor<\?xf32>, which has no static"):
        entry_offsets(fn, layout_workspace(fn))


def test_sizes_that_cannot_be_allocated_are_refused_when_planned() -> None:
    """A 425 TiB tensor is an error at compile time, with its size, not a
    failed allocation at run time."""
    text = """
    func.func @main(%x: tensor<1xf32>) -> tensor<4096x1048576x27200xf32> {
      %a = relay.call_lowered @k(%x) : (tensor<1xf32>) -> tensor<4096x1048576x27200xf32>
      func.return %a : tensor<4096x1048576x27200xf32>
    }
    """
    module = Parser(mlir_context(), text).parse_module()
    with pytest.raises(MemoryPlanError, match=r"needs 425\.0 TiB, more than can be allocated"):
        ManifestAllocPass().apply(Context(), module)
    storage = "memory.alloc_storage {size = 467567993634816 : i64, alignment = 64 : i64} : !memory.storage"
    bad = Parser(mlir_context(), f"func.func @f() {{\n  %s = {storage}\n  func.return\n}}").parse_module()
    with pytest.raises(Exception, match=r"memory.alloc_storage of 425\.3 TiB cannot be allocated"):
        bad.verify()
