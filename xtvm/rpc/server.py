"""The RPC server: ``python -m xtvm.rpc.server`` (TVM's ``tvm.exec.rpc_server``).

    python -m xtvm.rpc.server [--host 127.0.0.1] [--port 9090] [--key KEY]
                              [--token-file F] [--tracker HOST:PORT] ...

A connected client can run arbitrary native code on this machine (it
uploads a shared library and calls it), so the server is safe by default:

* it binds 127.0.0.1 unless told otherwise, and refuses any other address
  without a token (``--token-file``), printing a warning when it has one;
* a client proves it holds the token by an HMAC challenge-response; the
  token never crosses the wire (see `xtvm.rpc.protocol`);
* each session runs in a forked child process with its own temporary
  directory, so a kernel that crashes ends its session only: the server
  tells the client which signal killed it, removes the directory and serves
  the next client;
* frames, headers and uploads have size limits, sessions have an idle and a
  total time limit, and a malformed frame ends its session with an error,
  never the server.

The parent process only accepts connections, forks, watches its children
(exit, crash, time limit, a client that hung up mid-call) and keeps the
tracker link; it never parses a client's bytes. It imports the runtime
only, as TVM's deployable runtime does. Linux (``fork``) only.

With ``--tracker``, the server registers under ``--key`` and takes its
sessions from the tracker: the tracker hands a client a one-time ticket and
tells the server, which admits the session presenting it and reports itself
free when it ends (docs/rpc.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from xtvm.rpc.command_line import add_common_arguments, check_binding, host_port
from xtvm.rpc.protocol import (
    CLIENT_LIMITS,
    ConnectionClosed,
    Limits,
    Message,
    ProtocolError,
    RPCError,
    accept_handshake,
    error_header,
    expect,
    field_of,
    macs_equal,
    open_handshake,
    read_token_file,
    recv_message,
    send_greeting,
    send_message,
)
from xtvm.rpc.session import Session
from xtvm.runtime.base import XTVMError

TICKET_TTL = 20.0
"""Seconds a tracker's ticket waits for its client before the server reports itself free."""

KILL_GRACE = 1.0
"""Seconds past a session's deadline before the parent kills it (native code ignores timeouts)."""

HANGUP_GRACE = 1.0
"""Seconds a session may outlive its client's hang-up (to finish a reply) before it is killed."""

TICK = 0.05
"""The parent's polling period in seconds (reaping children, deadlines)."""

EXIT_OK, EXIT_REFUSED, EXIT_BROKEN, EXIT_INTERNAL = 0, 3, 4, 70
"""Exit codes of a session process: served, refused at the handshake, ended by an
error (protocol, timeout, connection), internal error."""


@dataclass
class ServerConfig:
    """What ``python -m xtvm.rpc.server`` takes (see `main`)."""

    host: str = "127.0.0.1"
    port: int = 9090
    key: str = ""
    token: str | None = None
    tracker: tuple[str, int] | None = None
    advertise_host: str | None = None
    limits: Limits = field(default_factory=Limits)
    idle_timeout: float = 60.0
    session_timeout: float = 600.0
    handshake_timeout: float = 10.0
    max_sessions: int = 4
    work_dir: str | None = None


@dataclass
class _Child:
    """A session process, as the parent sees it."""

    pid: int
    conn: socket.socket  # the parent's copy: to report a crash, and to see a hang-up
    status: int  # read end of the pipe on which the child reports its handshake; -1 once read
    workdir: str
    label: str
    deadline: float  # time.monotonic() past which it is killed
    ticket: str | None
    ticket_used: bool = False
    hung_up_at: float | None = None
    killed_because: str | None = None


def _die_with_parent(parent: int) -> None:
    """Have the kernel kill this (session) process when the server's process dies,
    however it dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so no session outlives it."""
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the call
        os._exit(EXIT_INTERNAL)


