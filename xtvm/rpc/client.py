"""The RPC client: a remote session used like the local runtime (TVM's ``tvm.rpc``).

    remote = xtvm.rpc.connect("127.0.0.1", 9090, key="x86-avx512", token=token)
    remote.upload("mlp.so")
    factory = remote.load_module("mlp.so")
    dev = remote.cpu(0)
    gmod = factory["default"](dev)
    gmod["set_input"]("data", x)                      # NumPy arrays travel by value
    gmod["run"]()
    out = gmod["get_output"](0).numpy()
    timer = gmod.module.time_evaluator("run", dev, number=10, repeat=3)
    print(timer().mean)

Remote modules, functions and arrays are handles to objects living in the
server's session process; `xtvm.nd.array(x, remote.cpu(0))` makes an array
there. An argument is sent by value when it is local (a NumPy array, an
NDArray, a number, a string, a list...) and by handle when it is remote.
When a remote object is garbage-collected here, its handle is released with
the next request. A session serves one request at a time; share it between
threads only under your own lock.

Errors: what the remote code raises comes back as an `RPCError` with the
remote message, and the session goes on; a crash of the remote code, a
time limit or a broken connection ends the session (`RPCError` saying why),
after which every call is an error.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from typing import Any, Self

import numpy as np

from xtvm.rpc.protocol import (
    CLIENT_LIMITS,
    Limits,
    Message,
    ProtocolError,
    RPCError,
    RPCTimeout,
    decode_value,
    encode_value,
    expect,
    handle_of,
    open_handshake,
    recv_message,
    send_message,
    tensor_from,
    tensor_header,
)
from xtvm.runtime.ndarray import K_DL_CPU, Device, NDArray
from xtvm.runtime.ndarray import device as local_device
from xtvm.runtime.profiling import BenchmarkResult

UPLOAD_CHUNK = 4 << 20
"""Bytes per upload frame."""


class RPCSession:
    """A connected, authenticated session with a server (TVM's ``RPCSession``); see `connect`."""

    def __init__(self, sock: socket.socket, address: str, welcome: Message, timeout: float | None):
        self._sock = sock
        self._lock = threading.Lock()
        self._released: list[int] = []
        self._closed_because: str | None = None
        self._pending_blobs: list = []
        self.address = address
        self.timeout = timeout
        limits = welcome.header.get("limits") or {}
        self.limits = Limits(
            **{k: int(v) for k, v in limits.items() if k in Limits.__annotations__}
        )
        """What the server accepts (frame and upload sizes)."""

    # --- requests -----------------------------------------------------------------------

    def _request(self, header: dict[str, Any], blobs: Sequence[Any] = (), *replies: str) -> Message:
        """Send one request, return its reply (of a type in ``replies``, default ``result``)."""
        with self._lock:
            if self._closed_because is not None:
                raise RPCError(f"the session with {self.address} has ended: {self._closed_because}")
            if self._released:
                header = {**header, "release": self._released}
                self._released = []
            try:
                self._sock.settimeout(self.timeout)
                send_message(self._sock, header, blobs)
                reply = recv_message(self._sock, CLIENT_LIMITS)
            except TimeoutError:
                self._end(f"no answer to '{header['type']}' within {self.timeout} s")
                raise RPCTimeout(
                    f"the server at {self.address} did not answer '{header['type']}' "
                    f"within {self.timeout} s; the session is closed"
                ) from None
            except (OSError, ProtocolError) as err:
                self._end(f"connection lost ({err})")
                raise RPCError(
                    f"the connection to {self.address} broke during '{header['type']}': {err}"
                ) from None
            if reply.type == "error" and reply.header.get("fatal"):
                self._end(str(reply.header.get("message")))
            return expect(reply, *(replies or ("result",)))

    def _end(self, why: str) -> None:
        self._closed_because = why
        try:
            self._sock.close()
        except OSError:
            pass

    def _result(self, header: dict[str, Any], blobs: Sequence[Any] = ()) -> Any:
        reply = self._request(header, blobs)
        return decode_value(reply.header.get("value"), reply.blobs, self._decode_other)

    def _encode_other(self, value: Any) -> dict[str, Any]:
        if isinstance(value, RemoteObject):
            if value._session is not self:
                raise RPCError(f"{value!r} belongs to another session")
            return {"t": value.TAG, "h": value._handle}
        if isinstance(value, NDArray):  # a packed (sub-byte) array travels unpacked
            return tensor_header(value.view(), self._pending_blobs)
        if isinstance(value, (RemoteDevice, Device)):
            return {"t": "device", "type": value.device_type, "id": value.device_id}
        if callable(value):
            raise RPCError("a local Python function cannot be passed to a remote call")
        raise RPCError(f"a value of type {type(value).__name__} cannot be sent to the server")

    def _encode(self, value: Any, blobs: list) -> dict[str, Any]:
        self._pending_blobs = blobs
        try:
            return encode_value(value, blobs, self._encode_other)
        finally:
            self._pending_blobs = []

    def _decode_other(self, value: dict[str, Any]) -> Any:
        tag = value["t"]
        if tag == "ndarray":
            shape, dtype = value.get("shape"), value.get("dtype")
            if not isinstance(shape, list) or not isinstance(dtype, str):
                raise ProtocolError("an 'ndarray' value needs 'shape' and 'dtype'")
            dev = self._device_of(value.get("device") or {"type": K_DL_CPU, "id": 0})
            return RemoteNDArray(self, handle_of(value), tuple(shape), dtype, dev)
        if tag == "module":
            return RemoteModule(self, handle_of(value), str(value.get("type_key", "module")))
        if tag == "func":
            return RemoteFunc(self, handle_of(value), str(value.get("name", "function")))
        if tag == "device":
            return self._device_of(value)
        if tag == "benchmark":
            results = value.get("results")
            if not (
                isinstance(results, list)
                and results
                and all(isinstance(r, (int, float)) for r in results)
            ):
                raise ProtocolError("a 'benchmark' value needs a non-empty list of 'results'")
            return BenchmarkResult([float(r) for r in results])
        raise ProtocolError(f"unknown value tag '{tag:.40}' from the server")

    def _device_of(self, value: dict[str, Any]) -> RemoteDevice:
        if not isinstance(value.get("type"), int) or not isinstance(value.get("id"), int):
            raise ProtocolError(f"malformed device {value!r:.60}")
        return RemoteDevice(self, value["type"], value["id"])

    def _release(self, handle: int) -> None:
        self._released.append(handle)  # list.append is atomic: safe from __del__

    # --- the API --------------------------------------------------------------------------

    def upload(self, path: str | os.PathLike[str], target: str | None = None) -> str:
        """Copy the file at ``path`` into the session's directory as ``target`` (default:
        its base name); the name it has there."""
        name = target or os.path.basename(os.fspath(path))
        size = os.path.getsize(path)
        chunk_size = max(1, min(UPLOAD_CHUNK, self.limits.max_frame_bytes - 4096))
        with open(path, "rb") as file:
            offset = 0
            while True:
                chunk = file.read(chunk_size)
                if len(chunk) != min(chunk_size, size - offset):
                    raise RPCError(f"upload: '{path}' changed while it was being sent")
                header = {"type": "upload", "name": name, "offset": offset, "size": size}
                self._request(header, [chunk], "ok")
                offset += len(chunk)
                if offset >= size:
                    return name

    def load_module(self, name: str) -> RemoteModule:
        """Load an uploaded shared library (TVM's ``remote.load_module``)."""
        module = self._result({"type": "load_module", "name": name})
        assert isinstance(module, RemoteModule)
        return module

    def get_function(self, name: str) -> RemoteFunc:
        """The server's global function ``name`` (its runtime's registry)."""
        return self._result({"type": "get_function", "module": None, "name": name})

    def cpu(self, dev_id: int = 0) -> RemoteDevice:
        """The server's CPU."""
        return RemoteDevice(self, K_DL_CPU, dev_id)

    def device(self, dev_type: str | int, dev_id: int = 0) -> RemoteDevice:
        """A device of the server, by name or DLPack type code (as `xtvm.device`)."""
        dev = local_device(dev_type, dev_id)
        return RemoteDevice(self, dev.device_type, dev.device_id)

    def array(self, source: Any, dev: RemoteDevice | None = None) -> RemoteNDArray:
        """A remote array holding a copy of ``source`` (also `xtvm.nd.array(x, remote.cpu(0))`)."""
        dev = dev or self.cpu(0)
        local = (
            source.numpy() if isinstance(source, (NDArray, RemoteNDArray)) else np.asarray(source)
        )
        blobs: list = []
        value = tensor_header(local, blobs)
        header = {"type": "array", "value": value, "device": _device_json(dev)}
        return self._result(header, blobs)

    def empty(
        self, shape: Sequence[int], dtype: str = "float32", dev: RemoteDevice | None = None
    ) -> RemoteNDArray:
        """An uninitialised remote array (also `xtvm.nd.empty(shape, dtype, remote.cpu(0))`)."""
        dev = dev or self.cpu(0)
        header = {
            "type": "empty",
            "shape": [int(d) for d in shape],
            "dtype": str(np.dtype(dtype)),
            "device": _device_json(dev),
        }
        return self._result(header)

    def ping(self) -> None:
        self._request({"type": "ping"}, (), "pong")

    @property
    def closed(self) -> bool:
        return self._closed_because is not None

    def close(self) -> None:
        """End the session (the server removes its directory and objects)."""
        if self._closed_because is None:
            try:
                self._request({"type": "close"}, (), "bye")
            except RPCError:
                pass
            self._end("closed by this client")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_closed_because", "") is None:
            self._end("garbage-collected")

    def __repr__(self) -> str:
        state = "open" if self._closed_because is None else "closed"
        return f"<RPCSession {self.address} {state}>"


def _device_json(dev: RemoteDevice | Device) -> dict[str, Any]:
    return {"t": "device", "type": dev.device_type, "id": dev.device_id}


class RemoteDevice:
    """A device of a remote session: ``remote.cpu(0)``. Pass it where a `Device` goes
    (``factory["default"](dev)``, ``time_evaluator(name, dev)``, `xtvm.nd.array`)."""

    def __init__(self, session: RPCSession, device_type: int, device_id: int):
        self._session = session
        self.device_type = device_type
        self.device_id = device_id

    def remote_array(self, source: Any) -> RemoteNDArray:
        """The hook `xtvm.nd.array(source, dev)` calls for a remote device."""
        return self._session.array(source, self)

    def remote_empty(self, shape: Sequence[int], dtype: str) -> RemoteNDArray:
        """The hook `xtvm.nd.empty(shape, dtype, dev)` calls for a remote device."""
        return self._session.empty(shape, dtype, self)

    def sync(self) -> None:
        """Remote calls are synchronous: nothing to wait for."""

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RemoteDevice)
            and other._session is self._session
            and (other.device_type, other.device_id) == (self.device_type, self.device_id)
        )

    def __hash__(self) -> int:
        return hash((id(self._session), self.device_type, self.device_id))

    def __repr__(self) -> str:
        return f"remote {Device(self.device_type, self.device_id)} at {self._session.address}"


