"""What the register-tiled x86 schedules share."""

from __future__ import annotations

import math

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


def reduction_flops(tensor) -> float:
    """2 × the multiply-accumulates of a reduction compute (a template's
    ``cfg.add_flop``): every output element times every reduction step."""
    steps = math.prod(axis.extent for axis in tensor.op.reduce_axis)
    return 2.0 * math.prod(tensor.shape) * steps


def tile_candidates(extent: int, default: int, low: int = 4, high: int = 32) -> list[int]:
    """Inner tile sizes a template offers for a loop of ``extent``: the
    hand-written ``default`` first, then the divisors of ``extent`` in
    ``[low, high]`` (the whole loop when it is shorter than ``low``)."""
    divisors = [d for d in range(min(low, extent), min(high, extent) + 1) if extent % d == 0]
    return list(dict.fromkeys([default, *divisors]))
