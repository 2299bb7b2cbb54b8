"""The wire format in-process, over socket pairs: frames, typed values, limits,
and the handshake (the token never crosses the wire)."""

from __future__ import annotations

import contextlib
import math
import socket
import struct
import threading

import numpy as np
import pytest

from xtvm.rpc import protocol
from xtvm.rpc.protocol import Limits, ProtocolError, RPCError


def pair():
    a, b = socket.socketpair()
    a.settimeout(10)
    b.settimeout(10)
    return a, b


def test_a_frame_round_trips_with_its_blobs():
    a, b = pair()
    with a, b:
        protocol.send_message(a, {"type": "x", "n": 1}, [b"abc", b"", b"\0" * 5])
        message = protocol.recv_message(b, Limits())
        assert message.header == {"type": "x", "n": 1, "blobs": [3, 0, 5]}
        assert [bytes(m) for m in message.blobs] == [b"abc", b"", b"\0" * 5]


def test_values_round_trip():
    value = [
        1,
        2.5,
        math.inf,
        True,
        None,
        "s",
        b"raw",
        (3, [4]),
        {"k": np.arange(6, dtype="int16").reshape(2, 3)},
        np.float32(1.5),
        np.zeros((0, 3), "float64"),
    ]
    blobs: list = []
    encoded = protocol.encode_value(value, blobs, lambda v: pytest.fail(f"unexpected {v!r}"))
    views = [memoryview(bytes(b)) for b in blobs]
    decoded = protocol.decode_value(encoded, views, lambda v: pytest.fail(f"unexpected {v!r}"))
    assert decoded[:8] == [1, 2.5, math.inf, True, None, "s", b"raw", (3, [4])]
    np.testing.assert_array_equal(decoded[8]["k"], value[8]["k"])
    assert decoded[8]["k"].dtype == np.int16 and decoded[9] == 1.5
    assert decoded[10].shape == (0, 3)


@pytest.mark.parametrize(
    "value, message",
    [
        (
            {"t": "tensor", "blob": 0, "dtype": "float32", "shape": [3]},
            "needs 12 bytes, its blob has 8",
        ),
        (
            {"t": "tensor", "blob": 0, "dtype": "object", "shape": [1]},
            "tensor dtype 'object' is not one of",
        ),
        (
            {"t": "tensor", "blob": 0, "dtype": "int8", "shape": [-8]},
            "not a list of non-negative integers",
        ),
        ({"t": "int", "v": "7"}, "'int' value holds '7'"),
        ({"t": "list", "v": 3}, "'list' value must hold a list"),
        ({"v": 1}, 'must be an object with a string "t"'),
        ({"t": "pickle", "v": "gASV"}, "unknown tag 'pickle'"),
    ],
)
def test_malformed_values_are_protocol_errors(value, message):
    def other(v):
        raise ProtocolError(f"unknown tag '{v['t']}'")

    with pytest.raises(ProtocolError, match=message):
        protocol.decode_value(value, [memoryview(b"\0" * 8)], other)


def test_deep_nesting_is_refused():
    deep: dict = {"t": "none"}
    for _ in range(protocol.MAX_VALUE_DEPTH + 2):
        deep = {"t": "list", "v": [deep]}
    with pytest.raises(ProtocolError, match="nests deeper than"):
        protocol.decode_value(deep, [], lambda v: None)


def test_limits_are_checked_before_reading():
    a, b = pair()
    with a, b:
        a.sendall(struct.pack(">IQ", 2 << 20, 0))
        with pytest.raises(ProtocolError, match="frame header of 2097152 bytes exceeds the limit"):
            protocol.recv_message(b, Limits())
        a.sendall(struct.pack(">IQ", 10, 100))
        with pytest.raises(ProtocolError, match="frame of 110 bytes exceeds the limit of 50 bytes"):
            protocol.recv_message(b, Limits(max_frame_bytes=50))


@pytest.mark.parametrize(
    "data, message",
    [
        (
            struct.pack(">IQ", 10, 0) + b'{"ty',
            "truncated frame header: the peer closed the connection after 4 of 10 bytes",
        ),
        (
            struct.pack(">IQ", 27, 10) + b'{"type":"x","blobs":[10]}  abc',
            "truncated frame body: .* after 3 of 10 bytes",
        ),
        (b"\0\0\0", "truncated frame prefix: .* after 3 of 12 bytes"),
    ],
)
def test_a_truncated_frame_says_so(data, message):
    a, b = pair()
    with b:
        a.sendall(data)
        a.close()
        with pytest.raises(protocol.ConnectionClosed, match=message):
            protocol.recv_message(b, Limits())


def handshake(server_token, client_token, key="k", check=lambda m: None, record=None):
    """Run both sides over a relay that records every byte; (client result, server result)."""
    client_end, relay_a = socket.socketpair()
    relay_b, server_end = socket.socketpair()
    wire = bytearray() if record is None else record
    results: dict[str, object] = {}

    def relay(src, dst):
        try:
            while data := src.recv(65536):
                wire.extend(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)  # close() would not wake the other relay's recv

    def server():
        server_end.settimeout(10)
        try:
            results["server"] = protocol.accept_handshake(
                server_end, server_token, Limits(), check, {"x": 1}
            )
        except RPCError as err:
            results["server"] = err
        server_end.close()

    threads = [
        threading.Thread(target=relay, args=(relay_a, relay_b)),
        threading.Thread(target=relay, args=(relay_b, relay_a)),
        threading.Thread(target=server),
    ]
    for t in threads:
        t.start()
    client_end.settimeout(10)
    try:
        results["client"] = protocol.open_handshake(
            client_end, "server", key, client_token, Limits()
        )
    except RPCError as err:
        results["client"] = err
    client_end.close()
    for t in threads:
        t.join(timeout=10)
    for sock in (relay_a, relay_b):
        sock.close()
    return results["client"], results["server"]


def test_the_handshake_never_sends_the_token():
    wire = bytearray()
    client, server = handshake("tok-en-1234", "tok-en-1234", record=wire)
    assert client.header["x"] == 1 and server.header["key"] == "k"
    assert b"tok-en-1234" not in wire and b"hmac-sha256" in wire


def test_the_handshake_refuses_wrong_tokens_and_keys():
    client, server = handshake("right", "wrong")
    assert "authentication failed" in str(client) and "authentication failed" in str(server)
    client, _ = handshake("right", None)
    assert "requires a token" in str(client)
    client, _ = handshake(None, "right")
    assert "requires no token, but one was given" in str(client)

    def no_k(hello):
        raise RPCError("key mismatch")

    client, server = handshake(None, None, check=no_k)
    assert str(client) == str(server) == "key mismatch"


def test_macs_depend_on_every_input():
    base = ("tok", "client", "n1", "n2", "k")
    mac = protocol.auth_mac(*base)
    for i in range(len(base)):
        changed = list(base)
        changed[i] += "x"
        assert protocol.auth_mac(*changed) != mac
