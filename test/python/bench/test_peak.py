"""The FMA peak loop computes what it claims (so the time it takes is
``flops(n)`` FLOPs), and the peak is a positive rate."""

import math

from xtvm.bench.peak import ACCUMULATORS, FmaLoop, fma_peak_gflops


def test_the_loop_does_n_fmas_per_chain():
    loop = FmaLoop()
    s = 0.5
    for n in (1, 7, 1000):
        # each chain: n times a += s * 2s, from 0; lane 0 of their sum
        assert loop.run(n, s) == ACCUMULATORS * n * 2 * s * s
    assert loop.flops(10) == 2 * loop.lanes * ACCUMULATORS * 10


def test_the_peak_is_a_positive_rate():
    peak = fma_peak_gflops(seconds=0.01, rounds=2)
    assert math.isfinite(peak) and peak > 0