class RemoteObject:
    """A handle to an object of a remote session; released when collected here."""

    TAG = ""

    def __init__(self, session: RPCSession, handle: int):
        self._session = session
        self._handle = handle

    def __del__(self) -> None:
        session = getattr(self, "_session", None)
        if session is not None and not session.closed:
            session._release(self._handle)


class RemoteFunc(RemoteObject):
    """A remote PackedFunc: calling it runs it in the session and returns its result."""

    TAG = "func"

    def __init__(self, session: RPCSession, handle: int, name: str):
        super().__init__(session, handle)
        self.name = name

    def __call__(self, *args: Any) -> Any:
        blobs: list = []
        encoded = self._session._encode(list(args), blobs)
        return self._session._result({"type": "call", "func": self._handle, "args": encoded}, blobs)

    def __repr__(self) -> str:
        return f"<RemoteFunc {self.name}>"


class RemoteModule(RemoteObject):
    """A remote runtime Module (a loaded library, a graph executor, ...)."""

    TAG = "module"

    def __init__(self, session: RPCSession, handle: int, type_key: str):
        super().__init__(session, handle)
        self.type_key = type_key

    def get_function(self, name: str, query_imports: bool = False) -> RemoteFunc:
        return self._session._result(
            {
                "type": "get_function",
                "module": self._handle,
                "name": name,
                "query_imports": query_imports,
            }
        )

    def __getitem__(self, name: str) -> RemoteFunc:
        return self.get_function(name)

    def function_names(self) -> list[str]:
        return self._session._result({"type": "function_names", "module": self._handle})

    @property
    def module(self) -> RemoteModule:
        """This module (as a graph executor's ``.module``, for ``time_evaluator``)."""
        return self

    def time_evaluator(
        self,
        func_name: str,
        dev: RemoteDevice | Device,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: float = 0,
        cooldown_interval_ms: float = 0,
        *,
        clock: str = "wall",
    ) -> RemoteFunc:
        """A remote function that times ``func_name`` on its arguments in the session
        (the local `Module.time_evaluator`, run there); it returns a `BenchmarkResult`.
        ``clock="cpu"`` times the serving thread's CPU time instead of the wall clock."""
        return self._session._result(
            {
                "type": "time_evaluator",
                "module": self._handle,
                "name": func_name,
                "device": _device_json(dev),
                "number": number,
                "repeat": repeat,
                "min_repeat_ms": min_repeat_ms,
                "cooldown_interval_ms": cooldown_interval_ms,
                "clock": clock,
            }
        )

    def __repr__(self) -> str:
        return f"<RemoteModule {self.type_key} at {self._session.address}>"


