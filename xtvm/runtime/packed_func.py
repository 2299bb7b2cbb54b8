"""PackedFunc: the runtime's one calling convention, and the global function registry.

A `PackedFunc` is a type-erased callable. Its arguments and return values
are ints, floats, strings, None, NDArrays, Modules, PackedFuncs and lists,
tuples and dicts of those (TVM's Array and Map). There are two kinds:

* `PyFunc` wraps a Python callable (Python callables among its arguments or
  results become `PyFunc`s; NumPy arrays pass through unchanged);
* `KernelFunc` wraps a compiled kernel, a native function
  `int32 f(void** args, int32 num_args)` taking DLTensor pointers
  (docs/abi.md). It accepts NDArrays, NumPy arrays (copied into an aligned
  NDArray for the call and copied back afterwards, so they may be outputs)
  and None (a NULL tensor, which the kernel rejects). A nonzero return code
  becomes an `XTVMError` that names the function, the argument, and the
  expected and given shape and dtype, taken from the kernel's signature in
  the module's metadata. The kernel's own checks are the only tensor checks:
  the Python side only rejects values that are not tensors at all.

    >>> add = module["add"]                       # a KernelFunc
    >>> add(a, b, c)                              # c = a + b
    >>> run = add.bind([a, b, c]); run()          # no per-call conversion

The registry maps names to PackedFuncs process-wide (`register_func`,
`get_global_func`, `list_global_func_names`, `remove_global_func`).
"""

from __future__ import annotations

import ctypes
import difflib
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from xtvm.runtime.base import Object, XTVMError
from xtvm.runtime.ndarray import Device, NDArray, array

KERNEL_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32)
"""The ctypes prototype of a packed kernel entry point."""

# Return-code kinds of docs/abi.md.
_WRONG_ARG_COUNT, _NULL, _NDIM, _DTYPE, _SHAPE, _STRIDES, _ASSERT = range(1, 8)
_MISMATCH = {_NDIM: "ndim mismatch", _DTYPE: "dtype mismatch", _SHAPE: "shape mismatch"}


class PackedFunc(Object):
    """A type-erased callable (TVM's `tvm.runtime.PackedFunc`); see the subclasses."""

    name: str

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


_VALUE_TYPES = (int, float, str, bytes, np.generic, np.ndarray, NDArray, Device, Object)
_CONTAINER_TYPES = (list, tuple, dict)


def _to_value(value: Any, what: str) -> Any:
    """`value` as a PackedFunc argument or result: callables become PyFuncs."""
    if value is None or isinstance(value, _VALUE_TYPES + _CONTAINER_TYPES):
        return value
    if callable(value):
        return PyFunc(value)
    raise XTVMError(f"{what}: unsupported type {type(value).__name__}")


class PyFunc(PackedFunc):
    """A PackedFunc backed by a Python callable."""

    def __init__(self, fn: Callable[..., Any], name: str | None = None):
        if not callable(fn):
            raise XTVMError(f"PyFunc wraps a callable, got {type(fn).__name__}")
        self._fn = fn
        self.name = name or getattr(fn, "__name__", "<python function>")

    def __call__(self, *args: Any) -> Any:
        converted = [_to_value(a, f"{self.name}: argument #{i}") for i, a in enumerate(args)]
        return _to_value(self._fn(*converted), f"{self.name}: return value")


def _format_shape(dims: Sequence[int | None]) -> str:
    parts = ["?" if d is None or d < 0 else str(d) for d in dims]
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


