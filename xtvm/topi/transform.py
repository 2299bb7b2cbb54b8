"""Shape and layout computes (TVM's ``topi/transform.py``): reshape,
transpose, concatenate, split, squeeze, expand_dims."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import IntImm, PrimExpr, Var
from xtvm.te.symbolic import Dim, format_dim, is_static


def _strides(shape: Sequence[Dim]) -> list[Dim]:
    strides: list[Dim] = []
    acc: Dim = 1
    for d in reversed(shape):
        strides.append(acc)
        acc = acc * d
    return strides[::-1]


def resolve_reshape(
    shape: Sequence[Dim], target: Sequence[int | None], copied: int = 0
) -> tuple[Dim, ...]:
    """The extents of a reshape of ``shape`` to ``target`` (resolved static
    extents, None for an axis dynamic in the result type) when ``shape`` has
    one shape variable ``n``: the one dynamic result axis is ``n`` times the
    ratio of the static element counts, which must divide (``?x3x4`` →
    ``?x12``: ``n``; ``?x12`` → ``?x2x6``: ``n``), or whose first
    ``copied`` axes the reshape copies and whose other axes have at most one
    (``?x?x64`` → ``[0, 0, 4, 16]``). A ``ValueError`` when the dynamic axis
    does not map through."""
    if is_static(shape):
        if None in target:
            raise ValueError(f"reshape: a static {list(shape)} has no dynamic result axis")
        return tuple(target)  # type: ignore[arg-type]
    if copied and any(not isinstance(d, int) for d in shape[:copied]):
        # Leading axes the newshape copies (relay's `0`: `?x?x64` → `[0, 0,
        # 4, 16]`) are the input's own: the rest reshapes row by row.
        return (*shape[:copied], *resolve_reshape(shape[copied:], target[copied:]))
    dynamic = [d for d in shape if not isinstance(d, int)]
    holes = [k for k, d in enumerate(target) if d is None]
    known_in = math.prod(d for d in shape if isinstance(d, int))
    known_out = math.prod(d for d in target if d is not None)
    what = f"reshape: {[format_dim(d) for d in shape]} to {['?' if d is None else d for d in target]}"
    if len(dynamic) != 1 or len(holes) != 1 or not isinstance(dynamic[0], Var):
        raise ValueError(f"{what}: only one dynamic axis can map through a reshape")
    if known_out == 0 or known_in % known_out:
        raise ValueError(
            f"{what}: the static extents ({known_in} and {known_out}) do not divide, so the "
            "dynamic axis does not map through"
        )
    out: list[Dim] = [d for d in target]  # type: ignore[misc]
    out[holes[0]] = dynamic[0] * (known_in // known_out)
    return tuple(out)


def reshape(x: te.Tensor, newshape: Sequence[Dim]) -> te.Tensor:
    """``x`` with the same elements in row-major order and shape ``newshape``
    (fully resolved: no ``0`` or ``-1``; a dynamic shape's extents from
    :func:`resolve_reshape`)."""
    newshape = tuple(newshape)
    if (
        is_static(newshape)
        and is_static(x.shape)
        and (math.prod(newshape) != math.prod(x.shape) or any(d < 0 for d in newshape))
    ):
        raise ValueError(f"reshape: cannot reshape {list(x.shape)} to {list(newshape)}")
    out_strides, in_strides = _strides(newshape), _strides(x.shape)

    def element(*i: PrimExpr) -> PrimExpr:
        flat: PrimExpr = IntImm(0, "index")
        for index, stride in zip(i, out_strides):
            flat = flat + index * stride
        # Indices are non-negative, so truncating division is floor division.
        src = []
        for d, (size, stride) in enumerate(zip(x.shape, in_strides)):
            q = te.truncdiv(flat, stride)
            src.append(q if d == 0 else te.truncmod(q, size))
        return x[src]

    return te.compute(newshape, element, name="T_reshape", tag="injective")


def transpose(x: te.Tensor, axes: Sequence[int] | None = None) -> te.Tensor:
    """``x`` with axes permuted: output axis ``d`` is input axis ``axes[d]``
    (reversed when ``axes`` is None)."""
    perm = list(reversed(range(x.ndim))) if axes is None else [a % x.ndim for a in axes]
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"transpose: {list(axes or ())} is not a permutation of rank {x.ndim}")
    shape = tuple(x.shape[a] for a in perm)

    def element(*i: PrimExpr) -> PrimExpr:
        src: list[PrimExpr] = [IntImm(0, "index")] * x.ndim
        for out_axis, in_axis in enumerate(perm):
            src[in_axis] = i[out_axis]
        return x[src]

    return te.compute(shape, element, name="T_transpose", tag="injective")


def concatenate(inputs: Sequence[te.Tensor], axis: int = 0) -> te.Tensor:
    """The inputs joined along ``axis``; each output element reads the one
    input whose range holds its index (only that load is evaluated). Inputs
    empty along ``axis`` contribute nothing and are not read."""
    first = inputs[0]
    axis %= first.ndim
    offsets: list[Dim] = [0]
    for t in inputs:
        if t.dtype != first.dtype or t.ndim != first.ndim:
            raise ValueError("concatenate: inputs differ in dtype or rank")
        offsets.append(offsets[-1] + t.shape[axis])
    dims = list(first.shape)
    for t in inputs[1:]:  # two shape variables on another axis: equal at run time
        for d, extent in enumerate(t.shape):
            if d != axis and not (isinstance(extent, int) and isinstance(dims[d], int)):
                dims[d] = te.assume_equal(dims[d], extent, "concatenate")
    shape = (*dims[:axis], offsets[-1], *dims[axis + 1 :])
    parts = [
        k for k, t in enumerate(inputs) if not isinstance(t.shape[axis], int) or t.shape[axis] > 0
    ] or [0]

    def element(*i: PrimExpr) -> PrimExpr:
        def read(k: int) -> PrimExpr:
            return inputs[k][(*i[:axis], i[axis] - offsets[k], *i[axis + 1 :])]

        value = read(parts[-1])
        for k in reversed(parts[:-1]):
            value = te.if_then_else(i[axis] < offsets[k + 1], read(k), value)
        return value

    return te.compute(shape, element, name="T_concat", tag="injective")


def split(x: te.Tensor, bounds: Sequence[tuple[int, int]], axis: int = 0) -> list[te.Tensor]:
    """The pieces ``x[..., begin:end, ...]`` along ``axis``, one per ``(begin, end)``."""
    axis %= x.ndim
    pieces = []
    for n, (begin, end) in enumerate(bounds):
        shape = (*x.shape[:axis], end - begin, *x.shape[axis + 1 :])

        def element(*i: PrimExpr, begin: int = begin) -> PrimExpr:
            return x[(*i[:axis], i[axis] + begin, *i[axis + 1 :])]

        pieces.append(te.compute(shape, element, name=f"T_split{n}", tag="injective"))
    return pieces


def squeeze(x: te.Tensor, axes: Sequence[int] | None = None) -> te.Tensor:
    """``x`` without the size-1 axes in ``axes`` (all of them when None)."""
    if axes is None:
        drop = {d for d, n in enumerate(x.shape) if n == 1}
    else:
        drop = {a % x.ndim for a in axes}
    if any(x.shape[d] != 1 for d in drop):
        raise ValueError(f"squeeze: axes {sorted(drop)} of {list(x.shape)} are not all of size 1")
    shape = tuple(n for d, n in enumerate(x.shape) if d not in drop)

    def element(*i: PrimExpr) -> PrimExpr:
        kept = iter(i)
        return x[[IntImm(0, "index") if d in drop else next(kept) for d in range(x.ndim)]]

    return te.compute(shape, element, name="T_squeeze", tag="injective")


def expand_dims(x: te.Tensor, axis: int, num_newaxis: int = 1) -> te.Tensor:
    """``x`` with ``num_newaxis`` size-1 axes inserted at ``axis``."""
    axis %= x.ndim + 1
    shape = (*x.shape[:axis], *([1] * num_newaxis), *x.shape[axis:])
    return te.compute(
        shape,
        lambda *i: x[(*i[:axis], *i[axis + num_newaxis :])],
        name="T_expand_dims",
        tag="injective",
    )
