"""Blocking choices of the x86 kernels, from the target's vector width and
core count.

``relay-alter-op-layout`` packs weights with the output-channel block chosen
here, and the schedules read the block back from the packed weight's last
axis, so the two always agree.
"""

from __future__ import annotations

from collections.abc import Sequence

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


# The grouped 1x1 conv kernel (xtvm.topi.x86.conv2d_grouped)

GROUPED_ACCUMULATORS = 24
"""Most vector accumulators of a grouped kernel's tile, of AVX-512's 32
registers (ShuffleNet's tiles take 17; the rest hold the input vectors)."""


def grouped_flat(height: int, width: int, vector_lanes: int) -> bool:
    """Whether the grouped kernel's vectors run over the flattened plane
    (the register divides it) rather than along its rows."""
    return (height * width) % vector_lanes == 0


def _steps(height: int, width: int, vector_lanes: int) -> tuple[int, int]:
    """``(steps, per_step)``: the vector steps of the plane (registers of
    the flattened plane where the register divides it, else output rows)
    and the vectors of each (1, else those of a row)."""
    if grouped_flat(height, width, vector_lanes):
        return height * width // vector_lanes, 1
    return height, width // row_block(width, vector_lanes)


def tile_vectors(block: int, height: int, width: int, vector_lanes: int) -> int:
    """Vector steps of a register tile of ``block`` channels: the largest
    divisor of the plane's steps keeping the tile within
    :data:`GROUPED_ACCUMULATORS` registers."""
    steps, per_step = _steps(height, width, vector_lanes)
    return max(
        k
        for k in range(1, steps + 1)
        if steps % k == 0 and block * k * per_step <= GROUPED_ACCUMULATORS
    )


def grouped_block(per_group: int, height: int, width: int, vector_lanes: int) -> int:
    """The channels ``b`` of a register tile (the packed block) for groups
    of ``per_group`` output channels on ``height x width`` outputs: the
    divisor of ``per_group`` whose tile (with :func:`tile_vectors`) holds
    the most accumulators, at most :data:`GROUPED_ACCUMULATORS` (ties: more
    channels, fewer input loads a step). When the register divides the
    plane the vectors are registers of the flattened plane, else output
    rows of :func:`row_block` pixels."""
    _, per_step = _steps(height, width, vector_lanes)
    fits = [
        b
        for b in range(1, per_group + 1)
        if per_group % b == 0 and b * per_step <= GROUPED_ACCUMULATORS
    ]
    return max(fits, key=lambda b: (b * tile_vectors(b, height, width, vector_lanes), b))


def takes_grouped_kernel(
    groups: int,
    channels: int,
    out_channels: int,
    kernel: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    out_height: int,
    out_width: int,
    vector_lanes: int,
) -> bool:
    """Whether a float conv runs the grouped kernel
    (:func:`xtvm.topi.x86.conv2d_grouped.conv2d_grouped`): grouped but not
    depthwise, 1x1 with stride 1 and no padding, groups whose output
    channels the register does not divide (else the packed kernel's
    channel blocks waste nothing); on a plane the register divides, or on
    rows that :func:`row_block` divides into vectors of at least 14 pixels
    (most of a register: 7x7 planes keep the packed kernel, its vectors
    across the channels); on AVX-512 (32 registers for its 17-channel
    tiles: AVX2 keeps the packed kernel)."""
    return (
        vector_lanes >= 16
        and 1 < groups < channels
        and out_channels % groups == 0
        and (out_channels // groups) % vector_lanes != 0
        and tuple(kernel) == (1, 1)
        and tuple(strides) == (1, 1)
        and not any(padding)
        and (
            grouped_flat(out_height, out_width, vector_lanes)
            or _row_vectors(out_width, vector_lanes)
        )
    )


def _row_vectors(width: int, vector_lanes: int) -> bool:
    row = row_block(width, vector_lanes)
    return (
        width % row == 0 and row >= min(14, vector_lanes) and width // row <= GROUPED_ACCUMULATORS
    )
