"""`keep_heap_pages`: after it, a kernel's two large buffers freed and
allocated again reuse the process's pages instead of faulting them in anew
(glibc's defaults give the top of the heap back once the freed blocks are
more than twice its dynamic threshold, and every call faults them in)."""

from __future__ import annotations

import subprocess
import sys

import pytest

_FAULTS_OF_THE_SECOND_BLOCK = """
import ctypes, resource, sys
from xtvm.runtime.allocator import keep_heap_pages
if sys.argv[1] == "keep":
    assert keep_heap_pages()
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
n = 14 << 20
def touch():  # a kernel's two buffers (a Winograd conv's transformed input and product)
    blocks = [libc.malloc(n), libc.malloc(n)]
    for p in blocks:
        ctypes.memset(p, 1, n)
    for p in blocks:
        libc.free(p)
touch()
touch()  # the first frees have raised glibc's dynamic threshold to n
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
touch()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _FAULTS_OF_THE_SECOND_BLOCK, mode],
        check=True, capture_output=True, text=True,
    )
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_large_blocks_keep_their_pages():
    pages = 2 * (14 << 20) // 4096
    assert _faults("default") > pages // 2  # glibc's defaults: faulted in on every use
    assert _faults("keep") < pages // 20


def test_the_environment_turns_it_off(monkeypatch):
    from xtvm.runtime import allocator

    allocator.keep_heap_pages.cache_clear()
    monkeypatch.setenv("XTVM_KEEP_HEAP_PAGES", "0")
    try:
        assert allocator.keep_heap_pages() is False
    finally:
        allocator.keep_heap_pages.cache_clear()
