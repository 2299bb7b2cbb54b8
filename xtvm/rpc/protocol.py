"""The xtvm RPC wire format: framed, typed messages and the authenticated handshake.

Everything the server, the client and the tracker send is described here, so
the protocol has one definition (docs/rpc.md shows it as a table).

**Framing.** After the greeting, every message is one frame::

    u32 header_len | u64 blob_len | header (UTF-8 JSON object) | blob bytes

(big-endian). The header is a JSON object with a string ``"type"``; when
``blob_len`` is nonzero it lists the lengths of the raw byte strings that
follow in ``"blobs"`` (their sum is ``blob_len``). Tensors travel as raw
bytes in a blob, described in the header by dtype and shape. There is no
pickle and no ``eval``: a receiver only ever parses JSON and copies bytes.
A reader refuses a header over ``max_header_bytes`` or a frame over
``max_frame_bytes`` before reading it, and a frame cut short by the peer is
a `ProtocolError`, as is any header that is not a well-formed object.

**Handshake.** Each side first sends ``MAGIC`` and its ``VERSION`` (u16);
the server's greeting comes first, so a client on the wrong port learns it
at once. Then::

    client -> hello     {key, ticket, nonce, session_timeout}
    server -> challenge {nonce, auth: "hmac-sha256" | "none"}   (or error: wrong key, ...)
    client -> auth      {mac}     HMAC-SHA256(token, "client" | server nonce | client nonce | key)
    server -> welcome   {mac, limits, session_timeout}          (or error: wrong token)

The server's ``mac`` is the same HMAC over ``"server" | ...``, so a client
holding a token also knows it talks to a server holding it. The token itself
never crosses the wire; both nonces are fresh random bytes, so a recorded
exchange cannot be replayed.

**Values.** Arguments and results of remote calls are encoded by
`encode_value`/`decode_value` as tagged JSON (``{"t": "int", "v": 3}``,
``{"t": "tensor", "blob": 0, "dtype": "float32", "shape": [2, 2]}``, remote
object handles ``{"t": "ndarray" | "module" | "func", "h": 7}``, ...); the
caller supplies how handles and tensors map to its own objects.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
import socket
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xtvm.runtime.base import XTVMError
from xtvm.runtime.ndarray import DTYPE_CODES

MAGIC = b"XRPC"
"""The first four bytes each side sends."""

VERSION = 1
"""The protocol version; a peer speaking another one is refused with a message saying both."""

GREETING = MAGIC + struct.pack(">H", VERSION)

_PREFIX = struct.Struct(">IQ")
"""A frame's prefix: header length (u32), blob length (u64)."""

MAX_VALUE_DEPTH = 32
"""How deeply lists, tuples and dicts may nest in one encoded value."""


class RPCError(XTVMError):
    """An error of a remote session: raised by the remote code, by the server, or by the connection."""


class ProtocolError(RPCError):
    """The peer broke the protocol (bad magic, malformed or oversized frame, ...): the
    connection is unusable and is closed."""


class RPCTimeout(RPCError):
    """The peer did not answer in time; the connection is closed."""


class ConnectionClosed(ProtocolError):
    """The peer closed the connection (possibly in the middle of a frame)."""


@dataclass(frozen=True)
class Limits:
    """What one side accepts from its peer; the server announces its own in ``welcome``."""

    max_header_bytes: int = 1 << 20
    max_frame_bytes: int = 64 << 20
    max_upload_bytes: int = 1 << 30

    def as_json(self) -> dict[str, int]:
        return {
            "max_header_bytes": self.max_header_bytes,
            "max_frame_bytes": self.max_frame_bytes,
            "max_upload_bytes": self.max_upload_bytes,
        }


CLIENT_LIMITS = Limits(max_header_bytes=16 << 20, max_frame_bytes=4 << 30)
"""What a client accepts from a server (which it chose to trust): large outputs."""


