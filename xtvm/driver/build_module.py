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
after any of them, which ``xtvm-compile --emit`` prints. Everything the
runtime needs is in the IR the pipeline produces: nothing is carried beside
it in Python.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Operation

from xtvm.driver.pipeline import STAGES, compile_gc, detect_stage, enabled, run_steps, stage_index
from xtvm.lowering.memory_to_llvm.graph_json import arg_name
from xtvm.target import Target
from xtvm.transform import PassContext

if TYPE_CHECKING:
    from xtvm.codegen.stubs import PrimitiveKernels


def bind_params(module: ModuleOp, params: Mapping[str, object], entry: str = "main") -> None:
    """Replace ``@entry``'s arguments named in ``params`` by ``relay.const``
    (each keeps the argument's name hint)."""
    from xtvm.constants import const_from_numpy

    fn = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry)
    block = fn.body.block
    anchor = block.first_op  # constants go before it, in argument order
    keep: list[int] = []
    for i, arg in enumerate(fn.args):
        name = arg_name(fn, i)
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
        const.result.name_hint = arg.name_hint  # names the weight's blob and parameter
        if anchor is None:
            block.add_op(const)
        else:
            block.insert_op_before(const, anchor)
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


def check_entry(module: ModuleOp, where: str = "the module") -> None:
    """A relay module must name its graph function ``@main`` (a module of
    ``tir.prim_func``s alone is a kernel library and needs none)."""
    if has_graph(module) or detect_stage(module) not in ("relay", "relay-partitioned", "relay-opt"):
        return
    found = [f"@{op.sym_name.data}" for op in module.ops if isinstance(op, func.FuncOp)]
    raise ValueError(
        f"{where}: no graph function func.func @main (found: "
        f"{', '.join(found) or 'no func.func'}); a model's entry must be called @main"
    )


def has_dynamic_shapes(module: ModuleOp, entry: str = "main") -> bool:
    """Whether ``@entry``'s inputs or outputs have a ``?`` dimension."""
    from xdsl.dialects.builtin import TensorType

    fn = next((op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry), None)
    if fn is None:
        return False
    types = [*fn.function_type.inputs.data, *fn.function_type.outputs.data]
    return any(isinstance(t, TensorType) and not t.has_static_shape() for t in types)


def choose_executor(module: ModuleOp, executor: str | None) -> str:
    """``executor`` if given; else the VM for a vm-stage module, a model
    with ``?`` dimensions or with control flow (``relay.if``/``relay.while``),
    the graph executor otherwise."""
    if executor is not None:
        if executor not in EXECUTORS:
            raise ValueError(f"unknown executor '{executor}' (executors: {', '.join(EXECUTORS)})")
        return executor
    if detect_stage(module) == "vm" or has_dynamic_shapes(module):
        return "vm"
    if any(op.name in ("relay.if", "relay.while") for op in module.walk()):
        return "vm"
    return "graph"


EXECUTORS = ("graph", "vm")


