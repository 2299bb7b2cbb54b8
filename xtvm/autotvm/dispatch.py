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
* ``ApplyHistoryBest`` (:mod:`xtvm.tuning.record`): the best measured
  config of each workload in a records file;
* :class:`ForceConv2dTile`: one implementation for every conv that has
  several (task extraction).

A context also answers, before the kernels exist, which implementation
of a conv that has several to build (:meth:`DispatchContext.conv2d_tile`,
TVM's ``DispatchContext.current.query`` in ``_alter_conv2d_layout``): the
direct conv or Winograd F(m, r). ``relay-alter-op-layout``'s
``conv2d-winograd`` and ``conv2d-winograd-stride2`` rules ask it.

The context is a :mod:`contextvars` variable, so threads and processes do
not see each other's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from xtvm.autotvm.space import ConfigBase, ConfigEntity, ConfigSpace, FallbackConfig


class TraceConfig(FallbackConfig):
    """An auto_scheduler candidate: a schedule ``trace`` (textual
    instructions of :mod:`xtvm.schedule.trace`) replayed on the kernel's
    default nests instead of its op schedules; ``sketch`` is the
    annotation it came from (kept in records, for the cost model).
    Templates, if any run, get their defaults."""

    def __init__(self, trace: list[str], sketch: dict[str, Any] | None = None):
        super().__init__()
        self.trace, self.sketch, self.index = list(trace), sketch or {}, -1

    def to_json(self) -> dict[str, Any]:
        return {"index": -1, "trace": self.trace, "sketch": self.sketch}

    def __str__(self) -> str:
        return "; ".join(self.trace)


def config_from_json(data: Any, strict: bool = True) -> ConfigEntity | TraceConfig:
    """A record's config: a trace (auto_scheduler) or a config entity
    (AutoTVM); a ValueError when it is neither."""
    if isinstance(data, dict) and "trace" in data:
        trace = data["trace"]
        if not (isinstance(trace, list) and all(isinstance(t, str) for t in trace)):
            raise ValueError("a trace config's 'trace' must be a list of instruction strings")
        sketch = data.get("sketch") if isinstance(data.get("sketch"), dict) else {}
        return TraceConfig(trace, sketch)
    return ConfigEntity.from_json(data, strict)


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


DIRECT = 0
"""The tile size that stands for the direct conv among a conv's
implementations (:meth:`DispatchContext.conv2d_tile`)."""


class DispatchContext:
    """Answers the config of a workload; a ``with`` scope makes it current."""

    def config(self, key: str, fn: Any) -> ConfigBase | None:
        """The config for workload ``key`` (None: the fallback)."""
        raise NotImplementedError

    def conv2d_tile(self, conv: str, tiles: Sequence[int], default: int) -> int:
        """Which implementation of the conv of workload ``conv``
        (:func:`xtvm.passes.relay.winograd.conv2d_workload`) to build:
        :data:`DIRECT` or the ``m`` of Winograd F(m, r), one of ``tiles``;
        ``default`` is the hand-written rule's choice (its size
        thresholds), which a context without an opinion keeps."""
        return default

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


class ForceConv2dTile(DispatchContext):
    """Every conv with several implementations gets ``tile`` (when it is one
    of its tiles, else the direct conv); ``convs`` maps each such conv's
    workload to its tiles (what task extraction makes tasks of),
    ``defaults`` to the hand-written rule's choice. Kernels keep their
    hand-written configs."""

    def __init__(self, tile: int):
        self.tile = tile
        self.convs: dict[str, tuple[int, ...]] = {}
        self.defaults: dict[str, int] = {}

    def config(self, key: str, fn: Any) -> ConfigBase | None:
        return None

    def conv2d_tile(self, conv: str, tiles: Sequence[int], default: int) -> int:
        self.convs[conv], self.defaults[conv] = tuple(tiles), default
        return self.tile if self.tile in tiles else DIRECT


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


def current_trace() -> list[str] | None:
    """The schedule trace to replay on the kernel being built, when the
    current config is an auto_scheduler one (else None)."""
    config = _CONFIG.get()
    return config.trace if isinstance(config, TraceConfig) else None


def current_config() -> ConfigBase:
    """The config of the kernel being scheduled (a fresh fallback when
    none was dispatched: the hand-written choices)."""
    return _CONFIG.get() or FallbackConfig()
