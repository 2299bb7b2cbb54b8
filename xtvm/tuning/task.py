"""Tuning tasks: the distinct fused kernels of a model (TVM's
``autotvm.task.extract_from_program``).

:func:`extract_tasks` runs the relay pipeline up to fusion
(``relay-opt``: weights bound, packed and folded, ops fused into primitive
functions), groups the primitive functions by workload key (their
structural key: ResNet-50's 58 fused groups are 29 distinct kernels) and
keeps those whose schedule is an AutoTVM template, i.e. defines knobs. A
task's ``weight`` is how many times the model calls its kernel: the
factor of its latency in the model's.

A task is plain data (its primitive function as MLIR text), so it travels
to build workers as JSON and can be rebuilt anywhere:
:meth:`Task.build_kernel` lowers it under one config.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from xtvm.autotvm.dispatch import ApplyConfig, SpaceCollector, workload_key
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
    _space: ConfigSpace | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "key": self.key,
            "func": self.func,
            "target": self.target,
            "weight": self.weight,
            "flop": self.flop,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Task:
        return Task(**{k: data[k] for k in ("name", "key", "func", "target", "weight", "flop")})

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

    def __str__(self) -> str:
        return f"{self.name} [{self.key[:8]}] x{self.weight}"


def _module_text(fn) -> str:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out).print_op(ModuleOp([fn.clone()]))
    return out.getvalue()


def extract_tasks(mod, params=None, target: Any = "llvm", opt_level: int = 3) -> list[Task]:
    """The tunable tasks of a relay module (see the module docstring), most
    FLOPs × weight first."""
    from xdsl.dialects import func

    from xtvm.dialects.relay.primitive import is_primitive
    from xtvm.driver.build_module import lower
    from xtvm.target import Target
    from xtvm.transform import PassContext

    target = Target.of(target)
    with target, PassContext(opt_level=opt_level):
        module = lower(mod.clone(), params, stage="relay-opt")
    calls = Counter(op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp))
    tasks: dict[str, Task] = {}
    for op in module.ops:
        if not (isinstance(op, func.FuncOp) and is_primitive(op)):
            continue
        key = workload_key(op)
        if key in tasks:
            tasks[key].weight += calls[op.sym_name.data]
            continue
        task = Task(op.sym_name.data, key, _module_text(op), str(target), calls[op.sym_name.data])
        if len(task.config_space) > 1:
            tasks[key] = task
    return sorted(tasks.values(), key=lambda t: -t.flop * t.weight)

