"""What a server does with clients that are wrong, broken or hostile: each case
is a clear error for that client, and the server goes on serving the next
one (``assert_serving``). Crashing and hanging remote code ends only its own
session; sessions leave no process or directory behind."""

from __future__ import annotations

import shutil
import signal
import socket
import struct
import threading
import time

import numpy as np
import pytest
from rpc_helpers import HOST, bad_library, child_pids, start_time, wait_for

import xtvm
from xtvm import rpc
from xtvm.rpc import protocol


def assert_serving(server, **connect) -> None:
    """The server is up and opens a working session."""
    assert server.alive(), server.log()
    with rpc.connect(HOST, server.port, timeout=30, **connect) as session:
        session.ping()


def raw_session(port: int) -> socket.socket:
    """A socket past the handshake with a server that has no token, for sending raw frames."""
    sock = socket.create_connection((HOST, port), timeout=10)
    protocol.open_handshake(sock, "server", "", None, protocol.CLIENT_LIMITS)
    return sock


def fatal_error(sock: socket.socket) -> str:
    message = protocol.recv_message(sock, protocol.CLIENT_LIMITS)
    assert message.type == "error" and message.header["fatal"], message.header
    return message.header["message"]


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "token"
    path.write_text("s3cret-token\n")
    return path


def test_wrong_or_missing_token(launch, token_file):
    server = launch("server", "--token-file", str(token_file))
    with pytest.raises(
        rpc.RPCError, match="authentication failed: the client's token does not match"
    ):
        rpc.connect(HOST, server.port, token="wrong")
    with pytest.raises(rpc.RPCError, match="requires a token: pass token="):
        rpc.connect(HOST, server.port)
    assert_serving(server, token="s3cret-token")
    assert "refused: authentication failed" in server.log()


def test_a_client_refuses_a_server_that_cannot_prove_the_token(module_server):
    with pytest.raises(rpc.RPCError, match="requires no token, but one was given"):
        rpc.connect(HOST, module_server.port, token="s3cret-token")


def test_wrong_key(module_server):
    with pytest.raises(
        rpc.RPCError,
        match="key mismatch: this server serves key 'test', the client asked for 'x86-avx512'",
    ):
        rpc.connect(HOST, module_server.port, key="x86-avx512")
    assert_serving(module_server, key="test")


def test_garbage_bytes(module_server):
    with socket.create_connection((HOST, module_server.port), timeout=10) as sock:
        protocol.recv_greeting(sock, "server")
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert "expected the xtvm RPC magic b'XRPC' from the client, got b'GET '" in fatal_error(
            sock
        )
    with socket.create_connection((HOST, module_server.port), timeout=10) as sock:
        sock.sendall(bytes(range(256)) * 64)  # before even reading the greeting
    with raw_session(module_server.port) as sock:  # garbage after the handshake: bad JSON
        sock.sendall(struct.pack(">IQ", 8, 0) + b"\xff\xfe{{{{{{")
        assert "frame header is not JSON text" in fatal_error(sock)
    assert_serving(module_server)


def test_a_truncated_frame(module_server):
    with raw_session(module_server.port) as sock:
        sock.sendall(struct.pack(">IQ", 100, 0) + b'{"type": "pi')
        sock.shutdown(socket.SHUT_WR)
        assert (
            "truncated frame header: the peer closed the connection after 12 of 100 bytes"
            in fatal_error(sock)
        )
    assert_serving(module_server)


def test_malformed_requests_end_the_session(module_server):
    cases = {
        b'{"type":"launch_missiles"}': "unknown request 'launch_missiles'",
        b'{"type":"array","value":{"t":"tensor","blob":0,"dtype":"float32","shape":[4]},'
        b'"device":{"type":1,"id":0}}': "tensor blob index 0 is not one of the frame's blobs",
        b'{"type":"empty","shape":[4],"dtype":"float32","device":"cpu"}': "a device must be",
        b'{"type":"ping","release":"all"}': "'release' must be a list of handles",
        b"[1, 2, 3]": 'must be a JSON object with a string "type"',
    }
    for header, expected in cases.items():
        with raw_session(module_server.port) as sock:
            sock.sendall(struct.pack(">IQ", len(header), 0) + header)
            assert expected in fatal_error(sock)
    assert_serving(module_server)


def test_an_oversized_frame_is_refused_before_it_is_read(module_server):
    with raw_session(module_server.port) as sock:
        sock.sendall(struct.pack(">IQ", 20, 10 << 30))
        assert "frame of 10737418260 bytes exceeds the limit of 67108864 bytes" in fatal_error(sock)
    assert_serving(module_server)


