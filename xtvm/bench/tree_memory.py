"""The peak memory of a process and its descendants together, sampled by a
process of its own: ``python tree_memory.py ROOT_PID INTERVAL`` prints
``ready`` after its first sample, samples every ``INTERVAL`` seconds until
its stdin closes, then prints ``<peak KiB> <its CPU seconds since ready>``.

The figure is the sum of the processes' proportional set sizes (``Pss`` of
``/proc/<pid>/smaps_rollup``), in which a page shared by n processes counts
1/n in each: a compile's worker processes are forked, and each one's
resident size counts every page it shares with the parent.

It runs as a script (no ``xtvm`` import, nothing but the standard library)
in a process of its own, not as a thread of the measured one: a sampling
thread held the measured process's GIL while it read ``/proc`` (every 20 ms,
about 2.5 s of a 9 s cold ResNet-50 build). The sampler leaves itself out
of the tree; its CPU time is printed so the caller can leave that out too
(it is the caller's child)."""

from __future__ import annotations

import os
import select
import sys


def tree(root: int) -> list[int]:
    """``root`` and its descendants (read from ``/proc/<pid>/stat``)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += parents.get(pid, [])
    return found


def pss_kb(pid: int) -> int:
    """``pid``'s proportional set size in KiB (0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_s() -> float:
    times = os.times()
    return times.user + times.system


def sample(root: int, interval: float) -> None:
    """Sample ``root``'s tree until stdin closes; print the peak and the CPU
    time spent since the first sample (the caller's clock starts then)."""
    me, peak, start = os.getpid(), 0, None
    while True:
        peak = max(peak, sum(pss_kb(pid) for pid in tree(root) if pid != me))
        if start is None:
            print("ready", flush=True)
            start = _cpu_s()
        readable, _, _ = select.select([sys.stdin], [], [], interval)
        if readable and not sys.stdin.read(1):  # closed: the measured work is done
            break
    print(peak, _cpu_s() - start, flush=True)


if __name__ == "__main__":
    sample(int(sys.argv[1]), float(sys.argv[2]))
