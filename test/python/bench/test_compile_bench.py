"""The compile benchmark's memory figure: :class:`TreeMemory` counts the
benchmarked process's children (the compile workers, the linker) and counts
a page forked children share with their parent once."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np

from xtvm.bench.compile import TreeMemory

_HOLD_200_MB = "import numpy as n, time; a = n.ones(200 << 20, n.uint8); time.sleep(1.5)"


def test_tree_memory_counts_a_child():
    with TreeMemory() as before:
        pass
    with TreeMemory() as tree:
        subprocess.run([sys.executable, "-c", _HOLD_200_MB], check=True)
    assert tree.peak_kb - before.peak_kb > 150 << 10


def test_tree_memory_counts_pages_shared_with_a_forked_child_once():
    held = np.ones(300 << 20, np.uint8)  # resident in this process
    with TreeMemory() as before:
        pass
    with TreeMemory() as tree:  # a forked child maps `held` too, copy on write
        pid = os.fork()
        if pid == 0:
            time.sleep(1.5)
            os._exit(0)
        os.waitpid(pid, 0)
    assert tree.peak_kb - before.peak_kb < 150 << 10
    assert held[-1] == 1


def test_cold_and_warm_of_an_onnx_path_writes_nothing_beside_it(mlp_path):
    from xtvm.bench.compile import cold_and_warm

    before = sorted(p.name for p in mlp_path.parent.iterdir())
    rows = cold_and_warm(str(mlp_path))
    assert [sorted(r) for r in rows["cold"]] == [sorted(r) for r in rows["warm"]]
    assert "error" not in rows["cold"][0] and rows["cold"][0]["cpu_s"] > 0, rows
    assert sorted(p.name for p in mlp_path.parent.iterdir()) == before