def test_an_oversized_upload(launch, tmp_path):
    server = launch("server", "--max-upload-bytes", "100000")
    big = tmp_path / "big.so"
    big.write_bytes(b"\0" * 150_000)
    with rpc.connect(HOST, server.port) as session:
        with pytest.raises(
            rpc.RPCError, match=r"upload 'big.so': 150000 bytes exceed .* limit of 100000 bytes"
        ):
            session.upload(big)
        session.ping()  # a refused upload is not the end of the session
        with pytest.raises(rpc.RPCError, match="no uploaded file named 'big.so'"):
            session.load_module("big.so")
    assert_serving(server)


def test_a_segfaulting_kernel_ends_only_its_session(launch, kernels):
    server = launch("server", "--max-sessions", "1")
    path, _ = kernels["crash"]
    session = rpc.connect(HOST, server.port, timeout=60)
    lib = session.load_module(session.upload(path))
    a, b = session.array(np.ones(4, "float32")), session.empty((4,))
    with pytest.raises(
        rpc.RPCError, match=r"killed by SIGSEGV \(Segmentation fault\): the remote code crashed"
    ):
        lib["crash"](a, b)
    with pytest.raises(rpc.RPCError, match="has ended"):
        session.ping()
    assert_serving(server)
    wait_for(lambda: not any(server.work_dir.iterdir()), what="the session directories to go")


def test_a_client_that_disconnects_mid_call(launch, kernels):
    server = launch("server", "--max-sessions", "1")
    path, _ = kernels["spin"]
    session = rpc.connect(HOST, server.port, timeout=60)
    lib = session.load_module(session.upload(path))
    a, b = session.array(np.ones(4, "float32")), session.empty((4,))
    errors: list[Exception] = []

    def call() -> None:
        try:
            lib["spin"](a, b)
        except rpc.RPCError as err:
            errors.append(err)

    caller = threading.Thread(target=call)
    caller.start()
    time.sleep(0.5)  # the kernel is running
    session._sock.shutdown(socket.SHUT_RDWR)  # the client goes away
    caller.join(timeout=30)
    assert not caller.is_alive() and errors and "connection" in str(errors[0])
    wait_for(
        lambda: "the client disconnected in the middle of a call" in server.log(), what="the kill"
    )
    assert_serving(server)  # its only session slot is free again
    wait_for(lambda: not child_pids(server.pid), what="no session process")


def test_time_limits(launch, kernels):
    server = launch("server", "--session-timeout", "2", "--idle-timeout", "1")
    with rpc.connect(HOST, server.port) as session:
        time.sleep(1.5)
        with pytest.raises(rpc.RPCError, match=r"sent nothing for 1 s \(idle timeout\)"):
            session.ping()
    path, _ = kernels["spin"]
    with rpc.connect(HOST, server.port, timeout=30) as session:
        lib = session.load_module(session.upload(path))
        with pytest.raises(rpc.RPCError, match="ran past its time limit"):
            lib["spin"](session.array(np.ones(4, "float32")), session.empty((4,)))
    assert_serving(server)


def test_binding_beyond_loopback_needs_a_token(capsys):
    from xtvm.rpc import server

    assert server.main(["--host", "0.0.0.0", "--port", "0"]) == 2
    assert "refusing to bind 0.0.0.0 without a token" in capsys.readouterr().err
    from xtvm.rpc.command_line import check_binding

    check_binding("xtvm.rpc.server", "0.0.0.0", "token")
    assert "WARNING: listening on 0.0.0.0" in capsys.readouterr().err
    check_binding("xtvm.rpc.server", "127.0.0.1", None)  # loopback: fine without
    assert xtvm.rpc.protocol.is_loopback("::1") and not xtvm.rpc.protocol.is_loopback("10.0.0.1")


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_no_session_outlives_its_server(launch, how):
    server = launch("server")
    session = rpc.connect(HOST, server.port)
    session.ping()
    (child,) = child_pids(server.pid)
    since = start_time(child)
    server.process.send_signal(how)
    server.process.wait(timeout=15)
    wait_for(lambda: start_time(child) != since, what="the session process to end")
    with pytest.raises(rpc.RPCError):
        session.ping()


@pytest.mark.parametrize("on_load", [False, True], ids=["in-a-call", "on-load"])
def test_a_hand_made_bad_library(launch, tmp_path, on_load):
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler (cc)")
    path = bad_library(tmp_path, on_load)
    server = launch("server", "--max-sessions", "1")
    session = rpc.connect(HOST, server.port, timeout=60)
    name = session.upload(path)
    with pytest.raises(rpc.RPCError, match=r"killed by SIGSEGV"):
        session.load_module(name)["null_write"]()
    assert_serving(server)


def test_a_client_silent_in_the_handshake_is_dropped(launch):
    server = launch("server", "--handshake-timeout", "1", "--max-sessions", "1")
    with socket.create_connection((HOST, server.port), timeout=10) as sock:
        protocol.recv_greeting(sock, "server")
        start = time.monotonic()
        assert sock.recv(1) == b""  # the server hung up on us
        assert time.monotonic() - start < 8
    wait_for(lambda: "refused: timed out" in server.log(), what="the log line")
    assert_serving(server)
