"""Static memory planning on lifetimes: no IR here, only intervals and bytes.

A tensor is a :class:`Lifetime`: its size and the op indices ``[start, end]``
during which its bytes must stay intact (``start`` is the op that writes it,
``end`` the last op that reads it). Two tensors *conflict* when these closed
intervals intersect; in particular a kernel's input (``end == i``) and its
output (``start == i``) conflict, so a kernel never writes over what it reads.

Two planners:

* :func:`plan_storage_ids` — TVM's ``GraphPlanMemory``: walk tensors in
  program order, return a storage to a free list when its tensor dies, and
  give each new tensor the best-fitting free storage (TVM's ``match_range``
  rule), growing it if needed. The result is a storage id per tensor.
* :func:`plan_arena` — one static arena (TVM's ``StaticMemoryPlan`` /
  USMP ``greedy_by_size``): place tensors largest first, each at the lowest
  aligned offset that overlaps no already-placed conflicting tensor. The
  storage-id plan laid out back to back is the fallback, so the arena is
  never larger than either that or one buffer per tensor.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Lifetime:
    """A tensor of ``nbytes`` bytes live from op ``start`` to op ``end`` (inclusive)."""

    start: int
    end: int
    nbytes: int

    def conflicts(self, other: Lifetime) -> bool:
        """Whether both must be intact at some op (closed intervals intersect)."""
        return self.start <= other.end and other.start <= self.end


def align_up(n: int, alignment: int) -> int:
    """``n`` rounded up to a multiple of ``alignment``."""
    return -(-n // alignment) * alignment


def naive_bytes(lifetimes: Sequence[Lifetime], alignment: int) -> int:
    """Bytes of one aligned buffer per tensor (no sharing at all)."""
    return sum(align_up(t.nbytes, alignment) for t in lifetimes)


def plan_storage_ids(
    lifetimes: Sequence[Lifetime], match_range: int = 16
) -> tuple[list[int], list[int]]:
    """Storage-id reuse (TVM's ``GraphPlanMemory``).

    Returns the storage id of each tensor and the byte size of each storage
    (the largest tensor it holds). A free storage of size ``s`` is reused for
    a tensor of ``n`` bytes if ``n <= s <= n * match_range`` (smallest such
    ``s``) or else ``n / match_range <= s < n`` (largest such ``s``, which
    then grows to ``n``); otherwise a new storage is made.
    """
    order = sorted(range(len(lifetimes)), key=lambda i: (lifetimes[i].start, i))
    ids = [-1] * len(lifetimes)
    sizes: list[int] = []
    free: set[int] = set()
    live: list[tuple[int, int]] = []  # heap of (end, storage id)
    for i in order:
        t = lifetimes[i]
        while live and live[0][0] < t.start:
            free.add(heapq.heappop(live)[1])
        sid = _best_fit(t.nbytes, free, sizes, match_range)
        if sid is None:
            sid = len(sizes)
            sizes.append(t.nbytes)
        else:
            free.discard(sid)
            sizes[sid] = max(sizes[sid], t.nbytes)
        ids[i] = sid
        heapq.heappush(live, (t.end, sid))
    return ids, sizes


def _best_fit(nbytes: int, free: set[int], sizes: list[int], match_range: int) -> int | None:
    larger = [
        (sizes[s], s) for s in free if nbytes <= sizes[s] <= nbytes * match_range
    ]
    if larger:
        return min(larger)[1]
    smaller = [
        (sizes[s], -s) for s in free if nbytes <= sizes[s] * match_range and sizes[s] < nbytes
    ]
    if smaller:
        return -max(smaller)[1]
    return None


def plan_arena(lifetimes: Sequence[Lifetime], alignment: int = 64) -> tuple[list[int], int]:
    """Byte offsets in one arena (multiples of ``alignment``) and its size.

    Greedy by size: largest tensors first (ties by start), each at the lowest
    offset where it overlaps no conflicting tensor placed before it. If the
    storage-id plan, laid out back to back, needs fewer bytes, that layout
    is returned instead.
    """
    order = sorted(
        range(len(lifetimes)), key=lambda i: (-lifetimes[i].nbytes, lifetimes[i].start, i)
    )
    offsets = [0] * len(lifetimes)
    placed: list[int] = []
    for i in order:
        t = lifetimes[i]
        busy = sorted(
            (offsets[j], offsets[j] + lifetimes[j].nbytes)
            for j in placed
            if t.conflicts(lifetimes[j])
        )
        offset = 0
        for lo, hi in busy:
            if lo >= offset + t.nbytes:
                break
            offset = max(offset, align_up(hi, alignment))
        offsets[i] = offset
        placed.append(i)
    total = _extent(lifetimes, offsets, alignment)

    ids, sizes = plan_storage_ids(lifetimes)
    bases = [0] * len(sizes)
    for sid in range(1, len(sizes)):
        bases[sid] = bases[sid - 1] + align_up(sizes[sid - 1], alignment)
    packed = [bases[sid] for sid in ids]
    packed_total = _extent(lifetimes, packed, alignment)
    if packed_total < total:
        return packed, packed_total
    return offsets, total


def _extent(lifetimes: Sequence[Lifetime], offsets: Sequence[int], alignment: int) -> int:
    ends = (o + t.nbytes for o, t in zip(offsets, lifetimes, strict=True))
    return align_up(max(ends, default=0), alignment)
