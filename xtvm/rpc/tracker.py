"""The RPC tracker: ``python -m xtvm.rpc.tracker`` hands out servers by device key
(TVM's ``tvm.exec.rpc_tracker``), and its client, `connect_tracker`.

    python -m xtvm.rpc.tracker [--host 127.0.0.1] [--port 9190] [--token-file F]
    python -m xtvm.rpc.server --tracker 127.0.0.1:9190 --key x86-avx512 --port 0

    tracker = xtvm.rpc.connect_tracker("127.0.0.1", 9190)
    remote = tracker.request("x86-avx512", priority=1, session_timeout=60)
    print(tracker.summary())

Servers keep a connection open to the tracker (``role: server``), register
under a key and are then *free*. A client's ``request`` waits until a free
server of its key is its turn (higher ``priority`` first, then first come);
the tracker makes a one-time ticket, gives it to the server (which
acknowledges), marks the server *busy* and answers the client with the
server's address and the ticket, which `request` uses to open the session.
The server reports itself free when the session ends (or when the ticket's
client never comes). A server whose connection drops is forgotten.

The tracker speaks the protocol of `xtvm.rpc.protocol` (same greeting,
token and limits) and, like the server, binds loopback unless given a token.
Each connection has its own thread; the tracker never runs client code.
"""

from __future__ import annotations

import argparse
import itertools
import secrets
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from xtvm.rpc.client import RPCSession, connect
from xtvm.rpc.command_line import add_common_arguments, check_binding
from xtvm.rpc.protocol import (
    CLIENT_LIMITS,
    ConnectionClosed,
    Limits,
    Message,
    RPCError,
    accept_handshake,
    error_header,
    expect,
    field_of,
    open_handshake,
    read_token_file,
    recv_message,
    send_message,
)
from xtvm.runtime.base import XTVMError

TRACKER_LIMITS = Limits(max_header_bytes=64 << 10, max_frame_bytes=64 << 10, max_upload_bytes=0)
"""Tracker messages are small JSON headers only."""

ACK_TIMEOUT = 10.0
"""Seconds a server has to acknowledge an assignment before it is dropped."""


@dataclass
class _ServerEntry:
    key: str
    host: str
    port: int
    sock: socket.socket
    state: str = "free"  # free, assigning, busy
    last_used: float = 0.0
    send_lock: threading.Lock = field(default_factory=threading.Lock)
    acked: dict[str, threading.Event] = field(default_factory=dict)


@dataclass(order=True)
class _Request:
    rank: tuple[float, int]  # (-priority, arrival): smaller is served first
    key: str = field(compare=False)


