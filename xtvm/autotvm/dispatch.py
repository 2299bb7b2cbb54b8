"""Which config a template gets while a kernel is scheduled (TVM's
``autotvm.DispatchContext``).

A dispatch context maps a kernel's workload key (the structural key of its
fused primitive function, :func:`workload_key`) to a config. The lowering
wraps each kernel in :func:`kernel_scope`; the x86 templates then read
:func:`current_config`. With no context active, nothing is hashed and every
template gets a :class:`~xtvm.autotvm.space.FallbackConfig`: the
hand-written schedule, exactly.

Contexts:

* :class:`ApplyConfig`: one config for one workload (the builder, building
  a candidate);
* :class:`SpaceCollector`: records each kernel's :class:`ConfigSpace`
  (task extraction);
* ``ApplyHistoryBest`` (:mod:`xtvm.autotvm.record`): the best measured
  config of each workload in a records file.

The context is a :mod:`contextvars` variable, so threads and processes do
not see each other's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from xtvm.autotvm.space import ConfigBase, ConfigEntity, ConfigSpace, FallbackConfig

_DISPATCH: ContextVar[DispatchContext | None] = ContextVar("xtvm_autotvm_dispatch", default=None)
_CONFIG: ContextVar[ConfigBase | None] = ContextVar("xtvm_autotvm_config", default=None)


def workload_key(fn: Any) -> str:
    """The workload key of a fused primitive function (``func.func`` with
    ``relay.primitive``): the SHA-256 of its text without names, the key by
    which identical fused groups share one kernel."""
    from xtvm.lowering.relay_to_tir.convert_relay_to_tir import structural_key

    return structural_key(fn)


def target_key(target: Any = None) -> str:
    """What a record's target must match to apply: the CPU name LLVM
    generates code for (``Target.cpu_name``)."""
    from xtvm.target import Target

    return (Target.of(target) if target is not None else Target.current()).cpu_name


class DispatchContext:
    """Answers the config of a workload; a ``with`` scope makes it current."""

    def config(self, key: str, fn: Any) -> ConfigBase | None:
        """The config for workload ``key`` (None: the fallback)."""
        raise NotImplementedError

    def __enter__(self) -> DispatchContext:
        self._token = _DISPATCH.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _DISPATCH.reset(self._token)

    @staticmethod
    def current() -> DispatchContext | None:
        return _DISPATCH.get()


class ApplyConfig(DispatchContext):
    """``config`` for workload ``key`` (every workload when ``key`` is None)."""

    def __init__(self, config: ConfigEntity, key: str | None = None):
        self.config_entity = config
        self.key = key

    def config(self, key: str, fn: Any) -> ConfigBase | None:
        return self.config_entity if self.key in (None, key) else None


class SpaceCollector(DispatchContext):
    """Records the space each kernel's template defines: ``spaces[key]``."""

    def __init__(self) -> None:
        self.spaces: dict[str, ConfigSpace] = {}

    def config(self, key: str, fn: Any) -> ConfigBase | None:
        return self.spaces.setdefault(key, ConfigSpace())


@contextmanager
def kernel_scope(fn: Any) -> Iterator[None]:
    """Schedule the kernel of primitive function ``fn`` under the current
    dispatch context's config for it (no work when there is no context)."""
    context = _DISPATCH.get()
    if context is None:
        yield
        return
    config = context.config(workload_key(fn), fn)
    token = _CONFIG.set(config)
    try:
        yield
    finally:
        _CONFIG.reset(token)


def current_config() -> ConfigBase:
    """The config of the kernel being scheduled (a fresh fallback when
    none was dispatched: the hand-written choices)."""
    return _CONFIG.get() or FallbackConfig()
