"""The C heap that serves kernels' large buffers.

A kernel's intermediate buffer above `STACK_LIMIT_BYTES` (1 MiB) comes from
`aligned_alloc` at the call and goes back to `free` before it returns: the
Winograd conv's transformed tiles, a wide plane's padded copy. glibc serves
such a block with its own `mmap` until a free raises its dynamic threshold,
and gives the top of the heap back to the system once a free leaves more
than twice that threshold there. A process that runs one such kernel
(a single-conv benchmark, a small model) then faults every page of its
buffers in again on every call: a Winograd 128-channel conv on 112x112 took
22-24 ms instead of 6.9 ms in a fresh process.

`keep_heap_pages` fixes glibc's thresholds once per process, before the
first kernel runs (when a library is loaded, or a graph executor or VM is
created; not while compiling, whose freed IR and arrays would then stay in
the process: VGG-19's cold build peaked at 1,678 MB with it set when the
JIT loads, 1,614 MB without): blocks up to `MMAP_THRESHOLD_BYTES` (glibc's largest,
32 MiB on 64-bit) come from the heap, and the heap's top is given back only
above `TRIM_THRESHOLD_BYTES`. This is what TVM's workspace pool and
onnxruntime's arena do for their kernels, done with the C library's own
knobs: the process keeps up to that much freed memory for reuse.
`XTVM_KEEP_HEAP_PAGES=0` leaves glibc's defaults; on another C library it
does nothing. A program that loads an exported library without the
Python runtime makes the same two `mallopt` calls itself (docs/abi.md).
"""

from __future__ import annotations

import ctypes
import functools
import os

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter numbers (malloc.h)."""

MMAP_THRESHOLD_BYTES = 32 << 20
TRIM_THRESHOLD_BYTES = 256 << 20


@functools.cache
def keep_heap_pages() -> bool:
    """Set glibc's mmap and trim thresholds (once); whether they were set."""
    if os.environ.get("XTVM_KEEP_HEAP_PAGES", "1").strip().lower() in ("0", "off", "no", "false"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    )