class Tracker:
    """The tracker's state and connection handlers (see the module docstring)."""

    def __init__(self, host: str, port: int, token: str | None):
        self.token = token
        self._cond = threading.Condition()
        self._servers: list[_ServerEntry] = []
        self._waiting: list[_Request] = []
        self._arrivals = itertools.count()
        self._stopping = threading.Event()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, port))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]

    def log(self, text: str) -> None:
        print(f"xtvm.rpc.tracker: {text}", file=sys.stderr, flush=True)

    def serve_forever(self) -> None:
        self._listener.settimeout(0.2)
        while not self._stopping.is_set():
            try:
                conn, address = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stopping.is_set():
                    break
                raise
            threading.Thread(
                target=self._serve_connection, args=(conn, address), daemon=True
            ).start()
        self._listener.close()
        with self._cond:
            for entry in self._servers:
                entry.sock.close()

    def stop(self, *_: object) -> None:
        self._stopping.set()

    # --- connections --------------------------------------------------------------------

    def _serve_connection(self, conn: socket.socket, address: tuple) -> None:
        label = f"{address[0]}:{address[1]}"
        try:
            conn.settimeout(10.0)
            hello = accept_handshake(conn, self.token, TRACKER_LIMITS, lambda m: None, {})
            conn.settimeout(None)
            if hello.header.get("role") == "server":
                self._serve_server(conn, label)
            else:
                self._serve_client(conn)
        except ConnectionClosed:
            pass
        except (OSError, RPCError) as err:
            self.log(f"connection from {label}: {err}")
        finally:
            conn.close()

    def _serve_server(self, conn: socket.socket, label: str) -> None:
        message = expect(recv_message(conn, TRACKER_LIMITS), "register")
        key = field_of(message, "key", str)
        port = field_of(message, "port", int)
        host = field_of(message, "host", str)
        entry = _ServerEntry(
            key, host, port, conn, "busy" if message.header.get("busy") else "free"
        )
        send_message(conn, {"type": "ok"})
        with self._cond:
            self._servers.append(entry)
            self._cond.notify_all()
        self.log(f"server {host}:{port} registered under key '{key}'")
        try:
            while True:
                message = recv_message(conn, TRACKER_LIMITS)
                with self._cond:
                    if message.type == "assigned":
                        event = entry.acked.get(str(message.header.get("ticket")))
                        if event is not None:
                            event.set()
                    elif message.type == "free":
                        entry.state = "free"
                        self._cond.notify_all()
                    else:
                        raise RPCError(f"unexpected '{message.type}' message from a server")
        finally:
            with self._cond:
                self._servers.remove(entry)
                for event in entry.acked.values():
                    event.set()
                self._cond.notify_all()
            self.log(f"server {host}:{port} (key '{key}') left")

    def _serve_client(self, conn: socket.socket) -> None:
        while True:
            message = recv_message(conn, TRACKER_LIMITS)
            if message.type == "summary":
                send_message(conn, {"type": "summary", **self.summary()})
            elif message.type == "request":
                self._answer_request(conn, message)
            else:
                send_message(conn, error_header(f"unknown tracker request '{message.type:.40}'"))

    def _answer_request(self, conn: socket.socket, message: Message) -> None:
        key = field_of(message, "key", str)
        priority = field_of(message, "priority", (int, float))
        timeout = field_of(message, "timeout", (int, float))
        session_timeout = field_of(message, "session_timeout", (int, float), optional=True)
        request = _Request((-priority, next(self._arrivals)), key)
        deadline = time.monotonic() + timeout
        with self._cond:
            self._waiting.append(request)
        try:
            while True:
                entry = self._wait_for_server(conn, request, deadline)
                if entry is None:
                    return
                ticket = secrets.token_hex(16)
                if self._assign(entry, ticket, session_timeout):
                    break
                with self._cond:
                    self._waiting.append(request)  # that server failed: wait for another
        finally:
            with self._cond:
                if request in self._waiting:
                    self._waiting.remove(request)
                self._cond.notify_all()
        send_message(
            conn,
            {
                "type": "assigned",
                "host": entry.host,
                "port": entry.port,
                "ticket": ticket,
                "key": key,
            },
        )

    def _wait_for_server(
        self, conn: socket.socket, request: _Request, deadline: float
    ) -> _ServerEntry | None:
        """The free server this request gets, once it is its turn; None (after telling the
        client) when the request times out or its client hangs up."""
        with self._cond:
            while True:
                mine = [r for r in self._waiting if r.key == request.key]
                free = [s for s in self._servers if s.key == request.key and s.state == "free"]
                if free and min(mine) is request:
                    entry = min(free, key=lambda s: s.last_used)
                    entry.state = "assigning"
                    entry.last_used = time.monotonic()
                    self._waiting.remove(request)
                    return entry
                left = deadline - time.monotonic()
                if left <= 0:
                    keys = sorted({s.key for s in self._servers})
                    send_message(
                        conn,
                        error_header(
                            f"no server of key '{request.key}' became free in time; registered "
                            f"keys: {', '.join(repr(k) for k in keys) or 'none'}"
                        ),
                    )
                    return None
                if _hung_up(conn):
                    return None
                self._cond.wait(min(left, 0.2))

    def _assign(self, entry: _ServerEntry, ticket: str, session_timeout: float | None) -> bool:
        """Tell ``entry`` to expect ``ticket``; whether it acknowledged."""
        event = threading.Event()
        entry.acked[ticket] = event
        try:
            with entry.send_lock:
                send_message(
                    entry.sock,
                    {"type": "assign", "ticket": ticket, "session_timeout": session_timeout},
                )
        except OSError:
            return False
        acknowledged = event.wait(ACK_TIMEOUT) and entry in self._servers
        with self._cond:
            entry.acked.pop(ticket, None)
            if acknowledged:
                entry.state = "busy"
            elif entry in self._servers:
                self.log(f"server {entry.host}:{entry.port} did not acknowledge; dropping it")
                entry.sock.close()
        return acknowledged

    def summary(self) -> dict[str, Any]:
        """The servers and, per key, how many are free or busy and how many requests wait."""
        with self._cond:
            servers = [
                {"key": s.key, "host": s.host, "port": s.port, "state": s.state}
                for s in self._servers
            ]
            queues: dict[str, dict[str, int]] = {}
            for s in self._servers:
                queue = queues.setdefault(s.key, {"free": 0, "busy": 0, "waiting": 0})
                queue["free" if s.state == "free" else "busy"] += 1
            for r in self._waiting:
                queues.setdefault(r.key, {"free": 0, "busy": 0, "waiting": 0})["waiting"] += 1
        return {"servers": servers, "queues": queues}


