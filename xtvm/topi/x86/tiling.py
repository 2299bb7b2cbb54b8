"""What the register-tiled x86 schedules share."""

from __future__ import annotations

from xtvm.schedule import CacheWriteLoops, Schedule


def vectorize_tile(sch: Schedule, nests: CacheWriteLoops) -> None:
    """In each nest ``cache_write`` made (init, update, write-back), vectorize
    the innermost tile loop and unroll the others, so that the accumulator
    lives in vector registers."""
    for loops in (nests.init, nests.update, nests.writeback):
        *outer, inner = loops
        sch.vectorize(inner)
        for loop in outer:
            sch.unroll(loop)