@dataclass
class Message:
    """One frame: its JSON header and its blobs."""

    header: dict[str, Any]
    blobs: list[memoryview] = field(default_factory=list)

    @property
    def type(self) -> str:
        return self.header["type"]


# --- bytes on a socket -------------------------------------------------------------


def recv_exact(sock: socket.socket, count: int, what: str) -> bytearray:
    """Exactly ``count`` bytes; a `ConnectionClosed` naming ``what`` if the peer stops short.
    A socket timeout propagates as ``TimeoutError``."""
    buffer = bytearray(count)
    view = memoryview(buffer)
    got = 0
    while got < count:
        try:
            n = sock.recv_into(view[got:], min(count - got, 1 << 20))
        except ConnectionResetError:
            n = 0
        if n == 0:
            if got == 0 and what == "frame prefix":
                raise ConnectionClosed("the peer closed the connection")
            raise ConnectionClosed(
                f"truncated {what}: the peer closed the connection after {got} of {count} bytes"
            )
        got += n
    return buffer


def send_greeting(sock: socket.socket) -> None:
    sock.sendall(GREETING)


def recv_greeting(sock: socket.socket, peer: str) -> None:
    """Read and check the peer's magic and version; a `ProtocolError` saying what came instead."""
    data = bytes(recv_exact(sock, len(GREETING), "greeting"))
    if data[:4] != MAGIC:
        raise ProtocolError(
            f"expected the xtvm RPC magic {MAGIC!r} from the {peer}, got {data[:4]!r}: "
            f"is it an xtvm RPC {peer}?"
        )
    (version,) = struct.unpack(">H", data[4:])
    if version != VERSION:
        raise ProtocolError(
            f"the {peer} speaks xtvm RPC protocol version {version}; this side speaks {VERSION}"
        )


def send_message(
    sock: socket.socket, header: dict[str, Any], blobs: Sequence[bytes | memoryview] = ()
) -> None:
    """Send one frame (see the module docstring)."""
    if blobs:
        header = {**header, "blobs": [len(b) for b in blobs]}
    text = json.dumps(header, separators=(",", ":")).encode()
    total = sum(len(b) for b in blobs)
    sock.sendall(_PREFIX.pack(len(text), total) + text)
    for blob in blobs:
        sock.sendall(blob)


def recv_message(sock: socket.socket, limits: Limits) -> Message:
    """Read one frame, checking it against ``limits`` before reading its body."""
    header_len, blob_len = _PREFIX.unpack(recv_exact(sock, _PREFIX.size, "frame prefix"))
    if header_len > limits.max_header_bytes:
        raise ProtocolError(
            f"frame header of {header_len} bytes exceeds the limit of "
            f"{limits.max_header_bytes} bytes"
        )
    if header_len + blob_len > limits.max_frame_bytes:
        raise ProtocolError(
            f"frame of {header_len + blob_len} bytes exceeds the limit of "
            f"{limits.max_frame_bytes} bytes (max_frame_bytes)"
        )
    raw = recv_exact(sock, header_len, "frame header")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ProtocolError(f"frame header is not JSON text: {err}") from None
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise ProtocolError('frame header must be a JSON object with a string "type"')
    lengths = header.get("blobs", [])
    if not (
        isinstance(lengths, list)
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in lengths)
        and sum(lengths) == blob_len
    ):
        raise ProtocolError(
            f'frame header\'s "blobs" {lengths!r} does not describe its {blob_len} blob bytes'
        )
    data = memoryview(recv_exact(sock, blob_len, "frame body")) if blob_len else memoryview(b"")
    blobs, offset = [], 0
    for n in lengths:
        blobs.append(data[offset : offset + n])
        offset += n
    return Message(header, blobs)


