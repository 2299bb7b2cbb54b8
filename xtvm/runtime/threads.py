"""The number of worker threads compiled kernels may use.

The setting, by priority: the last `set_num_threads(n)`, else the environment
variable `XTVM_NUM_THREADS` (read when a graph executor is created, and by
`get_num_threads`), else `os.cpu_count()`.

The runtime has no thread pool of its own: generated code does. A library
that has one exports `void xtvm_set_num_threads(int32)`; every loaded module
exporting that symbol is told the setting when it is loaded, when a graph
executor is created on it, and whenever `set_num_threads` is called. Generated
code runs its parallel loops on libgomp, which xtvm starts with
`OMP_PROC_BIND=true` (each worker thread on its own core) unless the
environment says otherwise; the caller's own CPU affinity and environment
are left as they were (`starting_openmp`).
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable, Iterator

from xtvm.runtime.base import XTVMError

ENV_VAR = "XTVM_NUM_THREADS"

_explicit: int | None = None
# Native setters of the live modules that export `xtvm_set_num_threads`.
_setters: weakref.WeakKeyDictionary[object, Callable[[int], None]] = weakref.WeakKeyDictionary()


def _from_env() -> int | None:
    text = os.environ.get(ENV_VAR)
    if text is None or not text.strip():
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise XTVMError(f"{ENV_VAR} must be a positive integer, got '{text}'")
    return value


OPENMP_DEFAULTS = {"OMP_PROC_BIND": "true"}
"""libgomp settings xtvm starts it with (a value the user set wins). Binding
keeps each thread of the team on its own core (TVM's pool binds its threads
too): unbound, the scheduler at times left both threads of a 2-thread run on
one core, and SqueezeNet ran no faster than on one thread."""


@contextlib.contextmanager
def caller_affinity_kept() -> Iterator[None]:
    """Restore the calling thread's CPU affinity after the block.

    libgomp, started with `OMP_PROC_BIND=true`, binds the thread that loads
    it (its "initial thread") to one core, and the application's later work
    on that thread, and every process it starts, would run on that core
    alone (`starting_openmp` wraps whatever may load libgomp); its worker
    threads stay bound to their cores.
    """
    try:
        saved = os.sched_getaffinity(0)
    except (AttributeError, OSError):  # not Linux
        yield
        return
    try:
        yield
    finally:
        if os.sched_getaffinity(0) != saved:
            os.sched_setaffinity(0, saved)


@contextlib.contextmanager
def starting_openmp() -> Iterator[None]:
    """Wrap whatever may load libgomp (a library that links it, or the JIT
    loading it): libgomp reads the environment once, when it is loaded, so
    xtvm's settings (`OPENMP_DEFAULTS`, a value the user set wins) are in
    the environment inside the block and gone after it, and the caller's
    affinity is kept (`caller_affinity_kept`). Left in the environment,
    `OMP_PROC_BIND=true` bound the initial thread of every OpenMP runtime
    loaded later (xgboost's own libgomp, in a tuning run) to one core, and
    with it the application and every process it started."""
    added = [name for name in OPENMP_DEFAULTS if name not in os.environ]
    for name in added:
        os.environ[name] = OPENMP_DEFAULTS[name]
    try:
        with caller_affinity_kept():
            yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def get_num_threads() -> int:
    """The number of worker threads kernels should use."""
    if _explicit is not None:
        return _explicit
    return _from_env() or os.cpu_count() or 1


def set_num_threads(n: int) -> None:
    """Use `n` worker threads from now on, in every loaded module that has a thread pool."""
    global _explicit
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise XTVMError(f"set_num_threads: expected a positive integer, got {n!r}")
    _explicit = n
    for setter in list(_setters.values()):
        setter(n)


def attach(owner: object, setter: Callable[[int], None]) -> None:
    """Tell `setter` (a module's `xtvm_set_num_threads`) the setting now and on every change.

    It is forgotten when `owner` is garbage-collected.
    """
    _setters[owner] = setter
    setter(get_num_threads())


def apply(owner: object) -> None:
    """Re-send the current setting (re-reading `XTVM_NUM_THREADS`) to `owner`'s setter."""
    setter = _setters.get(owner)
    n = get_num_threads()
    if setter is not None:
        setter(n)
