"""Runtime modules: named PackedFuncs, imports, export and loading (TVM's `runtime.Module`).

A `NativeModule` holds compiled kernels. It is built from a symbol resolver
(name -> native address), the metadata header and parameters (docs/abi.md)
and a keepalive object that keeps the code mapped:

* `Module.from_library(path)` / `load_module(path)`: a shared library whose
  `__xtvm_metadata` / `__xtvm_metadata_size` symbols hold the metadata blob;
* `Module.from_addresses(addresses, header, params, keepalive, exporter)`:
  code the JIT placed in memory; `exporter(path)` writes it as a shared
  library, which is what `export_library` calls;
* `Module.from_loader(header, load, exporter)`: code placed in memory only
  when first needed (TVM's LLVM module creates its MCJIT engine on the first
  `GetFunction`): `load()` places it and returns `(resolve, keepalive)`.
  Looking up a kernel, creating the graph executor, reading `params` or
  anything else that needs an address loads it (`loaded` says whether it
  is); the header (`function_names`, `graph_json`, `get_graph_json`) does
  not, nor does `export_library`, so a build that is only exported never
  places its code or weights.

A module whose metadata has a `graph_json` is a graph executor factory:

    factory = load_module("model.so")
    gmod = factory["default"](cpu(0))          # a graph_executor.GraphModule
    gmod["set_input"](0, data); gmod["run"](); out = gmod["get_output"](0).numpy()
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from xtvm.runtime import threads
from xtvm.runtime.allocator import keep_heap_pages
from xtvm.runtime.base import Object, XTVMError
from xtvm.runtime.elf import check_shared_library
from xtvm.runtime.metadata import is_header, params_at, unpack_header, unpack_metadata
from xtvm.runtime.ndarray import Device, NDArray, array
from xtvm.runtime.packed_func import KernelFunc, PackedFunc, PyFunc
from xtvm.runtime.profiling import BenchmarkResult, time_calls

THREAD_SETTER_SYMBOL = "xtvm_set_num_threads"
"""Optional library export `void xtvm_set_num_threads(int32)`; see `threads`."""

_THREAD_SETTER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int32)


class Module(Object):
    """A set of named PackedFuncs plus imported modules (TVM's `tvm.runtime.Module`).

    Subclasses provide `_lookup` (one local function, or None) and
    `function_names`.
    """

    def __init__(self, type_key: str):
        self.type_key = type_key
        self._imports: list[Module] = []
        self._functions: dict[str, PackedFunc] = {}

    def _lookup(self, name: str) -> PackedFunc | None:
        return None

    def function_names(self) -> list[str]:
        """The names of this module's own functions (imports excluded)."""
        return []

    @property
    def imported_modules(self) -> list[Module]:
        return list(self._imports)

    def import_module(self, module: Module) -> None:
        """Make `module`'s functions reachable with `get_function(..., query_imports=True)`."""
        if not isinstance(module, Module):
            raise XTVMError(f"import_module: expected a Module, got {type(module).__name__}")
        self._imports.append(module)

    def _find(self, name: str, query_imports: bool) -> PackedFunc | None:
        func = self._functions.get(name)
        if func is None:
            func = self._lookup(name)
            if func is not None:
                self._functions[name] = func
        if func is None and query_imports:
            for imported in self._imports:
                func = imported._find(name, True)
                if func is not None:
                    break
        return func

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        """Whether `get_function(name, query_imports)` would succeed."""
        return self._find(name, query_imports) is not None

    def get_function(self, name: str, query_imports: bool = False) -> PackedFunc:
        """The function `name`; an XTVMError listing the available ones if it is missing."""
        func = self._find(name, query_imports)
        if func is None:
            names = ", ".join(sorted(self.function_names())) or "none"
            where = " or its imports" if query_imports else ""
            raise XTVMError(
                f"module '{self.type_key}'{where} has no function '{name}'; available: {names}"
            )
        return func

    def __getitem__(self, name: str) -> PackedFunc:
        if not isinstance(name, str):
            raise XTVMError(f"function names are strings, got {type(name).__name__}")
        return self.get_function(name)

    def export_library(self, path: str | os.PathLike[str]) -> None:
        """Write this module as a shared library that `load_module` reads."""
        raise XTVMError(f"a module of type '{self.type_key}' cannot be exported")

    def time_evaluator(
        self,
        func_name: str,
        dev: Device,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: float = 0,
        cooldown_interval_ms: float = 0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> Callable[..., BenchmarkResult]:
        """A function that times `func_name` on its arguments (TVM's `time_evaluator`).

        Calling it runs the function once to warm up, then `repeat` times
        `number` calls; the result's `results` are seconds per call of each
        repeat, with `mean` and `median`. Kernels called on NDArrays are timed
        through their bound fast path. `clock` is the wall clock by default
        (`time.thread_time`: the calling thread's CPU time, see `time_calls`).
        """
        func = self.get_function(func_name, query_imports=True)
        if number < 1 or repeat < 1:
            raise XTVMError(f"time_evaluator: number ({number}) and repeat ({repeat}) must be >= 1")

        def evaluate(*args: Any) -> BenchmarkResult:
            if isinstance(func, KernelFunc) and all(isinstance(a, NDArray) for a in args):
                call = func.bind(args)
            else:

                def call() -> None:
                    func(*args)

            return time_calls(call, dev, number, repeat, min_repeat_ms, cooldown_interval_ms, clock)

        return evaluate

    def __repr__(self) -> str:
        return f"Module({self.type_key}, {hex(id(self))})"

    @staticmethod
    def from_library(path: str | os.PathLike[str]) -> NativeModule:
        """Load an xtvm shared library (see `load_module`)."""
        return load_module(path)

    @staticmethod
    def from_addresses(
        addresses: Mapping[str, int],
        header: dict[str, Any],
        params: Mapping[str, np.ndarray | NDArray],
        keepalive: Any,
        exporter: Callable[[str], None] | None = None,
    ) -> NativeModule:
        """A module over JIT-compiled code: `addresses` maps each symbol to its address.

        `header` and `params` are the metadata (what `pack_metadata` takes,
        with `graph_json` and `functions`); `keepalive` keeps the code alive
        (the execution engine); `exporter(path)` writes the module as a shared
        library. `addresses` may also contain `xtvm_set_num_threads`.
        """
        missing = [name for name in header.get("functions", {}) if name not in addresses]
        if missing:
            raise XTVMError(f"JIT module: no address for function(s) {', '.join(missing)}")
        arrays = {
            name: value.numpy() if isinstance(value, NDArray) else np.asarray(value)
            for name, value in params.items()
        }
        return NativeModule("llvm", addresses.get, dict(header), arrays, keepalive, exporter)

    @staticmethod
    def from_loader(
        header: dict[str, Any],
        load: Callable[[], tuple[Callable[[str], int | None], Any]],
        exporter: Callable[[str], None] | None = None,
    ) -> NativeModule:
        """A module over code placed in memory on first use (see the module
        docstring): ``load()`` places it once and returns ``(resolve,
        keepalive)``, a symbol resolver and what keeps the code alive;
        ``header`` is the version-2 metadata, whose ``params`` name their
        symbols. ``exporter(path)`` writes the library, loaded or not."""
        return NativeModule("llvm", None, dict(header), None, None, exporter, load=load)


class NativeModule(Module):
    """A module of compiled kernels, described by its metadata (docs/abi.md).

    Attributes: `header` (the metadata header), `params` (read-only NumPy
    arrays), `graph_json` (None for a plain kernel library). If `graph_json`
    is set, the module is a graph executor factory whose `default(dev)`
    creates a `GraphModule`, `get_graph_json()` returns the graph and
    `get_params()` the parameters as NDArrays.
    """

    _FACTORY_FUNCTIONS = ("default", "get_graph_json", "get_params")

    def __init__(
        self,
        type_key: str,
        resolve: Callable[[str], int | None] | None,
        header: dict[str, Any],
        params: dict[str, np.ndarray] | None,
        keepalive: Any,
        exporter: Callable[[str], None] | None = None,
        path: str | None = None,
        load: Callable[[], tuple[Callable[[str], int | None], Any]] | None = None,
    ):
        functions = header.get("functions", {})
        if not isinstance(functions, dict) or not all(
            isinstance(sig, dict) and isinstance(sig.get("args", []), list)
            for sig in functions.values()
        ):
            raise XTVMError("xtvm metadata: 'functions' must map names to {'args': [...]}")
        super().__init__("GraphExecutorFactory" if header.get("graph_json") else type_key)
        self.header = header
        self.graph_json: str | None = header.get("graph_json")
        self._exporter = exporter
        self._path = path
        self._load = load
        self._loading = threading.Lock()
        if load is None:
            assert resolve is not None and params is not None
            self._attach(resolve, params, keepalive)

    @property
    def loaded(self) -> bool:
        """Whether the code and data are in memory (a module made
        `from_loader` loads them when first needed)."""
        return self._load is None

    @property
    def params(self) -> dict[str, np.ndarray]:
        """The parameters, read-only NumPy arrays over the module's data."""
        self._ensure_loaded()
        return self._params

    @property
    def _resolve(self) -> Callable[[str], int | None]:
        self._ensure_loaded()
        return self._resolver

    def _ensure_loaded(self) -> None:
        if self._load is None:
            return
        with self._loading:
            if self._load is None:  # another thread loaded it meanwhile
                return
            resolve, keepalive = self._load()
            missing = [name for name in self.header.get("functions", {}) if not resolve(name)]
            if missing:
                raise XTVMError(f"JIT module: no address for function(s) {', '.join(missing)}")
            keep_heap_pages()  # its kernels' large buffers, as when a library loads
            self._attach(resolve, params_at(self.header, resolve, keepalive), keepalive)
            self._load = None

    def _attach(
        self, resolve: Callable[[str], int | None], params: dict[str, np.ndarray], keepalive: Any
    ) -> None:
        """Take loaded code: its resolver, parameters and keepalive."""
        self._resolver = resolve
        self._params = params
        self._keepalive = keepalive
        setter_address = resolve(THREAD_SETTER_SYMBOL)
        if setter_address:
            threads.attach(self, _THREAD_SETTER_TYPE(setter_address))

    def function_names(self) -> list[str]:
        names = list(self.header.get("functions", {}))
        return names + list(self._FACTORY_FUNCTIONS) if self.graph_json else names

    def _lookup(self, name: str) -> PackedFunc | None:
        signature = self.header.get("functions", {}).get(name)
        if signature is not None:
            address = self._resolve(name)  # loads the module
            if not address:
                raise XTVMError(f"module '{self.type_key}': symbol '{name}' is not defined")
            return KernelFunc(name, address, signature, keepalive=self)
        if self.graph_json is None or name not in self._FACTORY_FUNCTIONS:
            return None
        if name == "default":
            return PyFunc(self._create_executor, "default")
        if name == "get_graph_json":
            return PyFunc(lambda: self.graph_json, name)
        return PyFunc(lambda: {k: array(v) for k, v in self.params.items()}, name)

    def _create_executor(self, dev: Device) -> Module:
        from xtvm.runtime import graph_executor  # the executor is built on modules

        return graph_executor.create(self.graph_json, self, dev)

    def export_library(self, path: str | os.PathLike[str]) -> None:
        if self._imports:
            raise XTVMError(
                "export_library: this module imports other modules, which cannot be "
                "linked into one library; export each module separately"
            )
        target = os.fspath(path)
        if self._exporter is not None:
            self._exporter(target)
        elif self._path is not None:
            if not os.path.exists(target) or not os.path.samefile(self._path, target):
                shutil.copyfile(self._path, target)
        else:
            raise XTVMError(f"a module of type '{self.type_key}' has no way to be exported")


def _check_digest(lib: ctypes.CDLL, blob: ctypes.Array, name: str) -> None:
    """Compare the metadata with the SHA-256 the compiler stored beside it
    (``__xtvm_metadata_sha256``; hand-made libraries have none)."""
    try:
        stored = (ctypes.c_char * 64).in_dll(lib, "__xtvm_metadata_sha256").raw
    except ValueError:
        return
    if hashlib.sha256(bytes(blob)).hexdigest().encode() != stored:
        raise XTVMError(
            f"'{name}': its metadata is damaged (the SHA-256 stored in the library does not "
            "match); rebuild the library"
        )


def load_module(path: str | os.PathLike[str], fmt: str = "") -> NativeModule:
    """Load a shared library written by `export_library` (TVM's `tvm.runtime.load_module`).

    `fmt` is accepted for TVM compatibility; only shared libraries are
    supported. A missing, truncated or foreign file, or a library without
    xtvm metadata, is an XTVMError (checked before the loader maps it).
    Loading a library runs its code: load only libraries you trust.
    """
    name = os.fspath(path)
    if fmt not in ("", "so"):
        raise XTVMError(f"load_module: unsupported format '{fmt}'; xtvm loads shared libraries")
    if not os.path.isfile(name):
        raise XTVMError(f"cannot load module '{name}': no such file")
    check_shared_library(name)  # truncated or foreign files never reach dlopen
    try:
        keep_heap_pages()  # its kernels' large buffers
        with threads.starting_openmp():  # the library may link libgomp
            lib = ctypes.CDLL(os.path.abspath(name))
    except OSError as err:
        raise XTVMError(f"cannot load module '{name}': not a shared library ({err})") from None
    try:
        size = ctypes.c_uint64.in_dll(lib, "__xtvm_metadata_size").value
        start = ctypes.addressof(ctypes.c_uint8.in_dll(lib, "__xtvm_metadata"))
    except ValueError:
        raise XTVMError(
            f"'{name}' is not an xtvm library: it has no __xtvm_metadata symbol"
        ) from None

    def resolve(symbol: str) -> int | None:
        try:
            return ctypes.cast(lib[symbol], ctypes.c_void_p).value
        except AttributeError:
            return None

    blob = (ctypes.c_uint8 * size).from_address(start)
    _check_digest(lib, blob, name)
    try:
        if is_header(blob):
            header = unpack_header(blob)
            params = params_at(header, resolve, lib)
        else:
            header, params = unpack_metadata(blob)
    except XTVMError as err:
        raise XTVMError(f"'{name}': {err}") from None

    return NativeModule("library", resolve, header, params, lib, path=os.path.abspath(name))