def field_of(
    message: Message, name: str, kind: type | tuple[type, ...], optional: bool = False
) -> Any:
    """Header field ``name`` of ``message``, checked to be of ``kind`` (a `ProtocolError` if not)."""
    value = message.header.get(name)
    if value is None and optional:
        return None
    wrong_bool = isinstance(value, bool) and bool not in (
        kind if isinstance(kind, tuple) else (kind,)
    )
    if not isinstance(value, kind) or wrong_bool:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ProtocolError(
            f"'{message.type}' message: field '{name}' must be {names}, got {value!r:.80}"
        )
    return value


def expect(message: Message, *types: str) -> Message:
    """``message`` if its type is one of ``types``; an `RPCError` carrying the peer's error
    message if it is an ``error``; a `ProtocolError` otherwise."""
    if message.type == "error":
        text = message.header.get("message")
        raise RPCError(str(text) if text is not None else "the peer reported an unnamed error")
    if message.type not in types:
        raise ProtocolError(f"expected a {' or '.join(types)} message, got '{message.type}'")
    return message


def error_header(message: str, fatal: bool = False) -> dict[str, Any]:
    return {"type": "error", "message": message, "fatal": fatal}


# --- authentication ----------------------------------------------------------------


def new_nonce() -> str:
    return secrets.token_hex(32)


def auth_mac(token: str, role: str, server_nonce: str, client_nonce: str, key: str) -> str:
    """HMAC-SHA256 proving knowledge of ``token`` for this exchange (``role``: client or server)."""
    text = f"xtvm-rpc\0{role}\0{server_nonce}\0{client_nonce}\0{key}".encode()
    return hmac.new(token.encode(), text, hashlib.sha256).hexdigest()


def macs_equal(a: Any, b: str) -> bool:
    return isinstance(a, str) and hmac.compare_digest(a.encode(), b.encode())


def read_token_file(path: str) -> str:
    """The token in ``path`` (surrounding whitespace removed); an error if it is empty."""
    try:
        with open(path, encoding="utf-8") as f:
            token = f.read().strip()
    except OSError as err:
        raise XTVMError(f"cannot read the token file '{path}': {err.strerror}") from None
    except UnicodeDecodeError:
        raise XTVMError(f"the token file '{path}' is not UTF-8 text") from None
    if not token:
        raise XTVMError(f"the token file '{path}' is empty")
    return token


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps a socket reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        import ipaddress

        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --- values ------------------------------------------------------------------------


def tensor_header(array: np.ndarray, blobs: list[bytes | memoryview]) -> dict[str, Any]:
    """Append ``array``'s bytes to ``blobs``; the JSON that describes them."""
    array = np.ascontiguousarray(array)
    # bytes through a uint8 view: ml_dtypes arrays (int4, ...) have no buffer format
    blobs.append(memoryview(array.reshape(-1).view(np.uint8)) if array.size else b"")
    return {
        "t": "tensor",
        "blob": len(blobs) - 1,
        "dtype": array.dtype.name,
        "shape": list(array.shape),
    }


def tensor_from(value: dict[str, Any], blobs: Sequence[memoryview]) -> np.ndarray:
    """The NumPy array a ``tensor`` value describes (a writable view of the frame's bytes)."""
    dtype, shape, index = value.get("dtype"), value.get("shape"), value.get("blob")
    if dtype not in DTYPE_CODES:
        raise ProtocolError(f"tensor dtype {dtype!r:.40} is not one of {', '.join(DTYPE_CODES)}")
    if not (
        isinstance(shape, list)
        and len(shape) <= 64
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise ProtocolError(f"tensor shape {shape!r:.80} is not a list of non-negative integers")
    if not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(blobs)):
        raise ProtocolError(f"tensor blob index {index!r:.20} is not one of the frame's blobs")
    data = blobs[index]
    expected = math.prod(shape) * np.dtype(dtype).itemsize
    if expected != len(data):
        raise ProtocolError(
            f"tensor {dtype}{shape} needs {expected} bytes, its blob has {len(data)}"
        )
    if not expected:
        return np.zeros(shape, dtype)
    return np.frombuffer(data, dtype=dtype).reshape(shape)