def describe_signal(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return f"{name} ({signal.strsignal(number) or name})"


class Server:
    """The server's parent process (see the module docstring)."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self._listener: socket.socket | None = None
        self._children: dict[int, _Child] = {}
        self._count = 0
        self._stopping = False
        self._tracker: socket.socket | None = None
        self._tracker_retry_at = 0.0
        self._tracker_failed_logged = False
        self._ticket: tuple[str, float] | None = None  # (ticket, expiry)
        self.port = config.port

    def log(self, text: str) -> None:
        print(f"xtvm.rpc.server[{os.getpid()}]: {text}", file=sys.stderr, flush=True)

    # --- setup and the loop -------------------------------------------------------------

    def bind(self) -> int:
        """Bind and listen; the port (useful with port 0)."""
        family = socket.AF_INET6 if ":" in self.config.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.config.host, self.config.port))
        listener.listen(64)
        listener.set_inheritable(False)
        self._listener = listener
        self.port = listener.getsockname()[1]
        return self.port

    def stop(self, *_: object) -> None:
        self._stopping = True

    def serve_forever(self) -> None:
        """Serve until SIGTERM/SIGINT (or `stop`), then end every session and clean up."""
        assert self._listener is not None, "bind() first"
        try:
            while not self._stopping:
                self._link_tracker()
                self._poll_once()
                self._reap()
                self._enforce_deadlines()
                self._expire_ticket()
        finally:
            self._shutdown()

    def _poll_once(self) -> None:
        poller = select.poll()
        actions = {}
        if len(self._children) < self.config.max_sessions and self._listener is not None:
            poller.register(self._listener, select.POLLIN)
            actions[self._listener.fileno()] = self._accept
        if self._tracker is not None:
            poller.register(self._tracker, select.POLLIN)
            actions[self._tracker.fileno()] = self._from_tracker
        for child in self._children.values():
            if child.status >= 0:
                poller.register(child.status, select.POLLIN)
                actions[child.status] = lambda c=child: self._read_status(c)
            if child.hung_up_at is None:
                poller.register(child.conn, select.POLLRDHUP)
                actions[child.conn.fileno()] = lambda c=child: self._hung_up(c)
        try:
            events = poller.poll(TICK * 1000)
        except InterruptedError:
            return
        for fd, _ in events:
            action = actions.get(fd)
            if action is not None:
                action()

    # --- sessions -----------------------------------------------------------------------

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            conn, address = self._listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        self._count += 1
        label = f"session {self._count} from {address[0]}:{address[1]}"
        ticket = self._ticket[0] if self._ticket else None
        try:
            workdir = tempfile.mkdtemp(prefix="xtvm-rpc-session-", dir=self.config.work_dir)
        except OSError as err:
            self._refuse(conn, label, f"cannot make the session's directory: {err}")
            return
        status_r, status_w = os.pipe()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError as err:
            for fd in (status_r, status_w):
                os.close(fd)
            shutil.rmtree(workdir, ignore_errors=True)
            self._refuse(conn, label, f"cannot start the session's process: {err}")
            return
        if pid == 0:  # the session process: never returns
            code = EXIT_INTERNAL
            try:
                _die_with_parent(parent)
                os.close(status_r)
                self._close_inherited()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                code = self._session_main(conn, status_w, workdir, label, ticket)
            except BaseException as err:  # noqa: BLE001 - a child must not return into the loop
                with contextlib.suppress(Exception):
                    self.log(f"{label}: internal error: {type(err).__name__}: {err}")
            finally:
                with contextlib.suppress(Exception):
                    sys.stderr.flush()
                os._exit(code)
        os.close(status_w)
        deadline = time.monotonic() + self.config.handshake_timeout + KILL_GRACE
        self._children[pid] = _Child(pid, conn, status_r, workdir, label, deadline, ticket)

    def _refuse(self, conn: socket.socket, label: str, reason: str) -> None:
        """Tell a client the server could not start its session (after the greeting, so
        it can read the error), and close the connection."""
        self.log(f"{label}: {reason}")
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            send_greeting(conn)
            send_message(conn, error_header(f"the server {reason}", fatal=True))
        conn.close()

    def _close_inherited(self) -> None:
        """In a session process: close the fds of the parent's other business."""
        for sock in (self._listener, self._tracker):
            if sock is not None:
                sock.close()
        for child in self._children.values():
            child.conn.close()
            if child.status >= 0:
                os.close(child.status)

    def _session_main(
        self, conn: socket.socket, status_w: int, workdir: str, label: str, ticket: str | None
    ) -> int:
        config = self.config
        conn.settimeout(config.handshake_timeout)
        requested: list[float] = []

        def check_hello(hello: Message) -> None:
            key = hello.header["key"]
            if key and key != config.key:
                raise RPCError(
                    f"key mismatch: this server serves key '{config.key}', the client asked "
                    f"for '{key}'"
                )
            if config.tracker is not None and not (
                ticket is not None and macs_equal(hello.header.get("ticket"), ticket)
            ):
                host, port = config.tracker
                raise RPCError(
                    f"this server takes its sessions from the tracker at {host}:{port}: request "
                    f"one there (xtvm.rpc.connect_tracker('{host}', {port}).request('{config.key}'))"
                )
            timeout = field_of(hello, "session_timeout", (int, float), optional=True)
            if timeout is not None:
                if timeout <= 0:
                    raise RPCError(f"session_timeout must be positive, got {timeout}")
                requested.append(float(timeout))

        try:
            accept_handshake(
                conn,
                config.token,
                config.limits,
                check_hello,
                {
                    "limits": config.limits.as_json(),
                    "session_timeout": config.session_timeout,
                    "idle_timeout": config.idle_timeout,
                },
            )
        except (RPCError, OSError) as err:
            self.log(f"{label}: refused: {err}")
            return EXIT_REFUSED
        deadline = time.monotonic() + min([config.session_timeout, *requested])
        os.write(
            status_w, json.dumps({"ticket_used": ticket is not None, "deadline": deadline}).encode()
        )
        os.close(status_w)
        self.log(f"{label}: started")
        session = Session(conn, workdir, config.limits, config.idle_timeout, deadline)
        try:
            session.serve()
        except ConnectionClosed:
            self.log(f"{label}: the client disconnected without closing the session")
            return EXIT_OK
        except (ProtocolError, TimeoutError, OSError) as err:
            self.log(f"{label}: ended by an error: {err}")
            return EXIT_BROKEN
        self.log(f"{label}: closed by the client")
        return EXIT_OK

    def _read_status(self, child: _Child) -> None:
        """Read the child's one status message (it then closes the pipe, or dies)."""
        if child.status < 0:
            return
        data = b""
        with contextlib.suppress(OSError):
            data = os.read(child.status, 4096)
        os.close(child.status)  # one message at most: its end, or the child's
        child.status = -1
        if not data:
            return
        try:
            status = json.loads(data)
            child.deadline = float(status["deadline"]) + KILL_GRACE
            if status.get("ticket_used"):
                child.ticket_used = True
                self._ticket = None
        except (ValueError, KeyError, TypeError):
            self.log(f"{child.label}: unreadable status {data[:80]!r}")

    def _hung_up(self, child: _Child) -> None:
        child.hung_up_at = time.monotonic()

    def _kill(self, child: _Child, reason: str) -> None:
        if child.killed_because is not None:
            return
        child.killed_because = reason
        self.log(f"{child.label}: killed: {reason}")
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGKILL)
        self._tell(child, f"session ended: {reason}")

    def _tell(self, child: _Child, message: str) -> None:
        """Send the client a fatal error on the parent's copy of its connection."""
        if child.hung_up_at is not None:
            return
        with contextlib.suppress(OSError):
            child.conn.settimeout(1.0)
            send_message(child.conn, error_header(message, fatal=True))

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for child in self._children.values():
            if child.hung_up_at is not None and now - child.hung_up_at > HANGUP_GRACE:
                self._kill(child, "the client disconnected in the middle of a call")
            elif now > child.deadline:
                self._kill(child, "it ran past its time limit (--session-timeout, session_timeout)")

    def _reap(self) -> None:
        for child in list(self._children.values()):
            try:
                pid, status = os.waitpid(child.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = child.pid, 0
            if pid == 0:
                continue
            if os.WIFSIGNALED(status) and child.killed_because is None:
                what = describe_signal(os.WTERMSIG(status))
                message = (
                    f"the session process was killed by {what}: the remote code crashed "
                    "(the server is still serving; start a new session)"
                )
                self.log(f"{child.label}: {message}")
                self._tell(child, message)
            self._read_status(child)
            self._forget(child)

    def _forget(self, child: _Child) -> None:
        del self._children[child.pid]
        child.conn.close()
        if child.status >= 0:
            os.close(child.status)
        shutil.rmtree(child.workdir, ignore_errors=True)
        if child.ticket_used:
            self._to_tracker({"type": "free"})

    def _shutdown(self) -> None:
        for child in list(self._children.values()):
            self._kill(child, "the server is shutting down")
        for child in list(self._children.values()):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child.pid, 0)
            self._forget(child)
        for sock in (self._listener, self._tracker):
            if sock is not None:
                sock.close()
        self._listener = self._tracker = None

    # --- the tracker link ---------------------------------------------------------------

    def _link_tracker(self) -> None:
        if self.config.tracker is None or self._tracker is not None:
            return
        now = time.monotonic()
        if now < self._tracker_retry_at:
            return
        self._tracker_retry_at = now + 1.0
        host, port = self.config.tracker
        try:
            sock = socket.create_connection((host, port), timeout=5.0)
        except OSError as err:
            if not self._tracker_failed_logged:
                self.log(
                    f"cannot reach the tracker at {host}:{port} ({err}); retrying every second"
                )
                self._tracker_failed_logged = True
            return
        try:
            open_handshake(sock, "tracker", "", self.config.token, CLIENT_LIMITS, role="server")
            advertised = self.config.advertise_host or self.config.host
            if advertised in ("0.0.0.0", "::", ""):
                advertised = sock.getsockname()[0]
            busy = any(c.ticket_used or c.ticket for c in self._children.values())
            send_message(
                sock,
                {
                    "type": "register",
                    "key": self.config.key,
                    "host": advertised,
                    "port": self.port,
                    "busy": busy,
                },
            )
            expect(recv_message(sock, CLIENT_LIMITS), "ok")
        except (OSError, RPCError) as err:
            sock.close()
            self.log(f"the tracker at {host}:{port} refused the registration: {err}")
            return
        sock.set_inheritable(False)
        self._tracker = sock
        self._tracker_failed_logged = False
        self.log(f"registered with the tracker at {host}:{port} under key '{self.config.key}'")

    def _from_tracker(self) -> None:
        assert self._tracker is not None
        try:
            message = recv_message(self._tracker, CLIENT_LIMITS)
            if message.type != "assign":
                raise ProtocolError(f"unexpected '{message.type}' message from the tracker")
            ticket = field_of(message, "ticket", str)
            self._ticket = (ticket, time.monotonic() + TICKET_TTL)
            send_message(self._tracker, {"type": "assigned", "ticket": ticket})
        except (OSError, RPCError) as err:
            self.log(f"lost the tracker link ({err}); reconnecting")
            self._tracker.close()
            self._tracker = None

    def _to_tracker(self, header: dict) -> None:
        if self._tracker is None:
            return
        try:
            send_message(self._tracker, header)
        except OSError as err:
            self.log(f"lost the tracker link ({err}); reconnecting")
            self._tracker.close()
            self._tracker = None

    def _expire_ticket(self) -> None:
        if self._ticket is None or time.monotonic() < self._ticket[1]:
            return
        ticket = self._ticket[0]
        if any(c.ticket == ticket and not c.ticket_used for c in self._children.values()):
            return  # a client holding it is still in its handshake
        self.log("the tracker's client did not come: free again")
        self._ticket = None
        self._to_tracker({"type": "free"})


