"""The planning algorithms on plain lifetimes (no IR)."""

import random

import pytest

from xtvm.passes.memory.planner import (
    Lifetime,
    align_up,
    naive_bytes,
    plan_arena,
    plan_storage_ids,
)


def check_arena(
    lifetimes: list[Lifetime], offsets: list[int], total: int, alignment: int
) -> None:
    for i, a in enumerate(lifetimes):
        assert offsets[i] % alignment == 0
        assert offsets[i] + a.nbytes <= total
        for j in range(i):
            b = lifetimes[j]
            if a.conflicts(b) and a.nbytes and b.nbytes:
                below = offsets[i] + a.nbytes <= offsets[j]
                above = offsets[j] + b.nbytes <= offsets[i]
                assert below or above, f"{a} at {offsets[i]} overlaps {b} at {offsets[j]}"


def check_storage_ids(lifetimes: list[Lifetime], ids: list[int], sizes: list[int]) -> None:
    for i, a in enumerate(lifetimes):
        assert sizes[ids[i]] >= a.nbytes
        for j in range(i):
            if a.conflicts(lifetimes[j]):
                assert ids[i] != ids[j], f"{a} and {lifetimes[j]} share storage {ids[i]}"


def random_lifetimes(rng: random.Random, n: int) -> list[Lifetime]:
    out = []
    for _ in range(n):
        start = rng.randint(0, 30)
        nbytes = rng.choice([0, 4, 60, 64, 100, 4096])
        out.append(Lifetime(start, start + rng.randint(0, 8), nbytes))
    return out


@pytest.mark.parametrize("seed", range(200))
def test_random_lifetimes(seed: int) -> None:
    rng = random.Random(seed)
    lifetimes = random_lifetimes(rng, rng.randint(0, 25))
    alignment = rng.choice([1, 16, 64])
    offsets, total = plan_arena(lifetimes, alignment)
    check_arena(lifetimes, offsets, total, alignment)
    assert total <= naive_bytes(lifetimes, alignment)
    ids, sizes = plan_storage_ids(lifetimes)
    check_storage_ids(lifetimes, ids, sizes)
    assert sum(align_up(s, alignment) for s in sizes) <= naive_bytes(lifetimes, alignment)


@pytest.mark.parametrize("n", [2, 3, 7, 50])
def test_chain_of_equal_tensors_needs_two_slots(n: int) -> None:
    # Kernel i reads tensor i-1 and writes tensor i.
    chain = [Lifetime(i, i + 1, 1000) for i in range(n)]
    ids, sizes = plan_storage_ids(chain)
    assert ids == [i % 2 for i in range(n)]
    assert sizes == [1000, 1000]
    offsets, total = plan_arena(chain, 64)
    assert total == 2 * 1024
    assert all(offsets[i] != offsets[i + 1] for i in range(n - 1))


def test_a_kernels_input_and_output_never_share() -> None:
    # The input's last read is the op that writes the output.
    x, y = Lifetime(0, 3, 64), Lifetime(3, 5, 64)
    assert x.conflicts(y)
    assert plan_storage_ids([x, y])[0] == [0, 1]
    assert plan_arena([x, y])[0] == [0, 64]


def test_best_fit_takes_the_smallest_large_enough_storage() -> None:
    big, small, probe = Lifetime(0, 0, 4000), Lifetime(0, 0, 600), Lifetime(1, 1, 500)
    ids, sizes = plan_storage_ids([big, small, probe])
    assert ids == [0, 1, 1]
    assert sizes == [4000, 600]


def test_a_smaller_free_storage_grows_within_match_range() -> None:
    ids, sizes = plan_storage_ids([Lifetime(0, 0, 100), Lifetime(1, 1, 1600)])
    assert ids == [0, 0] and sizes == [1600]
    # Beyond match_range (16x) a new storage is made instead.
    ids, sizes = plan_storage_ids([Lifetime(0, 0, 100), Lifetime(1, 1, 1700)])
    assert ids == [0, 1] and sizes == [100, 1700]
    ids, sizes = plan_storage_ids([Lifetime(0, 0, 100_000), Lifetime(1, 1, 10)])
    assert ids == [0, 1]


def test_arena_puts_non_overlapping_tensors_at_the_same_offset() -> None:
    a, b, c = Lifetime(0, 1, 256), Lifetime(1, 2, 256), Lifetime(2, 3, 256)
    offsets, total = plan_arena([a, b, c], 64)
    assert offsets == [0, 256, 0] and total == 512


def test_arena_falls_back_to_the_storage_id_layout_when_smaller() -> None:
    # Greedy by size puts %b at 0, %d at 256, %c at 0, and then finds no
    # 128-byte hole for %a below 512 (640 bytes). The storage-id plan (%a
    # reuses %b's slot, %c reuses %d's) laid out back to back needs 512.
    a, b = Lifetime(3, 6, 128), Lifetime(2, 2, 256)
    c, d = Lifetime(6, 7, 192), Lifetime(2, 5, 256)
    offsets, total = plan_arena([a, b, c, d], 64)
    check_arena([a, b, c, d], offsets, total, 64)
    assert total == 512
    assert offsets == [0, 0, 256, 256]


def test_empty_plan() -> None:
    assert plan_arena([], 64) == ([], 0)
    assert plan_storage_ids([]) == ([], [])