def encode_value(
    value: Any, blobs: list[bytes | memoryview], encode_other: Callable[[Any], dict[str, Any]]
) -> dict[str, Any]:
    """``value`` as tagged JSON; tensors go to ``blobs``; ``encode_other`` handles the
    caller's own objects (remote handles, NDArrays, devices) and raises for the rest."""
    return _encode(value, blobs, encode_other, 0)


def _encode(value: Any, blobs: list, other: Callable[[Any], dict[str, Any]], depth: int) -> Any:
    if depth > MAX_VALUE_DEPTH:
        raise RPCError(f"value nests deeper than {MAX_VALUE_DEPTH} levels")
    if value is None:
        return {"t": "none"}
    if isinstance(value, (bool, np.bool_)):
        return {"t": "bool", "v": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"t": "int", "v": int(value)}
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return {"t": "float", "v": number if math.isfinite(number) else repr(number)}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if isinstance(value, (bytes, bytearray)):
        blobs.append(bytes(value))
        return {"t": "bytes", "blob": len(blobs) - 1}
    if isinstance(value, np.ndarray):
        return tensor_header(value, blobs)
    if isinstance(value, (list, tuple)):
        items = [_encode(v, blobs, other, depth + 1) for v in value]
        return {"t": "list" if isinstance(value, list) else "tuple", "v": items}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise RPCError("only dicts with string keys can cross an RPC call")
        return {
            "t": "dict",
            "v": {k: _encode(v, blobs, other, depth + 1) for k, v in value.items()},
        }
    return other(value)


def decode_value(
    value: Any,
    blobs: Sequence[memoryview],
    decode_other: Callable[[dict[str, Any]], Any],
) -> Any:
    """The inverse of `encode_value`; ``decode_other`` turns the caller's own tags
    (``ndarray``, ``module``, ``func``, ``device``, ``benchmark``) into objects.
    Anything malformed is a `ProtocolError`."""
    return _decode(value, blobs, decode_other, 0)


_FLOAT_WORDS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _decode(value: Any, blobs: Sequence[memoryview], other: Callable, depth: int) -> Any:
    if depth > MAX_VALUE_DEPTH:
        raise ProtocolError(f"value nests deeper than {MAX_VALUE_DEPTH} levels")
    if not isinstance(value, dict) or not isinstance(value.get("t"), str):
        raise ProtocolError(
            f'an encoded value must be an object with a string "t", got {value!r:.80}'
        )
    tag, v = value["t"], value.get("v")
    simple = {"bool": bool, "int": int, "str": str}
    if tag == "none":
        return None
    if tag in simple:
        if not isinstance(v, simple[tag]) or (tag == "int" and isinstance(v, bool)):
            raise ProtocolError(f"'{tag}' value holds {v!r:.80}")
        return v
    if tag == "float":
        if isinstance(v, str) and v in _FLOAT_WORDS:
            return _FLOAT_WORDS[v]
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise ProtocolError(f"'float' value holds {v!r:.80}")
        return float(v)
    if tag == "bytes":
        index = value.get("blob")
        if not (isinstance(index, int) and 0 <= index < len(blobs)):
            raise ProtocolError(f"bytes blob index {index!r:.20} is not one of the frame's blobs")
        return bytes(blobs[index])
    if tag == "tensor":
        return tensor_from(value, blobs)
    if tag in ("list", "tuple"):
        if not isinstance(v, list):
            raise ProtocolError(f"'{tag}' value must hold a list")
        items = [_decode(item, blobs, other, depth + 1) for item in v]
        return items if tag == "list" else tuple(items)
    if tag == "dict":
        if not isinstance(v, dict):
            raise ProtocolError("'dict' value must hold an object")
        return {k: _decode(item, blobs, other, depth + 1) for k, item in v.items()}
    return other(value)


