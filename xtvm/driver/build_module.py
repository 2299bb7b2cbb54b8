"""``xtvm.build``: a relay module (+ params) → a graph executor factory
module; a ``tir.prim_func`` (e.g. from ``te.create_prim_func``) → a kernel
library.

```python
mod, params = xtvm.frontend.from_onnx(onnx.load("mlp.onnx"), shape={"data": (1, 784)})
with xtvm.transform.PassContext(opt_level=3):
    lib = xtvm.build(mod, target="llvm", params=params)
lib.export_library("mlp.so")
gmod = lib["default"](xtvm.cpu(0))
```

The stages are those of :mod:`xtvm.driver.pipeline`; ``lower(..., stage=...)`` stops
after any of them, which ``xtvm-compile --emit`` prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Operation

from xtvm.driver.pipeline import STAGES, enabled, run_steps
from xtvm.lowering.graph_codegen import GraphArtifact, arg_name, graph_codegen
from xtvm.target import Target


@dataclass
class Lowered:
    """A module lowered to the llvm dialect plus what the runtime needs."""

    module: ModuleOp
    graph: GraphArtifact | None
    functions: dict[str, dict]

    def header(self) -> dict:
        graph_json = self.graph.graph_json if self.graph else None
        return {"version": 1, "functions": self.functions, "graph_json": graph_json}


def bind_params(module: ModuleOp, params: Mapping[str, object], entry: str = "main") -> None:
    """Replace ``@entry``'s arguments named in ``params`` by ``relay.const``."""
    from xtvm.constants import const_from_numpy

    fn = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry)
    block = fn.body.block
    keep: list[int] = []
    for i, arg in enumerate(fn.args):
        name = arg_name(fn, i, f"input{i}")
        if name not in params:
            keep.append(i)
            continue
        value = params[name]
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        const = const_from_numpy(array)
        if const.result.type != arg.type:
            raise ValueError(
                f"param '{name}' has type {const.result.type}, but @{entry} expects {arg.type}"
            )
        block.insert_op_before(const, block.first_op)
        arg.replace_all_uses_with(const.result)
    for i in reversed(range(len(fn.args))):
        if i not in keep:
            block.erase_arg(fn.args[i])
    arg_attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
    fn.arg_attrs = ArrayAttr([arg_attrs[i] for i in keep]) if arg_attrs else None
    fn.function_type = func.FunctionType.from_lists(
        [a.type for a in fn.args], fn.function_type.outputs.data
    )


def has_graph(module: ModuleOp, entry: str = "main") -> bool:
    """Whether the module has a graph function (else it is a kernel library)."""
    return any(isinstance(op, func.FuncOp) and op.sym_name.data == entry for op in module.ops)


def lower(
    module: ModuleOp, params: Mapping[str, object] | None = None, stage: str = "llvm-dialect"
) -> Lowered:
    """Run the pipeline on ``module`` (in place) up to and including ``stage``.

    Past ``tir``, the graph function leaves the module as graph JSON (and the
    kernels' signatures are recorded) before the kernels become llvm. A
    module of ``tir.prim_func``s alone (no ``@main``) is a kernel library: it
    has no graph, and the relay stages find nothing to do."""
    from xtvm.codegen import tir_signature
    from xtvm.dialects.tir import PrimFuncOp

    graph_module = has_graph(module)
    if params:
        if not graph_module:
            raise ValueError("params given, but the module has no graph function @main")
        bind_params(module, params)
    graph, functions = None, {}
    for s in STAGES:
        if s.name == "llvm-dialect":
            functions = {
                op.sym_name.data: tir_signature(op)
                for op in module.ops
                if isinstance(op, PrimFuncOp)
            }
            graph = graph_codegen(module) if graph_module else None
        # Verifying a whole model's worth of kernels costs seconds: the llvm
        # dialect (xtvm's own lowering, verified by its tests) is not, and the
        # memory stages are verified once, after planning.
        verify = s.name != "llvm-dialect" and (s.name != "memory-alloc" or s.name == stage)
        run_steps(module, enabled(s.steps), verify=verify)
        if s.name == stage:
            return Lowered(module, graph, functions)
    raise ValueError(f"unknown stage '{stage}' (stages: {', '.join(s.name for s in STAGES)})")


def build(
    module: ModuleOp | Operation,
    target: Target | str | None = "llvm",
    params: Mapping[str, object] | None = None,
):
    """Compile to a runtime ``Module``.

    A relay module (with ``func.func @main``) gives a graph executor factory:
    ``lib["default"](dev)`` creates the executor. A ``tir.prim_func``, or a
    module of them, gives a kernel library: ``lib["name"](a, b)``. Either way
    ``lib.export_library(path)`` writes a shared library that
    ``xtvm.runtime.load_module`` loads in a fresh process."""
    from xtvm import codegen

    if not isinstance(module, ModuleOp):
        module = ModuleOp([module.clone()])
    with Target.of(target):  # the passes and schedules read Target.current()
        lowered = lower(module.clone(), params)
    kernel_params = lowered.graph.params if lowered.graph else {}
    return codegen.jit(lowered.module, lowered.header(), kernel_params, target=target)
