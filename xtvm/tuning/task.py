"""Tuning tasks: the distinct fused kernels of a model (TVM's
``autotvm.task.extract_from_program``).

:func:`extract_tasks` runs the relay pipeline up to fusion
(``relay-opt``: weights bound, packed and folded, ops fused into primitive
functions), groups the primitive functions by workload key (their
structural key: ResNet-50's 58 fused groups are 29 distinct kernels) and
keeps those whose schedule is an AutoTVM template, i.e. defines knobs. A
task's ``weight`` is how many times the model calls its kernel: the
factor of its latency in the model's.

A conv with several implementations (the direct conv and Winograd F(m, r),
:func:`xtvm.passes.relay.winograd.winograd_tiles`) gives a task for each:
the pipeline runs once with every such conv direct, then once per Winograd
tile with every such conv taking it (:class:`ForceConv2dTile`), and each
kernel holding such a conv is tagged with the conv's workload and its
implementation (``conv2d``, ``tile_size``); records carry the tag, and
``apply_history_best`` builds the conv with the implementation measured
fastest (TVM's ``_alter_conv2d_layout`` querying the dispatch context).

A task is plain data (its primitive function as MLIR text), so it travels
to build workers as JSON and can be rebuilt anywhere:
:meth:`Task.build_kernel` lowers it under one config.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from xtvm.autotvm.dispatch import DIRECT, ApplyConfig, ForceConv2dTile, SpaceCollector, workload_key
from xtvm.autotvm.space import ConfigEntity, ConfigSpace


@dataclass
class Task:
    """One kernel to tune: ``name`` (its fused function's), ``key`` (the
    workload key records are matched by), ``func`` (a module holding the
    primitive function, as text), ``target`` (a target string), ``weight``
    (calls per inference), ``flop`` (floating-point operations per call)."""

    name: str
    key: str
    func: str
    target: str
    weight: int = 1
    flop: float = 0.0
    conv2d: str = ""
    tile_size: int = DIRECT
    hand_written: bool = True
    _space: ConfigSpace | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "key": self.key,
            "func": self.func,
            "target": self.target,
            "weight": self.weight,
            "flop": self.flop,
            "conv2d": self.conv2d,
            "tile_size": self.tile_size,
            "hand_written": self.hand_written,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Task:
        fields = ("name", "key", "func", "target", "weight", "flop", "conv2d", "tile_size")
        fields += ("hand_written",)
        return Task(**{k: data[k] for k in fields if k in data})

    def primitive_function(self):
        """The primitive function (``func.func``), parsed from ``func``."""
        from xdsl.dialects import func
        from xdsl.parser import Parser

        from xtvm.driver.pipeline import mlir_context

        module = Parser(mlir_context(), self.func).parse_module()
        return next(op for op in module.ops if isinstance(op, func.FuncOp))

    def build_kernel(self, config: ConfigEntity | None = None):
        """The task's ``tir.prim_func`` scheduled with ``config`` (the space's
        fallback, the hand-written schedule, when None)."""
        from xtvm.lowering.relay_to_tir.convert_relay_to_tir import COMPUTES
        from xtvm.lowering.relay_to_tir.kernel import KernelBuilder
        from xtvm.target import Target

        fn = self.primitive_function()
        with Target.of(self.target):
            if config is None:
                return KernelBuilder(COMPUTES).primitive_function(fn)
            with ApplyConfig(config):
                return KernelBuilder(COMPUTES).primitive_function(fn)

    @property
    def config_space(self) -> ConfigSpace:
        """The space the kernel's template defines (collected once)."""
        if self._space is None:
            from xtvm.lowering.relay_to_tir.convert_relay_to_tir import COMPUTES
            from xtvm.lowering.relay_to_tir.kernel import KernelBuilder
            from xtvm.target import Target

            collector = SpaceCollector()
            with Target.of(self.target), collector:
                KernelBuilder(COMPUTES).primitive_function(self.primitive_function())
            self._space = collector.spaces.get(self.key, ConfigSpace())
            self.flop = self.flop or self._space.flop
        return self._space

    @property
    def implementation(self) -> str:
        """``direct``, ``winograd F(m,r)`` (``r`` 3, or 4 for a 7x7 stride-2
        conv's space-to-depth form), or "" for a task without alternatives."""
        if not self.conv2d:
            return ""
        if self.tile_size == DIRECT:
            return "direct"
        from xtvm.passes.relay.winograd import winograd_kernel_size

        return f"winograd F({self.tile_size},{winograd_kernel_size(self.conv2d)})"

    @property
    def label(self) -> str:
        """The name for tables: the fused function's (``..._winograd_...``
        for ``..._winograd_without_weight_transform_...``) and the
        implementation, if any."""
        name = self.name.replace("winograd_without_weight_transform", "winograd")
        return f"{name} [{self.implementation}]" if self.conv2d else name

    def __str__(self) -> str:
        what = f" ({self.implementation})" if self.conv2d else ""
        return f"{self.name} [{self.key[:8]}] x{self.weight}{what}"


