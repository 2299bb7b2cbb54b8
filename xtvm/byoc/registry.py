"""External codegens by compiler name (TVM's ``relay.ext.<name>`` registry).

A codegen says which relay ops (and which of its composite patterns) it
takes, through one predicate per op name that may look at the op's
attributes and shapes, and turns one partitioned function (``func.func``
marked ``relay.compiler = "<name>"``) into C source that the build compiles
with the system C compiler and links into the module.

The passes of :mod:`xtvm.passes.relay.partition` read the predicates and
patterns from here; ``relay-external-codegen`` calls ``generate``. Codegens
import on demand, so naming a target costs nothing until it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module

from xdsl.dialects import func
from xdsl.ir import Operation

from xtvm.transform import PassContext

Predicate = Callable[[Operation], bool]
"""Whether a codegen takes this op (it may read the op's attributes and shapes)."""

TARGETS_CONFIG = "relay.ext.targets"
"""The ``PassContext`` config naming the external codegens of a build
(``xtvm.build(..., byoc=["dnnl"])`` sets it); the partitioning passes read
it when their ``targets`` option is not given."""


class CodegenError(Exception):
    """A codegen cannot compile a region (or its library is missing)."""


@dataclass(frozen=True)
class ExternalSource:
    """What a codegen makes of one partitioned function: C source defining
    ``int32_t <symbol>_impl(<one pointer per input, then per output>)``
    (0 on success), and how to compile and link it."""

    source: str
    include_dirs: tuple[str, ...] = ()
    library_dirs: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExternalCodegen:
    """One external codegen: its compiler name, the ops it supports, its
    composite patterns (``xtvm.rewrite`` rules, tried in order, biggest
    first) and the function generating C source for a partitioned function.

    ``generate(function, composites)`` receives the partitioned function and
    the composite functions it calls (by symbol name); it raises
    :class:`CodegenError` for a function it cannot compile."""

    name: str
    ops: Mapping[str, Predicate]
    generate: Callable[[func.FuncOp, Mapping[str, func.FuncOp]], ExternalSource]
    patterns: Sequence[object] = field(default_factory=tuple)

    def supports(self, op: Operation, op_name: str | None = None) -> bool:
        """Whether the codegen takes ``op`` (its predicate, under ``op_name``:
        a composite's name for a call of a composite function)."""
        predicate = self.ops.get(op_name or op.name)
        return predicate is not None and bool(predicate(op))


def _lazy(module: str) -> Callable[[], ExternalCodegen]:
    return lambda: import_module(module).CODEGEN


CODEGENS: dict[str, Callable[[], ExternalCodegen]] = {
    "dnnl": _lazy("xtvm.byoc.dnnl"),
    "ccompiler": _lazy("xtvm.byoc.ccompiler"),
}


def get_codegen(name: str) -> ExternalCodegen:
    """The codegen registered as ``name``; an unknown name is an error
    listing the known ones."""
    if name not in CODEGENS:
        raise CodegenError(
            f"unknown external codegen '{name}' (known: {', '.join(sorted(CODEGENS))})"
        )
    return CODEGENS[name]()


def targets_of(option: Sequence[str] | None) -> tuple[str, ...]:
    """The targets a pass works for: its option if given, else the
    ``PassContext`` config ``relay.ext.targets`` (none: the pass does nothing)."""
    targets = option if option else PassContext.current().config.get(TARGETS_CONFIG, ())
    if isinstance(targets, str):
        targets = (targets,)
    for name in targets:
        get_codegen(name)  # unknown names fail early
    return tuple(targets)
