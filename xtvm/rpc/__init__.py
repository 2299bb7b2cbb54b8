"""xtvm RPC: run and time compiled modules in another process or on another machine.

    remote = xtvm.rpc.connect("127.0.0.1", 9090, key="x86-avx512", token=token)
    tracker = xtvm.rpc.connect_tracker("127.0.0.1", 9190)
    remote = tracker.request("x86-avx512", priority=1, session_timeout=60)

The server (``python -m xtvm.rpc.server``) and the tracker
(``python -m xtvm.rpc.tracker``) are safe by default: loopback only unless
given a token, HMAC challenge-response, one process per session, size and
time limits. What a connected client can do, and why, is in docs/rpc.md.
Everything here runs on the runtime only (no compiler). Attributes are
imported on first use, so ``python -m xtvm.rpc.server`` loads only what the
server needs.
"""

import importlib
from typing import Any

# Attribute name -> module defining it.
_LAZY: dict[str, str] = {
    "Measurement": "xtvm.rpc.measure",
    "measure": "xtvm.rpc.measure",
    "ProtocolError": "xtvm.rpc.protocol",
    "RPCError": "xtvm.rpc.protocol",
    "RPCSession": "xtvm.rpc.client",
    "RemoteDevice": "xtvm.rpc.client",
    "RemoteFunc": "xtvm.rpc.client",
    "RemoteModule": "xtvm.rpc.client",
    "RemoteNDArray": "xtvm.rpc.client",
    "connect": "xtvm.rpc.client",
    "TrackerSession": "xtvm.rpc.tracker",
    "connect_tracker": "xtvm.rpc.tracker",
}

__all__ = [
    "Measurement",
    "ProtocolError",
    "RPCError",
    "RPCSession",
    "RemoteDevice",
    "RemoteFunc",
    "RemoteModule",
    "RemoteNDArray",
    "TrackerSession",
    "connect",
    "connect_tracker",
    "measure",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'xtvm.rpc' has no attribute '{name}'")
    return getattr(importlib.import_module(_LAZY[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
