"""Blocking choices of the x86 kernels, from the target's vector width and
core count.

``relay-alter-op-layout`` packs weights with the output-channel block chosen
here, and the schedules read the block back from the packed weight's last
axis, so the two always agree.
"""

from __future__ import annotations

from xtvm.target import Target


def lanes(target: Target | None = None, dtype_bits: int = 32) -> int:
    """Elements of ``dtype_bits`` in one vector register of the target
    (default: ``Target.current()``)."""
    target = target or Target.current()
    return max(target.vector_width // dtype_bits, 1)


VNNI_CPUS = frozenset(
    {
        *("cascadelake", "cooperlake", "icelake-server", "icelake-client", "tigerlake"),
        *("sapphirerapids", "emeraldrapids", "graniterapids", "znver4", "znver5"),
    }
)
"""Named CPUs with AVX-512 VNNI (a non-host target's features are only its ``-mattr``)."""


def has_vnni(target: Target | None = None) -> bool:
    """Whether the target (default: ``Target.current()``) has AVX-512 VNNI
    (``vpdpbusd`` on zmm registers), which the int8 kernels need."""
    target = target or Target.current()
    if "avx512vnni" in target.features:
        return True
    return not target.is_host_cpu and target.mcpu in VNNI_CPUS and "-avx512vnni" not in target.mattr


def use_threads(target: Target | None = None) -> bool:
    """Whether schedules should make loops parallel: unless the target
    (default: ``Target.current()``) says ``-num-cores=1``."""
    return (target or Target.current()).num_cores != 1


def _largest_divisor(n: int, limit: int) -> int:
    """The largest power of two up to ``limit`` that divides ``n``."""
    block = 1
    while block * 2 <= limit and n % (block * 2) == 0:
        block *= 2
    return block


def conv2d_block(out_channels_per_group: int, vector_lanes: int) -> int:
    """Output channels per packed block of a conv2d: ``vector_lanes`` (one
    register), or the largest power of two below that divides the channels."""
    return _largest_divisor(out_channels_per_group, vector_lanes)


def dense_block(units: int, vector_lanes: int) -> int:
    """Output units per packed block of a dense layer."""
    return _largest_divisor(units, vector_lanes)


def row_block(width: int, limit: int = 16) -> int:
    """Output pixels per register tile of a conv2d row: the divisor of
    ``width`` in ``[limit/2, limit]`` closest to ``limit`` if there is one,
    else ``limit`` (the last tile is then partial and guarded), or the
    whole row when it is shorter than ``limit``."""
    if width <= limit:
        return width
    for block in range(limit, limit // 2 - 1, -1):
        if width % block == 0:
            return block
    return limit
