"""Helpers of the schedule tests: te computes → scheduled prim_func →
tir passes → convert-tir-to-llvm → JIT, run on NumPy arrays."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm import codegen, te
from xtvm.dialects.tir import ForOp, PrimFuncOp
from xtvm.driver.pipeline import mlir_context
from xtvm.passes.registry import PASSES
from xtvm.runtime import NDArray
from xtvm.schedule import Schedule

PASSES_AFTER = ("tir-simplify", "tir-unroll-loop", "tir-flatten-buffer", "tir-simplify")
"""What the pipeline runs on a scheduled kernel before code generation."""


def run_passes(func: PrimFuncOp, passes: Sequence[str]) -> ModuleOp:
    module = ModuleOp([func.clone()])
    for name in passes:
        PASSES[name]()().apply(mlir_context(), module)
        module.verify()
    return module


def kinds(func: PrimFuncOp | ModuleOp) -> list[tuple[str, str]]:
    """(loop variable, kind) of every loop, in program order."""
    return [
        (op.induction_var.name_hint or "?", op.kind.data)
        for op in func.walk()
        if isinstance(op, ForOp)
    ]


def run(
    func: PrimFuncOp, inputs: Sequence[np.ndarray], passes: Sequence[str] = PASSES_AFTER
) -> list[np.ndarray]:
    """Compile `func` after `passes` and run it on `inputs`; the remaining
    buffer arguments are outputs (zero-filled), whose values are returned."""
    module = run_passes(func, passes)
    kernel = next(op for op in module.ops if isinstance(op, PrimFuncOp))
    name = kernel.sym_name.data
    shapes = func.buffer_shapes
    dtypes = [str(np.dtype(a.dtype)) for a in inputs]
    header = {"version": 1, "functions": {name: codegen.tir_signature(kernel)}, "graph_json": None}
    PASSES["convert-tir-to-llvm"]()().apply(mlir_context(), module)
    lib = codegen.jit(module, header)
    args = [NDArray(np.require(a, requirements="C")) for a in inputs]
    out_shapes = shapes[len(inputs) :]
    outs = [NDArray(np.zeros(shape, dtypes[0])) for shape in out_shapes]  # type: ignore[arg-type]
    lib[name](*args, *outs)
    return [o.numpy() for o in outs]


def matmul(
    n: int, m: int, k: int, relu: bool = False
) -> tuple[PrimFuncOp, Callable[..., np.ndarray]]:
    """`C = A @ B^T` (optionally relu'd), te-lowered, and its NumPy reference."""
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((m, k), name="B")
    r = te.reduce_axis((0, k), name="k")
    D = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[j, r], axis=r), name="D")
    out = D
    if relu:
        out = te.compute((n, m), lambda i, j: te.max(D[i, j], 0.0), name="C")
    func = te.create_prim_func([A, B, out], "matmul")

    def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        c = a @ b.T
        return np.maximum(c, 0) if relu else c

    return func, reference


def random(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + len(shape)).uniform(-1, 1, size=shape).astype("float32")


__all__ = ["PASSES_AFTER", "Schedule", "kinds", "matmul", "random", "run", "run_passes"]