class KernelFunc(PackedFunc):
    """A PackedFunc backed by a native packed kernel at `address`.

    `signature` is the function's metadata entry, `{"args": [{"name",
    "shape", "dtype"}, ...], "asserts": [...]}`; `keepalive` is whatever keeps
    the code mapped (a CDLL, a JIT engine) and is held as long as this is.
    """

    def __init__(self, name: str, address: int, signature: dict[str, Any], keepalive: Any = None):
        if not address:
            raise XTVMError(f"kernel '{name}' has a NULL address")
        self.name = name
        self.address = address
        self.args: list[dict[str, Any]] = list(signature.get("args", []))
        self.asserts: list[str] = list(signature.get("asserts", []))
        self.shape_vars: dict[str, list[list[int]]] = dict(signature.get("shape_vars", {}))
        """Dynamic axes: shape variable -> its [argument, axis] pairs (the first binds it)."""
        self._cfunc = KERNEL_TYPE(address)
        self._keepalive = keepalive
        self._last: tuple[list[weakref.ref[NDArray]], Any] | None = None

    def __call__(self, *args: Any) -> None:
        last = self._last
        if last is not None and len(last[0]) == len(args):
            refs, argv = last
            if all(ref() is a for ref, a in zip(refs, args)):
                self._check(self._cfunc(argv, len(args)), args)
                return None
        tensors = [self._as_tensor(a, i) for i, a in enumerate(args)]
        argv = (ctypes.c_void_p * max(len(args), 1))(
            *[None if t is None else t._address for t in tensors]
        )
        self._check(self._cfunc(argv, len(args)), tensors)
        copied = False
        for value, tensor in zip(args, tensors):
            if isinstance(value, np.ndarray):
                copied = True
                if value.flags.writeable:
                    np.copyto(value, tensor.view())
        if not copied and None not in tensors:
            self._last = ([weakref.ref(t) for t in tensors], argv)
        return None

    def bind(self, args: Sequence[NDArray | None]) -> Callable[[], None]:
        """A no-argument callable running this kernel on `args` (the fast path).

        The DLTensor pointer array is built once; each call is one native call
        plus a return-code test. The callable keeps `args` alive.
        """
        if any(isinstance(a, np.ndarray) for a in args):
            raise XTVMError(f"{self.name}: bind() takes NDArrays, not NumPy arrays")
        tensors = [self._as_tensor(a, i) for i, a in enumerate(args)]
        n = len(tensors)
        argv = (ctypes.c_void_p * max(n, 1))(*[None if t is None else t._address for t in tensors])
        cfunc, check = self._cfunc, self._check

        def call() -> None:
            rc = cfunc(argv, n)
            if rc:
                check(rc, tensors)

        return call

    def _arg_label(self, index: int) -> str:
        if index < len(self.args):
            return f"argument '{self.args[index].get('name', index)}' (#{index})"
        return f"argument #{index}"

    def _as_tensor(self, value: Any, index: int) -> NDArray | None:
        if value is None or isinstance(value, NDArray):
            return value
        if isinstance(value, np.ndarray):
            return array(value)
        raise XTVMError(
            f"{self.name}: {self._arg_label(index)}: expected an NDArray, "
            f"got {type(value).__name__}"
        )

    def _check(self, rc: int, tensors: Sequence[NDArray | None]) -> None:
        if rc:
            raise self.error(rc, tensors)

    def error(self, rc: int, tensors: Sequence[NDArray | None]) -> XTVMError:
        """The XTVMError for return code `rc` of a call on `tensors`."""
        kind, index = (rc >> 16) & 0xFFFF, rc & 0xFFFF
        if kind == _WRONG_ARG_COUNT:
            names = ", ".join(str(a.get("name", i)) for i, a in enumerate(self.args))
            return XTVMError(
                f"{self.name}: expected {len(self.args)} arguments ({names}), got {index}"
            )
        if kind == _ASSERT:
            if index < len(self.asserts):
                return XTVMError(f"{self.name}: assertion failed: {self.asserts[index]}")
            return XTVMError(f"{self.name}: assertion #{index} failed")
        if kind not in (_NULL, *_MISMATCH, _STRIDES):
            return XTVMError(f"{self.name}: kernel failed with unknown error code {rc:#x}")
        label = f"{self.name}: {self._arg_label(index)}"
        if kind == _NULL:
            return XTVMError(f"{label}: NULL tensor or NULL data pointer")
        if kind == _STRIDES:
            return XTVMError(f"{label}: strides must be NULL or compact row-major")
        given = tensors[index] if index < len(tensors) else None
        got = "NULL" if given is None else f"{_format_shape(given.shape)} {given.dtype}"
        if index < len(self.args):
            spec = self.args[index]
            expected = f"{_format_shape(spec.get('shape', []))} {spec.get('dtype', '?')}"
        else:
            expected = "?"
        detail = self._shape_detail(index, tensors) if kind == _SHAPE and given is not None else ""
        return XTVMError(
            f"{label}: expected shape {expected}, got {got} ({_MISMATCH[kind]}){detail}"
        )

    def _shape_detail(self, index: int, tensors: Sequence[NDArray | None]) -> str:
        """Which axis of argument `index` is wrong, when the kernel has shape
        variables: a static extent, or a variable another argument bound."""
        if not self.shape_vars or index >= len(self.args):
            return ""
        given = tensors[index]
        assert given is not None
        for k, (want, got) in enumerate(zip(self.args[index].get("shape", []), given.shape)):
            if want >= 0:
                if want != got:
                    return f": axis {k} must be {want}, got {got}"
                continue
            for name, axes in self.shape_vars.items():
                if [index, k] not in axes:
                    continue
                a, b = min(tuple(p) for p in axes)  # the first in argument order binds it
                t = tensors[a] if a < len(tensors) else None
                bound = (
                    t.shape[b]
                    if (a, b) < (index, k) and t is not None and b < len(t.shape)
                    else got
                )
                if bound != got:
                    return (
                        f": axis {k} is the shape variable {name} = {bound} "
                        f"(from {self._arg_label(a)} axis {b}), got {got}"
                    )
        return ""


_REGISTRY: dict[str, PackedFunc] = {}

F = TypeVar("F", bound=Callable[..., Any])


def register_func(name: str, f: Callable[..., Any] | None = None, override: bool = False) -> Any:
    """Register `f` as global function `name`; without `f`, a decorator.

        @register_func("my.add")
        def add(a, b): return a + b

    A name already registered is an error unless `override` is set.
    """
    if not isinstance(name, str) or not name:
        raise XTVMError(f"register_func: the name must be a non-empty string, got {name!r}")

    def register(fn: F) -> F:
        if name in _REGISTRY and not override:
            raise XTVMError(f"global function '{name}' is already registered (use override=True)")
        _REGISTRY[name] = fn if isinstance(fn, PackedFunc) else PyFunc(fn, name)
        return fn

    return register if f is None else register(f)


def get_global_func(name: str, allow_missing: bool = False) -> PackedFunc | None:
    """The global function `name`; None if missing and `allow_missing`, else an XTVMError."""
    func = _REGISTRY.get(name)
    if func is None and not allow_missing:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise XTVMError(f"no global function named '{name}'{hint}")
    return func


def list_global_func_names() -> list[str]:
    """The names of all registered global functions, sorted."""
    return sorted(_REGISTRY)


def remove_global_func(name: str) -> None:
    """Unregister the global function `name` (an XTVMError if it is not registered)."""
    if _REGISTRY.pop(name, None) is None:
        raise XTVMError(f"no global function named '{name}'")
