"""Layout and data-movement computes (TVM's ``topi.broadcast_to``,
``topi.tile``, ``topi.reverse_sequence``, ``topi.nn.pad``,
``topi.nn.depth_to_space``, ``topi.nn.space_to_depth``)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import IntImm, PrimExpr
from xtvm.topi.tensor import broadcast_extent, broadcast_indices


def broadcast_to(x: te.Tensor, shape: Sequence[int]) -> te.Tensor:
    """``x`` broadcast to ``shape`` with NumPy rules (a dynamic axis of ``x``
    must be 1 or the target's extent: :func:`broadcast_extent`)."""
    shape = tuple(shape)
    for size, target in zip(reversed(x.shape), reversed(shape)):
        if not isinstance(size, int) and target != 1:
            broadcast_extent(size, target)
    return te.compute(
        shape,
        lambda *i: x[broadcast_indices(x.shape, shape, i)],
        name="T_broadcast_to",
        tag="broadcast",
    )


def tile(x: te.Tensor, reps: Sequence[int]) -> te.Tensor:
    """``x`` repeated ``reps[d]`` times along each axis (``reps`` and the
    shape aligned on the right, missing entries being 1)."""
    rank = max(x.ndim, len(reps))
    shape = [1] * (rank - x.ndim) + list(x.shape)
    reps = [1] * (rank - len(reps)) + list(reps)
    out = tuple(n * r for n, r in zip(shape, reps))
    lead = rank - x.ndim

    def element(*i: PrimExpr) -> PrimExpr:
        own = zip(i[lead:], x.shape, reps[lead:])
        return x[[te.truncmod(k, n) if r != 1 else k for k, n, r in own]]

    return te.compute(out, element, name="T_tile", tag="injective")


def reverse_sequence(
    x: te.Tensor, seq_lengths: te.Tensor, seq_axis: int = 1, batch_axis: int = 0
) -> te.Tensor:
    """The first ``seq_lengths[b]`` elements along ``seq_axis`` of each batch
    entry ``b`` reversed; lengths are clamped to ``[0, size]``."""
    if not dt.is_int(seq_lengths.dtype):
        raise TypeError(
            f"reverse_sequence: seq_lengths must be integers, got {seq_lengths.dtype}"
        )
    seq_axis %= x.ndim
    batch_axis %= x.ndim
    size = x.shape[seq_axis]

    def element(*i: PrimExpr) -> PrimExpr:
        length = te.min(te.max(seq_lengths[i[batch_axis]].astype("index"), 0), size)
        t = i[seq_axis]
        source = te.eager_select(t < length, length - 1 - t, t)
        return x[(*i[:seq_axis], source, *i[seq_axis + 1 :])]

    return te.compute(x.shape, element, name="T_reverse_sequence", tag="injective")


def _pad_source(i: PrimExpr, before: int, size: int, mode: str) -> PrimExpr:
    """The input index an output index ``i`` reads along one axis, for the
    modes that read the input everywhere."""
    src = i - before
    if mode == "edge":
        return te.min(te.max(src, 0), size - 1)
    if mode == "wrap":
        return te.floormod(src, size)
    period = 2 * (size - 1)  # reflect
    if period == 0:
        return IntImm(0, "index")
    m = te.floormod(src, period)
    return te.eager_select(m < size, m, period - m)


def pad(
    x: te.Tensor, pad_value: te.Tensor, pad_width: Sequence[int], pad_mode: str = "constant"
) -> te.Tensor:
    """``x`` padded by ``pad_width = [before_0, after_0, ...]`` (negative
    widths crop) with ``pad_value[()]`` (``"constant"``) or by edge
    replication, reflection or wrapping."""
    pairs = [(pad_width[2 * d], pad_width[2 * d + 1]) for d in range(x.ndim)]
    shape = tuple(n + b + a for n, (b, a) in zip(x.shape, pairs))
    if pad_mode == "constant" and 0 in x.shape:  # nothing to read: all padding

        def element(*i: PrimExpr) -> PrimExpr:
            return pad_value[()]

    elif pad_mode == "constant":

        def element(*i: PrimExpr) -> PrimExpr:
            src = [i[d] - b for d, (b, _) in enumerate(pairs)]
            # Only a positive width reaches outside the input (a negative one crops).
            inside = [src[d] >= 0 for d, (b, _) in enumerate(pairs) if b > 0]
            inside += [src[d] < x.shape[d] for d, (_, a) in enumerate(pairs) if a > 0]
            if not inside:
                return x[src]
            cond = inside[0]
            for c in inside[1:]:
                cond = cond & c
            # The read is clamped into the input, so both values can be computed.
            clamped = list(src)
            for d, (b, a) in enumerate(pairs):
                clamped[d] = te.max(clamped[d], 0) if b > 0 else clamped[d]
                clamped[d] = te.min(clamped[d], x.shape[d] - 1) if a > 0 else clamped[d]
            return te.eager_select(cond, x[clamped], pad_value[()])

    elif pad_mode in ("edge", "reflect", "wrap"):

        def element(*i: PrimExpr) -> PrimExpr:
            return x[
                [_pad_source(i[d], b, x.shape[d], pad_mode) for d, (b, _) in enumerate(pairs)]
            ]

    else:
        raise ValueError(f"pad: unknown mode {pad_mode!r}")
    return te.compute(shape, element, name="T_pad", tag="injective")


def depth_to_space(x: te.Tensor, block_size: int, mode: str = "DCR") -> te.Tensor:
    """NCHW ``[N, C, H, W]`` → ``[N, C / b**2, H * b, W * b]``."""
    b = block_size
    n, c, h, w = x.shape
    depth = c // (b * b)

    def element(i: PrimExpr, k: PrimExpr, y: PrimExpr, z: PrimExpr) -> PrimExpr:
        row, col = te.truncmod(y, b), te.truncmod(z, b)
        channel = (row * b + col) * depth + k if mode == "DCR" else (k * b + row) * b + col
        return x[i, channel, te.truncdiv(y, b), te.truncdiv(z, b)]

    shape = (n, depth, h * b, w * b)
    return te.compute(shape, element, name="T_depth_to_space", tag="injective")


def space_to_depth(x: te.Tensor, block_size: int, mode: str = "DCR") -> te.Tensor:
    """NCHW ``[N, C, H, W]`` → ``[N, C * b**2, H / b, W / b]``."""
    b = block_size
    n, c, h, w = x.shape

    def element(i: PrimExpr, k: PrimExpr, y: PrimExpr, z: PrimExpr) -> PrimExpr:
        if mode == "DCR":  # k = (row * b + col) * c + channel
            channel, block = te.truncmod(k, c), te.truncdiv(k, c)
        else:  # k = channel * b * b + row * b + col
            channel, block = te.truncdiv(k, b * b), te.truncmod(k, b * b)
        row, col = te.truncdiv(block, b), te.truncmod(block, b)
        return x[i, channel, y * b + row, z * b + col]

    shape = (n, c * b * b, h // b, w // b)
    return te.compute(shape, element, name="T_space_to_depth", tag="injective")