class RemoteNDArray(RemoteObject):
    """An array living in a remote session (TVM's NDArray on an RPC device)."""

    TAG = "ndarray"

    def __init__(
        self,
        session: RPCSession,
        handle: int,
        shape: tuple[int, ...],
        dtype: str,
        dev: RemoteDevice,
    ):
        super().__init__(session, handle)
        self.shape = shape
        self.dtype = dtype
        self.device = dev

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numpy(self) -> np.ndarray:
        """A local NumPy copy of the contents."""
        reply = self._session._request({"type": "numpy", "array": self._handle})
        return tensor_from(reply.header.get("value") or {}, reply.blobs).copy()

    asnumpy = numpy

    def copyfrom(self, source: Any) -> RemoteNDArray:
        """Copy ``source`` (NumPy array, NDArray, list) into this remote array."""
        local = (
            source.numpy()
            if isinstance(source, (NDArray, RemoteNDArray))
            else np.asarray(source, dtype=self.dtype)
        )
        blobs: list = []
        value = tensor_header(local, blobs)
        self._session._request(
            {"type": "copyfrom", "array": self._handle, "value": value}, blobs, "ok"
        )
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        if not (isinstance(index, slice) and index == slice(None)):
            raise RPCError("a remote array only supports whole-array assignment: arr[:] = value")
        self.copyfrom(value)

    def __repr__(self) -> str:
        return f"<RemoteNDArray shape={self.shape} {self.dtype}, {self.device!r}>"