def lower(
    module: ModuleOp,
    params: Mapping[str, object] | None = None,
    stage: str = "llvm-dialect",
    start: str | None = None,
    executor: str | None = None,
    kernels_ready: Callable[[ModuleOp], object] | None = None,
    primitives_ready: Callable[[ModuleOp, Callable[[ModuleOp], None]], object] | None = None,
) -> ModuleOp:
    """Run the pipeline on ``module`` (in place) from the stage after ``start``
    (default: the stage the module is at, :func:`detect_stage`) up to and
    including ``stage``, and return it. ``executor`` ("graph" or "vm";
    default :func:`choose_executor`) picks the steps that differ: the ``vm``
    stage runs for the VM only, and the llvm-dialect stage lowers ``@main``
    to the AOT entry (graph) or embeds the VM executable (vm).

    A module of ``tir.prim_func``s alone (no ``@main``) is a kernel library:
    the relay and memory stages find nothing to do in it. Verification runs
    once per stage, except for the llvm dialect (xtvm's own lowering, tested
    on its own): verifying a whole model's kernels there costs seconds.
    ``kernels_ready`` sees the module once its kernels are final: after the
    ``tir`` stage's passes, before its verification, which then skips the
    kernels it marked ``CACHED_OBJECT_ATTR`` (``xtvm.build`` marks those
    whose object the kernel cache holds: they were verified when first
    built, and are not lowered again); or, for a module past that stage,
    before the llvm-dialect stage. ``primitives_ready`` sees the module
    before the ``tir`` stage (its primitive functions outlined), with the
    function that runs the ``tir`` stage's passes on a module (so a
    primitive function alone lowers as it would here)."""
    from xtvm.ir.resources import check_not_elided

    if params:
        if not has_graph(module):
            raise ValueError("params given, but the module has no graph function @main")
        bind_params(module, params)
    check_not_elided(module)  # a file printed for reading cannot be compiled
    check_entry(module)
    executor = choose_executor(module, executor)
    start = detect_stage(module) if start is None else start
    if start == "vm" and executor != "vm":
        raise ValueError("the module is at stage 'vm' (a vm.func): it runs on the VM, executor='vm'")
    if stage_index(stage) < stage_index(start):
        raise ValueError(f"the module is at stage '{start}', past the requested '{stage}'")
    with compile_gc():  # once: leaving it (run_steps's) ends in a full collection
        _run_stages(module, stage, start, executor, kernels_ready, primitives_ready)
    return module


def _run_stages(
    module: ModuleOp,
    stage: str,
    start: str,
    executor: str,
    kernels_ready: Callable[[ModuleOp], object] | None,
    primitives_ready: Callable[[ModuleOp, Callable[[ModuleOp], None]], object] | None = None,
) -> None:
    """:func:`lower`'s stages from the one after ``start`` to ``stage``."""
    for s in STAGES[stage_index(start) + 1 : stage_index(stage) + 1]:
        verify = s.name != "llvm-dialect" and (s.name != "memory-alloc" or s.name == stage)
        steps = [step for step in enabled(s.steps) if step.executor in (None, executor)]
        if primitives_ready is not None and s.name == "tir":
            primitives_ready(module, functools.partial(run_steps, steps=steps, verify=False))
        if kernels_ready is not None and s.name == "tir":
            run_steps(module, steps, verify=False)
            kernels_ready(module)
            kernels_ready = None
            if verify:
                _verify_uncached(module)
            continue
        if kernels_ready is not None and s.name == "llvm-dialect":
            kernels_ready(module)
        run_steps(module, steps, verify=verify)


def _verify_uncached(module: ModuleOp) -> None:
    """Verify the module but the kernels marked as cached (see :func:`lower`)."""
    from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import CACHED_OBJECT_ATTR

    if PassContext.current().config.get("verify_each_pass", False):
        return  # run_steps verified everything after each pass
    module.verify(verify_nested_ops=False)
    for op in module.ops:
        if CACHED_OBJECT_ATTR not in op.attributes:
            op.verify()


def _primitive_kernels(target: Target, executor: str) -> PrimitiveKernels | None:
    """The stubs of kernels whose object the kernel cache holds
    (:mod:`xtvm.codegen.stubs`), for a graph build on an llvm target with a
    cache, no BYOC and no tuning dispatch context; else None."""
    from xtvm.autotvm.dispatch import DispatchContext
    from xtvm.byoc.registry import TARGETS_CONFIG
    from xtvm.codegen.cache import KernelCache
    from xtvm.codegen.stubs import PrimitiveKernels

    cache = KernelCache.from_env()
    ctx = PassContext.current()
    if (
        cache is None
        or executor != "graph"
        or target.kind != "llvm"
        or ctx.config.get(TARGETS_CONFIG)
        or DispatchContext.current() is not None
    ):
        return None
    return PrimitiveKernels(cache, target)