# --- the command line ---------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xtvm.rpc.server", description="Serve xtvm RPC sessions (docs/rpc.md)."
    )
    add_common_arguments(parser, 9090)
    parser.add_argument("--key", default="", help="device key (e.g. x86-avx512)")
    parser.add_argument("--tracker", type=host_port, help="register with the tracker at HOST:PORT")
    parser.add_argument("--advertise-host", help="address the tracker gives clients")
    parser.add_argument("--max-sessions", type=int, default=4, help="concurrent sessions")
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="seconds")
    parser.add_argument("--session-timeout", type=float, default=600.0, help="seconds")
    parser.add_argument("--handshake-timeout", type=float, default=10.0, help="seconds")
    parser.add_argument("--max-frame-bytes", type=int, default=Limits.max_frame_bytes)
    parser.add_argument("--max-upload-bytes", type=int, default=Limits.max_upload_bytes)
    parser.add_argument("--work-dir", help="where session directories are made (default: TMPDIR)")
    args = parser.parse_args(argv)
    prog = "xtvm.rpc.server"
    try:
        token = read_token_file(args.token_file) if args.token_file else None
        check_binding(prog, args.host, token)
        positive = ("max_sessions", "idle_timeout", "session_timeout", "handshake_timeout")
        for name in positive:
            if getattr(args, name) <= 0:
                raise XTVMError(f"--{name.replace('_', '-')} must be positive")
        limits = Limits(
            max_frame_bytes=args.max_frame_bytes, max_upload_bytes=args.max_upload_bytes
        )
        config = ServerConfig(
            host=args.host,
            port=args.port,
            key=args.key,
            token=token,
            tracker=args.tracker,
            advertise_host=args.advertise_host,
            limits=limits,
            idle_timeout=args.idle_timeout,
            session_timeout=args.session_timeout,
            handshake_timeout=args.handshake_timeout,
            max_sessions=args.max_sessions,
            work_dir=args.work_dir,
        )
        server = Server(config)
        port = server.bind()
    except (XTVMError, OSError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, server.stop)
    signal.signal(signal.SIGINT, server.stop)
    print(f"{prog}: listening on {args.host}:{port} (key '{args.key}')", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