def connect(
    host: str,
    port: int,
    key: str = "",
    token: str | None = None,
    session_timeout: float | None = None,
    timeout: float | None = 300.0,
    ticket: str | None = None,
) -> RPCSession:
    """Open a session with the server at ``host:port`` (TVM's ``rpc.connect``).

    ``key`` must match the server's ``--key`` (empty: any); ``token`` is the text
    of the server's ``--token-file`` (None when it has none). ``session_timeout``
    asks for a shorter total session time than the server's own limit;
    ``timeout`` bounds each wait for a reply (None: no bound). ``ticket`` is
    for the tracker (`TrackerSession.request` passes it).
    """
    address = f"{host}:{port}"
    try:
        sock = socket.create_connection((host, port), timeout=min(timeout or 30.0, 30.0))
    except OSError as err:
        raise RPCError(f"cannot connect to the xtvm RPC server at {address}: {err}") from None
    try:
        sock.settimeout(min(timeout or 30.0, 30.0))
        welcome = open_handshake(
            sock,
            "server",
            key,
            token,
            CLIENT_LIMITS,
            ticket=ticket,
            session_timeout=session_timeout,
        )
    except TimeoutError:
        sock.close()
        raise RPCError(
            f"the server at {address} accepted the connection but did not complete the "
            "handshake in time (is it busy with --max-sessions sessions?)"
        ) from None
    except (OSError, RPCError) as err:
        sock.close()
        raise RPCError(f"cannot open a session with {address}: {err}") from None
    return RPCSession(sock, address, welcome, timeout)
