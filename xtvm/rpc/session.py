"""One RPC session, served in its own process: the remote objects and the requests on them.

A `Session` answers one client's requests until the client closes, stops
talking (idle timeout), runs out of time (session timeout) or breaks the
protocol. It holds the client's remote objects (modules, functions, arrays)
in a table of integer handles; the client refers to them by handle and
releases them by listing handles in any request's ``"release"`` field.

Requests (header ``type``, its fields; the reply):

| request | fields | reply |
|---|---|---|
| ``ping`` | | ``pong`` |
| ``upload`` | ``name``, ``offset``, ``size``; one blob (a chunk) | ``ok`` |
| ``load_module`` | ``name`` (an uploaded file) | ``result``: a module |
| ``get_function`` | ``module`` (handle, or null: the global registry), ``name``, ``query_imports`` | ``result``: a function |
| ``function_names`` | ``module`` | ``result``: a list of names |
| ``call`` | ``func``, ``args`` (encoded values) | ``result``: the encoded return value |
| ``array`` | ``value`` (a tensor), ``device`` | ``result``: an array |
| ``empty`` | ``shape``, ``dtype``, ``device`` | ``result``: an array |
| ``numpy`` | ``array`` | ``result``: a tensor |
| ``copyfrom`` | ``array``, ``value`` (a tensor) | ``ok`` |
| ``time_evaluator`` | ``module``, ``name``, ``device``, ``number``, ``repeat``, ``min_repeat_ms``, ``cooldown_interval_ms`` | ``result``: a function returning a benchmark |
| ``close`` | | ``bye`` |

A request the runtime refuses (a wrong shape, a missing function, a name
that is not an uploaded file) gets an ``error`` reply and the session goes
on; a malformed request ends it. Only the runtime is imported: a server
runs compiled artifacts without the compiler.
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from xtvm.rpc.protocol import (
    Limits,
    Message,
    ProtocolError,
    RPCError,
    decode_value,
    encode_value,
    error_header,
    field_of,
    handle_of,
    recv_message,
    send_message,
    tensor_from,
    tensor_header,
)
from xtvm.runtime.base import XTVMError
from xtvm.runtime.module import Module, load_module
from xtvm.runtime.ndarray import Device, NDArray, array, empty
from xtvm.runtime.packed_func import PackedFunc, PyFunc, get_global_func
from xtvm.runtime.profiling import BenchmarkResult
from xtvm.runtime.threads import get_num_threads, set_num_threads

FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
"""What an uploaded file may be called: a plain name, no directory, no leading dot."""

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
"""The clocks ``time_evaluator`` may time with: the wall clock, or the serving thread's
CPU time (a single-threaded kernel's own time on a loaded machine)."""

MAX_HANDLES = 100_000
"""How many remote objects one session may hold at once."""


def create_vm(lib: Module, dev: Device) -> Module:
    """A `VirtualMachine` over a library compiled with ``executor="vm"`` (the
    local ``VirtualMachine(lib, dev)``, as a function a client can call)."""
    from xtvm.runtime.vm import VirtualMachine

    return VirtualMachine(lib, dev)


SESSION_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "runtime.vm.VirtualMachine": create_vm,
    "runtime.set_num_threads": set_num_threads,
    "runtime.get_num_threads": get_num_threads,
}
"""Global functions every session offers besides the runtime's registry
(``remote.get_function(name)``)."""


class SessionEnd(Exception):
    """The session is over (the client closed it); not an error."""


def check_file_name(name: Any) -> str:
    if not isinstance(name, str) or not FILE_NAME.fullmatch(name) or ".." in name:
        raise RPCError(
            f"file name {name!r:.60} is not allowed: use a plain name of letters, digits, "
            "'.', '_' and '-' (no directory, no leading dot, at most 128 characters)"
        )
    return name