def byoc_context(byoc: Sequence[str]) -> PassContext | nullcontext:
    """The current PassContext with ``relay.ext.targets`` set to ``byoc``
    (each name checked against the codegen registry); nothing without one."""
    from xtvm.byoc.registry import TARGETS_CONFIG, get_codegen

    if not byoc:
        return nullcontext()
    for name in byoc:
        get_codegen(name)
    ctx = PassContext.current()
    config = {**ctx.config, TARGETS_CONFIG: tuple(byoc)}
    return PassContext(ctx.opt_level, config, ctx.disabled_pass, ctx.required_pass)


def build(
    module: ModuleOp | Operation,
    target: Target | str | None = "llvm",
    params: Mapping[str, object] | None = None,
    executor: str | None = None,
    byoc: Sequence[str] = (),
):
    """Compile to a runtime ``Module``, or for ``executor="vm"`` (chosen
    by default for models with ``?`` dimensions, :func:`choose_executor`)
    to a VM ``Executable`` bound to its kernel library:
    ``VirtualMachine(exe, dev)`` runs it, ``exe.export_library(path)``
    writes the library with the executable inside (docs/vm.md).

    A relay module (with ``func.func @main``) gives a graph executor factory:
    ``lib["default"](dev)`` creates the executor. A ``tir.prim_func``, or a
    module of them, gives a kernel library: ``lib["name"](a, b)``. Either way
    ``lib.export_library(path)`` writes a shared library that
    ``xtvm.runtime.load_module`` loads in a fresh process, and whose AOT
    entry a C program calls (docs/abi.md). A module at any later stage (a
    file ``xtvm-compile --emit`` printed) continues from where it is.

    ``byoc=["dnnl"]`` offloads the regions external codegens take
    (docs/byoc.md: oneDNN ``dnnl``, the C ``ccompiler``), in the order of
    preference given; their code is linked into the module."""
    from xtvm import codegen

    if not isinstance(module, ModuleOp):
        module = ModuleOp([module.clone()])
    target = codegen.check_target(target)  # before any work: LLVM may end the process
    executor = choose_executor(module, executor) if has_graph(module) or detect_stage(module) == "vm" else "graph"
    from xtvm.codegen.background import BackgroundKernels, PrimitiveWorkers
    from xtvm.codegen.objects import KernelCacheMiss, mark_cached_kernels

    background: list[BackgroundKernels | PrimitiveWorkers] = []
    with target, byoc_context([byoc] if isinstance(byoc, str) else byoc):
        reuse = _primitive_kernels(target, executor)

        def mark(lowered: ModuleOp) -> None:  # kernels whose object is cached are not lowered
            if reuse is not None:
                reuse.mark(lowered)  # and files the stubs of the others
            elif target.kind == "llvm":
                mark_cached_kernels(lowered, target)
            if target.kind == "llvm":  # the others compile in workers meanwhile
                started = BackgroundKernels.start(lowered, target)
                background.extend([started] if started is not None else [])

        def primitives(relay_opt: ModuleOp, run_tir: Callable[[ModuleOp], None]) -> None:
            """Kernels without a stub lower and compile in workers from here."""
            assert reuse is not None
            started = PrimitiveWorkers.start(relay_opt, reuse, run_tir, target)
            background.extend([started] if started is not None else [])

        try:
            with reuse.active() if reuse is not None else nullcontext():
                lowered = lower(
                    module.clone(),
                    params,
                    executor=executor,
                    kernels_ready=mark,
                    primitives_ready=primitives if reuse is not None else None,
                )
        except BaseException:
            for b in background:
                b.close()
            raise
    try:
        for b in background:
            b.wait()
        lib = codegen.jit(lowered, target=target, consume=True)  # the weights move out of the IR
    except KernelCacheMiss:  # an entry vanished, or a worker failed: lower everything here
        del lowered
        with target, byoc_context([byoc] if isinstance(byoc, str) else byoc):
            lowered = lower(module.clone(), params, executor=executor)
        lib = codegen.jit(lowered, target=target)
    if executor == "vm":
        from xtvm.runtime.vm import Executable

        return Executable.from_library(lib)
    return lib
