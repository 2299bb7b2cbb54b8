"""Command-line pieces the server and the tracker share: where to listen, the token,
and the refusal to bind a non-loopback address without one."""

from __future__ import annotations

import argparse
import sys

from xtvm.rpc.protocol import is_loopback
from xtvm.runtime.base import XTVMError


def host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got '{text}'")
    return host, int(port)


def add_common_arguments(parser: argparse.ArgumentParser, default_port: int) -> None:
    """The options the server and the tracker share: where to listen, and the token."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=default_port, help="port (0: any free port)")
    parser.add_argument(
        "--token-file",
        help="file holding the shared token clients must prove they hold (required to bind "
        "anything but loopback)",
    )


def check_binding(prog: str, host: str, token: str | None) -> None:
    """Refuse a non-loopback address without a token; warn with one."""
    if is_loopback(host):
        return
    if token is None:
        raise XTVMError(
            f"refusing to bind {host} without a token: anyone who can reach it could run "
            "arbitrary code as this user. Pass --token-file, or bind 127.0.0.1 and reach it "
            "through an SSH tunnel"
        )
    print(
        f"{prog}: WARNING: listening on {host}: every client that holds the token can run "
        "arbitrary code as this user; keep the token secret and the network trusted",
        file=sys.stderr,
        flush=True,
    )