class Session:
    """The server side of one connected, authenticated client (see the module docstring)."""

    def __init__(
        self,
        sock: socket.socket,
        workdir: str,
        limits: Limits,
        idle_timeout: float,
        deadline: float,
    ):
        self.sock = sock
        self.workdir = workdir
        self.limits = limits
        self.idle_timeout = idle_timeout
        self.deadline = deadline
        self._objects: dict[int, Any] = {}
        self._next_handle = 1
        self._uploaded_bytes = 0
        self._loads = 0
        self._uploads: dict[str, tuple[BinaryIO, int, int]] = {}  # name -> (file, size, written)
        self._handlers: dict[
            str, Callable[[Message], dict[str, Any] | tuple[dict[str, Any], list]]
        ] = {
            "ping": lambda m: {"type": "pong"},
            "upload": self._upload,
            "load_module": self._load_module,
            "get_function": self._get_function,
            "function_names": self._function_names,
            "call": self._call,
            "array": self._array,
            "empty": self._empty,
            "numpy": self._numpy,
            "copyfrom": self._copyfrom,
            "time_evaluator": self._time_evaluator,
            "close": self._close,
        }

    # --- the loop ---------------------------------------------------------------------

    def serve(self) -> None:
        """Answer requests until the session ends; a `ProtocolError` or ``TimeoutError``
        (sent to the client as a fatal error when possible) ends it too."""
        try:
            while True:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the session ran past its time limit")
                self.sock.settimeout(min(self.idle_timeout, remaining))
                try:
                    message = recv_message(self.sock, self.limits)
                except TimeoutError:
                    if self.deadline - time.monotonic() <= 0:
                        raise TimeoutError("the session ran past its time limit") from None
                    raise TimeoutError(
                        f"the client sent nothing for {self.idle_timeout:g} s (idle timeout)"
                    ) from None
                self.sock.settimeout(None)
                try:
                    reply = self._answer(message)
                except SessionEnd:
                    send_message(self.sock, {"type": "bye"})
                    return
                header, blobs = reply if isinstance(reply, tuple) else (reply, [])
                send_message(self.sock, header, blobs)
        except (ProtocolError, TimeoutError) as err:
            self._send_fatal(str(err))
            raise
        finally:
            for file, _, _ in self._uploads.values():
                file.close()
            self._objects.clear()

    def _send_fatal(self, message: str) -> None:
        try:
            self.sock.settimeout(2.0)
            send_message(self.sock, error_header(f"session ended: {message}", fatal=True))
        except OSError:
            pass

    def _answer(self, message: Message) -> dict[str, Any] | tuple[dict[str, Any], list]:
        release = message.header.get("release", [])
        if not (isinstance(release, list) and all(isinstance(h, int) for h in release)):
            raise ProtocolError("'release' must be a list of handles")
        for handle in release:
            self._objects.pop(handle, None)
        handler = self._handlers.get(message.type)
        if handler is None:
            raise ProtocolError(
                f"unknown request '{message.type:.40}'; known: {', '.join(self._handlers)}"
            )
        try:
            return handler(message)
        except (ProtocolError, SessionEnd):
            raise
        except XTVMError as err:
            return error_header(str(err))
        except Exception as err:  # noqa: BLE001 - remote code's error, reported to its caller
            return error_header(f"{type(err).__name__}: {err}")

    # --- handles and values -------------------------------------------------------------

    def _store(self, value: Any) -> int:
        if len(self._objects) >= MAX_HANDLES:
            raise RPCError(f"the session holds {MAX_HANDLES} remote objects: release some first")
        handle = self._next_handle
        self._next_handle += 1
        self._objects[handle] = value
        return handle

    def _get(self, handle: Any, kind: type | tuple[type, ...], what: str) -> Any:
        if not isinstance(handle, int) or isinstance(handle, bool):
            raise ProtocolError(f"{what}: a handle must be an integer, got {handle!r:.20}")
        value = self._objects.get(handle)
        if value is None:
            raise RPCError(f"{what}: no remote object with handle {handle} (released?)")
        if not isinstance(value, kind):
            raise RPCError(f"{what}: handle {handle} is a {type(value).__name__}")
        return value

    def _encode_other(self, value: Any) -> dict[str, Any]:
        if isinstance(value, NDArray):
            return {
                "t": "ndarray",
                "h": self._store(value),
                "shape": list(value.shape),
                "dtype": value.dtype,
                "device": _device_json(value.device),
            }
        if isinstance(value, Module):
            return {"t": "module", "h": self._store(value), "type_key": value.type_key}
        if isinstance(value, PackedFunc):
            return {"t": "func", "h": self._store(value), "name": value.name}
        if isinstance(value, Device):
            return _device_json(value)
        if isinstance(value, BenchmarkResult):
            return {"t": "benchmark", "results": list(value.results)}
        raise RPCError(f"a value of type {type(value).__name__} cannot be sent to the client")

    def _decode_other(self, value: dict[str, Any]) -> Any:
        tag = value["t"]
        kinds = {"ndarray": NDArray, "module": Module, "func": PackedFunc}
        if tag in kinds:
            return self._get(handle_of(value), kinds[tag], f"'{tag}' argument")
        if tag == "device":
            return _device_from(value)
        raise ProtocolError(f"unknown value tag '{tag:.40}'")

    def _result(self, value: Any) -> tuple[dict[str, Any], list]:
        blobs: list = []
        encoded = encode_value(value, blobs, self._encode_other)
        return {"type": "result", "value": encoded}, blobs

    def _decode(self, message: Message, name: str) -> Any:
        return decode_value(message.header.get(name), message.blobs, self._decode_other)

    # --- requests -----------------------------------------------------------------------

    def _upload(self, message: Message) -> dict[str, Any]:
        name = check_file_name(message.header.get("name"))
        offset = field_of(message, "offset", int)
        size = field_of(message, "size", int)
        if len(message.blobs) != 1:
            raise ProtocolError("'upload' carries one blob (a chunk of the file)")
        chunk = message.blobs[0]
        if offset == 0:
            if name in self._uploads:
                self._uploads.pop(name)[0].close()
            limit = self.limits.max_upload_bytes
            if size < 0 or self._uploaded_bytes + size > limit:
                raise RPCError(
                    f"upload '{name}': {size} bytes exceed what this session may still upload "
                    f"({limit - self._uploaded_bytes} of the server's limit of {limit} bytes, "
                    "--max-upload-bytes)"
                )
            self._uploaded_bytes += size
            # Written under a name no client can use, then renamed over the old file: a
            # library loaded from the old one keeps its own (still mapped) inode.
            file = open(self._partial(name), "wb")  # noqa: SIM115 - kept open across chunks
            self._uploads[name] = (file, size, 0)
        if name not in self._uploads:
            raise ProtocolError(f"upload '{name}': a chunk at offset {offset} without its start")
        file, declared, written = self._uploads[name]
        if offset != written or size != declared or written + len(chunk) > declared:
            self._uploads.pop(name)[0].close()
            raise ProtocolError(
                f"upload '{name}': chunk of {len(chunk)} bytes at offset {offset} does not "
                f"continue the {declared}-byte file at {written}"
            )
        file.write(chunk)
        written += len(chunk)
        self._uploads[name] = (file, declared, written)
        if written == declared:
            self._uploads.pop(name)[0].close()
            os.replace(self._partial(name), os.path.join(self.workdir, name))
        return {"type": "ok"}

    def _partial(self, name: str) -> str:
        return os.path.join(self.workdir, f".partial-{name}")

    def _uploaded_path(self, name: Any) -> str:
        name = check_file_name(name)
        path = os.path.join(self.workdir, name)
        if not os.path.isfile(path):
            raise RPCError(f"no uploaded file named '{name}' in this session (upload it first)")
        return path

    def _load_module(self, message: Message) -> tuple[dict[str, Any], list]:
        path = self._uploaded_path(message.header.get("name"))
        # dlopen returns the library already loaded from a path, even if the file was
        # replaced since: load through a fresh hard link, so a re-uploaded library is
        # loaded anew (the same file, same inode, still loads once).
        self._loads += 1
        link = os.path.join(self.workdir, f".load-{self._loads}-{os.path.basename(path)}")
        os.link(path, link)
        try:
            module = load_module(link)
        except XTVMError as err:  # name the file as the client knows it
            raise RPCError(str(err).replace(link, os.path.basename(path))) from None
        return self._result(module)

    def _get_function(self, message: Message) -> tuple[dict[str, Any], list]:
        name = field_of(message, "name", str)
        module = message.header.get("module")
        if module is None:
            local = SESSION_FUNCTIONS.get(name)
            return self._result(PyFunc(local, name) if local else get_global_func(name))
        query = bool(message.header.get("query_imports", False))
        return self._result(self._get(module, Module, "get_function").get_function(name, query))

    def _function_names(self, message: Message) -> tuple[dict[str, Any], list]:
        module = self._get(message.header.get("module"), Module, "function_names")
        return self._result(module.function_names())

    def _call(self, message: Message) -> tuple[dict[str, Any], list]:
        func = self._get(message.header.get("func"), PackedFunc, "call")
        args = self._decode(message, "args")
        if not isinstance(args, list):
            raise ProtocolError("'call' message: 'args' must be an encoded list")
        return self._result(func(*args))

    def _array(self, message: Message) -> tuple[dict[str, Any], list]:
        value = tensor_from(message.header.get("value") or {}, message.blobs)
        return self._result(array(value, _device_from(message.header.get("device"))))

    def _empty(self, message: Message) -> tuple[dict[str, Any], list]:
        shape = field_of(message, "shape", list)
        dtype = field_of(message, "dtype", str)
        return self._result(empty(shape, dtype, _device_from(message.header.get("device"))))

    def _numpy(self, message: Message) -> tuple[dict[str, Any], list]:
        source = self._get(message.header.get("array"), NDArray, "numpy")
        blobs: list = []
        return {"type": "result", "value": tensor_header(source.view(), blobs)}, blobs

    def _copyfrom(self, message: Message) -> dict[str, Any]:
        target = self._get(message.header.get("array"), NDArray, "copyfrom")
        target.copyfrom(tensor_from(message.header.get("value") or {}, message.blobs))
        return {"type": "ok"}

    def _time_evaluator(self, message: Message) -> tuple[dict[str, Any], list]:
        module = self._get(message.header.get("module"), Module, "time_evaluator")
        name = field_of(message, "name", str)
        dev = _device_from(message.header.get("device"))
        numbers = {
            key: field_of(message, key, (int, float))
            for key in ("number", "repeat", "min_repeat_ms", "cooldown_interval_ms")
        }
        clock = message.header.get("clock", "wall")
        if clock not in CLOCKS:
            raise RPCError(
                f"time_evaluator: clock must be one of {', '.join(CLOCKS)}, got {clock!r:.20}"
            )
        evaluate = module.time_evaluator(
            name,
            dev,
            number=int(numbers["number"]),
            repeat=int(numbers["repeat"]),
            min_repeat_ms=numbers["min_repeat_ms"],
            cooldown_interval_ms=numbers["cooldown_interval_ms"],
            clock=CLOCKS[clock],
        )
        return self._result(_Evaluator(evaluate, f"time_evaluator({name})"))

    def _close(self, message: Message) -> dict[str, Any]:
        raise SessionEnd


class _Evaluator(PackedFunc):
    """The function `Module.time_evaluator` returns, as a PackedFunc whose result (a
    `BenchmarkResult`) goes back to the client as is."""

    def __init__(self, evaluate: Callable[..., BenchmarkResult], name: str):
        self._evaluate = evaluate
        self.name = name

    def __call__(self, *args: Any) -> BenchmarkResult:
        return self._evaluate(*args)


def _device_json(dev: Device) -> dict[str, Any]:
    return {"t": "device", "type": dev.device_type, "id": dev.device_id}


def _device_from(value: Any) -> Device:
    if not (
        isinstance(value, dict)
        and isinstance(value.get("type"), int)
        and isinstance(value.get("id"), int)
    ):
        raise ProtocolError(f"a device must be {{'type': int, 'id': int}}, got {value!r:.60}")
    return Device(value["type"], value["id"])