def handle_of(value: dict[str, Any]) -> int:
    """The handle of a remote-object value (``{"t": ..., "h": int}``)."""
    h = value.get("h")
    if not isinstance(h, int) or isinstance(h, bool):
        raise ProtocolError(f"'{value.get('t')}' value needs an integer handle 'h', got {h!r:.20}")
    return h


# --- the handshake -------------------------------------------------------------------


def open_handshake(
    sock: socket.socket,
    peer: str,
    key: str,
    token: str | None,
    limits: Limits,
    **hello: Any,
) -> Message:
    """The connecting side's handshake (see the module docstring); the peer's ``welcome``.

    ``hello`` adds fields to the hello message (``ticket``, ``session_timeout``,
    ``role``). An `RPCError` says what failed: the peer's refusal (wrong key, busy,
    wrong token), a token the peer requires but was not given, or a peer that
    cannot prove it holds the token.
    """
    recv_greeting(sock, peer)
    send_greeting(sock)
    nonce = new_nonce()
    send_message(sock, {"type": "hello", "key": key, "nonce": nonce, **hello})
    challenge = expect(recv_message(sock, limits), "challenge")
    server_nonce = field_of(challenge, "nonce", str)
    auth = challenge.header.get("auth")
    if auth == "none":
        if token is not None:
            raise RPCError(
                f"the {peer} requires no token, but one was given: refusing, as this {peer} cannot "
                "prove it knows the token (start it with --token-file, or pass token=None)"
            )
        send_message(sock, {"type": "auth", "mac": None})
    elif auth == "hmac-sha256":
        if token is None:
            raise RPCError(f"the {peer} requires a token: pass token=... (its --token-file's text)")
        send_message(
            sock, {"type": "auth", "mac": auth_mac(token, "client", server_nonce, nonce, key)}
        )
    else:
        raise ProtocolError(f"the {peer} asks for an unknown authentication {auth!r:.40}")
    welcome = expect(recv_message(sock, limits), "welcome")
    if token is not None:
        expected = auth_mac(token, "server", server_nonce, nonce, key)
        if not macs_equal(welcome.header.get("mac"), expected):
            raise RPCError(f"the {peer} could not prove it holds the token: refusing to talk to it")
    return welcome


def accept_handshake(
    sock: socket.socket,
    token: str | None,
    limits: Limits,
    check_hello: Callable[[Message], None],
    welcome: dict[str, Any],
) -> Message:
    """The accepting side's handshake; the client's ``hello``.

    ``check_hello`` raises an `RPCError` to refuse the client (wrong key, no
    ticket, ...): the message is sent to the client, then re-raised. A wrong
    token is refused the same way. ``welcome`` adds fields to the welcome.
    """
    send_greeting(sock)
    try:
        recv_greeting(sock, "client")
    except ProtocolError as err:
        send_message(sock, error_header(str(err), fatal=True))
        raise
    hello = expect(recv_message(sock, limits), "hello")
    client_nonce = field_of(hello, "nonce", str)
    key = field_of(hello, "key", str)
    try:
        check_hello(hello)
    except RPCError as err:
        send_message(sock, error_header(str(err), fatal=True))
        raise
    nonce = new_nonce()
    send_message(
        sock,
        {"type": "challenge", "nonce": nonce, "auth": "none" if token is None else "hmac-sha256"},
    )
    auth = expect(recv_message(sock, limits), "auth")
    mac = None
    if token is not None:
        if not macs_equal(
            auth.header.get("mac"), auth_mac(token, "client", nonce, client_nonce, key)
        ):
            message = "authentication failed: the client's token does not match the server's"
            send_message(sock, error_header(message, fatal=True))
            raise RPCError(message)
        mac = auth_mac(token, "server", nonce, client_nonce, key)
    send_message(sock, {"type": "welcome", "mac": mac, **welcome})
    return hello
