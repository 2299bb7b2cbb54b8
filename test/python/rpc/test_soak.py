"""Sessions in sequence leave nothing behind: no session process, no session
directory, no open descriptor in the server or in the client."""

from __future__ import annotations

import os

import numpy as np
import pytest
from rpc_helpers import HOST, child_pids, open_fds, wait_for

from xtvm import rpc


def soak(server, library, count: int) -> None:
    def one_session() -> None:
        with rpc.connect(HOST, server.port, timeout=30) as session:
            lib = session.load_module(session.upload(library))
            a = session.array(np.arange(4, dtype="float32"))
            b = session.empty((4,))
            lib["double"](a, b)
            np.testing.assert_array_equal(b.numpy(), [0, 2, 4, 6])

    one_session()  # imports and caches warmed up
    wait_for(lambda: not child_pids(server.pid), what="the first session process to be reaped")
    server_fds, own_fds = open_fds(server.pid), open_fds(os.getpid())
    for _ in range(count):
        one_session()
    wait_for(lambda: not child_pids(server.pid), what="every session process to be reaped")
    wait_for(lambda: not any(server.work_dir.iterdir()), what="every session directory to go")
    assert open_fds(server.pid) == server_fds
    assert open_fds(os.getpid()) == own_fds
    assert server.alive()
    assert server.log().count(": closed by the client") == count + 1


def test_twenty_sessions_in_sequence(launch, kernels):
    soak(launch("server", "--max-sessions", "1"), kernels["double"][0], 20)


@pytest.mark.slow
def test_two_hundred_sessions_in_sequence(launch, kernels):
    soak(launch("server", "--max-sessions", "1"), kernels["double"][0], 200)