def _module_text(fn) -> str:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out).print_op(ModuleOp([fn.clone()]))
    return out.getvalue()


def conv_of(fn) -> Any:
    """The conv op of a primitive function (packed or Winograd), if any."""
    from xtvm.dialects.relay import Conv2dPackedOp
    from xtvm.dialects.relay.winograd import Conv2dWinogradOp

    return next((op for op in fn.walk() if isinstance(op, Conv2dPackedOp | Conv2dWinogradOp)), None)


def extract_tasks(mod, params=None, target: Any = "llvm", opt_level: int = 3) -> list[Task]:
    """The tunable tasks of a relay module (see the module docstring), most
    FLOPs × weight first; a conv's implementations next to each other, the
    hand-written rule's choice first."""
    from xtvm.target import Target

    target = Target.of(target)
    direct = ForceConv2dTile(DIRECT)
    tasks = _tasks_of(mod, params, target, opt_level, direct, {})
    tiles = sorted({m for ts in direct.convs.values() for m in ts if m != DIRECT})
    for m in tiles:
        _tasks_of(mod, params, target, opt_level, ForceConv2dTile(m), tasks)
    for task in tasks.values():
        if task.conv2d:
            task.hand_written = task.tile_size == direct.defaults[task.conv2d]
    # A conv's implementations are tuned one after the other, the hand-written
    # rule's choice first (a deadline that cuts the search has measured it).
    order: dict[str, float] = {}
    for task in tasks.values():
        group = task.conv2d or task.key
        order[group] = max(order.get(group, 0.0), task.flop * task.weight)
    return sorted(
        tasks.values(),
        key=lambda t: (
            -order[t.conv2d or t.key],
            t.conv2d or t.key,
            not t.hand_written,
        ),
    )


def _tasks_of(
    mod, params, target, opt_level: int, choice: ForceConv2dTile, tasks: dict[str, Task]
) -> dict[str, Task]:
    """Add the tasks of ``mod`` lowered with the convs' implementations
    ``choice`` to ``tasks`` (by workload key; a kernel already there keeps
    its weight from the first lowering); a kernel of a conv with several
    implementations is tagged with it."""
    from xdsl.dialects import func

    from xtvm.dialects.relay.primitive import is_primitive
    from xtvm.driver.build_module import lower
    from xtvm.passes.relay.winograd import conv2d_workload
    from xtvm.transform import PassContext

    with target, PassContext(opt_level=opt_level), choice:
        module = lower(mod.clone(), params, stage="relay-opt")
    calls = Counter(op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp))
    seen: dict[str, Task] = {}
    for op in module.ops:
        if not (isinstance(op, func.FuncOp) and is_primitive(op)):
            continue
        key = workload_key(op)
        if key in seen:
            seen[key].weight += calls[op.sym_name.data]
            continue
        if key in tasks:
            continue
        task = Task(op.sym_name.data, key, _module_text(op), str(target), calls[op.sym_name.data])
        conv = conv_of(op)
        if conv is not None and (workload := conv2d_workload(conv)) in choice.convs:
            task.conv2d, task.tile_size = workload, conv.attrs.get("tile_size", DIRECT)
        if len(task.config_space) > 1:
            seen[key] = task
    tasks.update(seen)
    return tasks