def _hung_up(conn: socket.socket) -> bool:
    """Whether the client closed its end (it sends nothing while it waits)."""
    readable, _, _ = select.select([conn], [], [], 0)
    if not readable:
        return False
    try:
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


# --- the client ---------------------------------------------------------------------


class TrackerSession:
    """A connection to a tracker (TVM's ``TrackerSession``); see `connect_tracker`."""

    def __init__(self, sock: socket.socket, host: str, port: int, token: str | None):
        self._sock = sock
        self._lock = threading.Lock()
        self.host, self.port, self.token = host, port, token

    def _ask(self, header: dict[str, Any], wait: float, *replies: str) -> Message:
        with self._lock:
            try:
                self._sock.settimeout(wait)
                send_message(self._sock, header)
                return expect(recv_message(self._sock, CLIENT_LIMITS), *replies)
            except (OSError, ConnectionClosed) as err:
                raise RPCError(
                    f"the tracker at {self.host}:{self.port} stopped answering: {err}"
                ) from None

    def summary(self) -> dict[str, Any]:
        """``{"servers": [{key, host, port, state}], "queues": {key: {free, busy, waiting}}}``."""
        reply = self._ask({"type": "summary"}, 30.0, "summary")
        return {
            "servers": reply.header.get("servers", []),
            "queues": reply.header.get("queues", {}),
        }

    def text_summary(self) -> str:
        """The summary as a table (TVM's ``text_summary``)."""
        info = self.summary()
        lines = ["key                  free  busy  waiting"]
        for key, q in sorted(info["queues"].items()):
            lines.append(f"{key:<20} {q['free']:>4}  {q['busy']:>4}  {q['waiting']:>7}")
        return "\n".join(lines)

    def request(
        self,
        key: str,
        priority: float = 1,
        session_timeout: float | None = None,
        timeout: float = 60.0,
        token: str | None = None,
    ) -> RPCSession:
        """A session with a free server of ``key``, waiting at most ``timeout`` seconds for
        one (higher ``priority`` is served first). ``token`` is the server's (default:
        this tracker's)."""
        reply = self._ask(
            {
                "type": "request",
                "key": key,
                "priority": priority,
                "timeout": timeout,
                "session_timeout": session_timeout,
            },
            timeout + 10.0,
            "assigned",
        )
        host = field_of(reply, "host", str)
        port = field_of(reply, "port", int)
        ticket = field_of(reply, "ticket", str)
        return connect(
            host,
            port,
            key=key,
            token=token if token is not None else self.token,
            session_timeout=session_timeout,
            ticket=ticket,
        )

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_tracker(
    host: str, port: int, token: str | None = None, timeout: float = 30.0
) -> TrackerSession:
    """Connect to the tracker at ``host:port`` (TVM's ``rpc.connect_tracker``)."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as err:
        raise RPCError(f"cannot connect to the tracker at {host}:{port}: {err}") from None
    try:
        open_handshake(sock, "tracker", "", token, CLIENT_LIMITS, role="client")
    except (OSError, RPCError) as err:
        sock.close()
        raise RPCError(f"cannot talk to the tracker at {host}:{port}: {err}") from None
    return TrackerSession(sock, host, port, token)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xtvm.rpc.tracker", description="Hand out xtvm RPC servers by key."
    )
    add_common_arguments(parser, 9190)
    args = parser.parse_args(argv)
    prog = "xtvm.rpc.tracker"
    try:
        token = read_token_file(args.token_file) if args.token_file else None
        check_binding(prog, args.host, token)
        tracker = Tracker(args.host, args.port, token)
    except (XTVMError, OSError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, tracker.stop)
    signal.signal(signal.SIGINT, tracker.stop)
    print(f"{prog}: listening on {args.host}:{tracker.port}", flush=True)
    tracker.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
