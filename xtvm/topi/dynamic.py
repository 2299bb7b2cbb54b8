"""Data-dependent ops (``nonzero``, ``compress``) and their shape
functions as tensor expressions.

``te`` has no sequential scans, so an element's place in the result is a
count: the position of the ``j``-th selected element is the one with ``j``
selected elements before it (a reduction over the elements before it).
``O(n²)`` work in the number of elements (``O(n * count)`` more to pick),
fine for the masks and small tensors these ops take in models; the
result's ``?`` extent is a shape variable bound by the output buffer, which
the VM allocates from the shape function's result."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr


def _static(data: te.Tensor, what: str) -> list[int]:
    dims = [d for d in data.shape if isinstance(d, int)]
    if len(dims) != len(data.shape):
        raise ValueError(f"{what} needs static input extents, got {list(data.shape)}")
    return dims


def _flat(index: Sequence[PrimExpr], dims: Sequence[int]) -> PrimExpr:
    """The row-major flat position of ``index`` in ``dims``."""
    flat: PrimExpr = index[0]
    for i, d in zip(index[1:], dims[1:]):
        flat = flat * d + i
    return flat


def _nonzero(value: PrimExpr) -> PrimExpr:
    return value != te.const(0, value.dtype)


def _shape_of(dims: Sequence[PrimExpr | int], count: te.Tensor, name: str) -> te.Tensor:
    """The 1-d ``int64`` shape ``dims``, where an entry that is None is the
    count (``count[0]``)."""

    def entry(i: PrimExpr) -> PrimExpr:
        value: PrimExpr = count[0]
        for k, d in enumerate(dims):
            if d is not None:
                value = te.select(i == k, te.const(d, "int64"), value)
        return value

    return te.compute((len(dims),), entry, name=name)


def _count(flags: te.Tensor, extent: int, name: str) -> te.Tensor:
    """``[number of true flags among the first extent]``, as ``int64``."""
    r = te.reduce_axis((0, extent), name="r")
    return te.compute(
        (1,), lambda _: te.sum(te.const(1, "int64"), axis=r, where=flags[r]), name=name
    )


def _ranks(flags: te.Tensor, extent: int, name: str) -> te.Tensor:
    """For each flag, how many true flags come before it."""
    r = te.reduce_axis((0, extent), name="r")
    return te.compute(
        (extent,),
        lambda i: te.sum(te.const(1, "int64"), axis=r, where=flags[r] & (r < i)),
        name=name,
    )


def _nonzero_flags(data: te.Tensor) -> tuple[te.Tensor, list[int], int]:
    dims = _static(data, "nonzero")
    size = 1
    for d in dims:
        size *= d

    def flag(m: PrimExpr) -> PrimExpr:
        index, rest = [], m
        for d in reversed(dims):
            index.append(te.floormod(rest, d))
            rest = te.floordiv(rest, d)
        return _nonzero(data[tuple(reversed(index))])

    return te.compute((size,), flag, name="T_nonzero_flag"), dims, size


def nonzero_shape(data: te.Tensor) -> te.Tensor:
    """``[rank, number of nonzero elements]``."""
    flags, dims, size = _nonzero_flags(data)
    return _shape_of([len(dims), None], _count(flags, size, "T_nonzero_count"), "T_nonzero_shape")


def nonzero(data: te.Tensor) -> te.Tensor:
    """The ``rank x count`` positions of the nonzero elements, row-major;
    ``count`` a shape variable."""
    flags, dims, size = _nonzero_flags(data)
    ranks = _ranks(flags, size, "T_nonzero_rank")
    count = te.var("nonzero_count")
    m = te.reduce_axis((0, size), name="m")

    def position(d: PrimExpr, j: PrimExpr) -> PrimExpr:
        stride = 1
        coordinate: PrimExpr = te.const(0, "int64")
        for k in reversed(range(len(dims))):
            here = te.floormod(te.floordiv(m, stride), dims[k]).astype("int64")
            coordinate = te.select(d == k, here, coordinate)
            stride *= dims[k]
        return te.sum(coordinate, axis=m, where=flags[m] & (ranks[m] == j.astype("int64")))

    return te.compute((len(dims), count), position, name="T_nonzero", tag="nonzero")


def _compress_flags(
    data: te.Tensor, condition: te.Tensor, axis: int | None
) -> tuple[te.Tensor, list[int], int]:
    dims = _static(data, "compress")
    (length,) = _static(condition, "compress")
    extent = 1
    if axis is None:
        for d in dims:
            extent *= d
    else:
        extent = dims[axis]
    used = min(length, extent)
    flags = te.compute((used,), lambda i: _nonzero(condition[i]), name="T_compress_flag")
    return flags, dims, used


def compress_shape(data: te.Tensor, condition: te.Tensor, axis: int | None) -> te.Tensor:
    """The data's shape with the count of true conditions at ``axis``
    (``[count]`` without an axis)."""
    flags, dims, used = _compress_flags(data, condition, axis)
    count = _count(flags, used, "T_compress_count")
    shape = [None] if axis is None else [None if k == axis else d for k, d in enumerate(dims)]
    return _shape_of(shape, count, "T_compress_shape")


def compress(data: te.Tensor, condition: te.Tensor, axis: int | None) -> te.Tensor:
    """The slices along ``axis`` (elements of the flattened data without
    one) whose condition is true; the selected extent a shape variable."""
    flags, dims, used = _compress_flags(data, condition, axis)
    ranks = _ranks(flags, used, "T_compress_rank")
    count = te.var("compress_count")
    m = te.reduce_axis((0, used), name="m")

    def pick(*i: PrimExpr) -> PrimExpr:
        if axis is None:
            index: list[PrimExpr] = []
            rest: PrimExpr = m
            for d in reversed(dims):
                index.append(te.floormod(rest, d))
                rest = te.floordiv(rest, d)
            source = data[tuple(reversed(index))]
            j = i[0]
        else:
            source = data[(*i[:axis], m, *i[axis + 1 :])]
            j = i[axis]
        return te.sum(source, axis=m, where=flags[m] & (ranks[m] == j.astype("int64")))

    shape = [count] if axis is None else [count if k == axis else d for k, d in enumerate(dims)]
    return te.compute(shape, pick, name="T_compress", tag="compress")


def _unravel(flat: PrimExpr, dims: Sequence[int]) -> list[PrimExpr]:
    index: list[PrimExpr] = []
    for d in reversed(dims):
        index.append(te.floormod(flat, d))
        flat = te.floordiv(flat, d)
    return list(reversed(index))


def _unique_order(data: te.Tensor, axis: int | None, is_sorted: bool):
    """The common stages of ``unique``: per slice ``a`` (of ``n``), whether
    it is the first of its value and its index among the distinct slices
    (``order``); the element accessor of slice ``a``."""
    dims = _static(data, "unique")
    if axis is None:
        n, inner = 1, 1
        for d in dims:
            n *= d

        def element(a: PrimExpr, k: PrimExpr) -> PrimExpr:
            return data[tuple(_unravel(a, dims))]

    else:
        n = dims[axis]
        pre, post = dims[:axis], dims[axis + 1 :]
        after = 1
        for d in post:
            after *= d
        inner = after
        for d in pre:
            inner *= d

        def element(a: PrimExpr, k: PrimExpr) -> PrimExpr:
            outer = _unravel(te.floordiv(k, after), pre) if pre else []
            rest = _unravel(te.floormod(k, after), post) if post else []
            return data[(*outer, a, *rest)]

    one = te.const(1, "int64")
    k = te.reduce_axis((0, inner), name="k")
    differ = te.compute(
        (n, n),
        lambda a, b: te.sum(one, axis=k, where=element(a, k) != element(b, k)),
        name="T_unique_differ",
    )
    b = te.reduce_axis((0, n), name="b")
    first_of = te.compute(
        (n,),
        lambda a: te.min(b.astype("int64"), axis=b, where=differ[a, b] == 0),
        name="T_unique_first_of",
    )
    is_first = te.compute(
        (n,), lambda a: first_of[a] == a.astype("int64"), name="T_unique_is_first"
    )
    c = te.reduce_axis((0, n), name="c")
    if is_sorted:
        k1 = te.reduce_axis((0, inner), name="k1")
        first_diff = te.compute(
            (n, n),
            lambda a, b: te.min(
                k1.astype("int64"), axis=k1, where=element(a, k1) != element(b, k1)
            ),
            name="T_unique_first_diff",
        )
        k2 = te.reduce_axis((0, inner), name="k2")
        less = te.compute(
            (n, n),
            lambda a, b: te.sum(
                one,
                axis=k2,
                where=(k2.astype("int64") == first_diff[a, b]) & (element(a, k2) < element(b, k2)),
            ),
            name="T_unique_less",
        )
        order = te.compute(
            (n,),
            lambda a: te.sum(one, axis=c, where=is_first[c] & (less[c, a] > 0)),
            name="T_unique_order",
        )
    else:
        order = te.compute(
            (n,),
            lambda a: te.sum(one, axis=c, where=is_first[c] & (c.astype("int64") < first_of[a])),
            name="T_unique_order",
        )
    return dims, n, is_first, order


def unique_shape(data: te.Tensor, axis: int | None, is_sorted: bool) -> list[te.Tensor]:
    """The shapes of ``unique``'s four results."""
    dims, n, is_first, _ = _unique_order(data, axis, is_sorted)
    count = _count(is_first, n, "T_unique_count")
    y = [None] if axis is None else [None if k == axis else d for k, d in enumerate(dims)]
    return [
        _shape_of(y, count, "T_unique_y_shape"),
        _shape_of([None], count, "T_unique_indices_shape"),
        _shape_of([n], count, "T_unique_inverse_shape"),
        _shape_of([None], count, "T_unique_counts_shape"),
    ]


def unique(data: te.Tensor, axis: int | None, is_sorted: bool) -> list[te.Tensor]:
    """ONNX ``Unique``'s four results; the number of distinct slices a
    shape variable."""
    dims, n, is_first, order = _unique_order(data, axis, is_sorted)
    count = te.var("unique_count")
    one = te.const(1, "int64")

    def picked(a: PrimExpr, j: PrimExpr) -> PrimExpr:
        return is_first[a] & (order[a] == j.astype("int64"))

    m = te.reduce_axis((0, n), name="m")
    if axis is None:
        y = te.compute(
            (count,),
            lambda j: te.sum(data[tuple(_unravel(m, dims))], axis=m, where=picked(m, j)),
            name="T_unique_y",
        )
    else:
        y = te.compute(
            [count if k == axis else d for k, d in enumerate(dims)],
            lambda *i: te.sum(
                data[(*i[:axis], m, *i[axis + 1 :])], axis=m, where=picked(m, i[axis])
            ),
            name="T_unique_y",
        )
    m1 = te.reduce_axis((0, n), name="m1")
    indices = te.compute(
        (count,),
        lambda j: te.sum(m1.astype("int64"), axis=m1, where=picked(m1, j)),
        name="T_unique_indices",
    )
    inverse = te.compute((n,), lambda a: order[a], name="T_unique_inverse")
    m2 = te.reduce_axis((0, n), name="m2")
    counts = te.compute(
        (count,),
        lambda j: te.sum(one, axis=m2, where=order[m2] == j.astype("int64")),
        name="T_unique_counts",
    )
    return [y, indices, inverse, counts]


MAX_NMS_BOXES = 32
"""The most boxes ``non_max_suppression`` takes: the greedy selection is
unrolled, one stage per box (10 boxes compile in ~10-20 s on a loaded
2-core machine)."""


def _one(t: te.Tensor) -> PrimExpr:
    """The value of a one-element tensor (a scalar or ``[1]``)."""
    return t[()] if not t.shape else t[0]


def _nms_selected(
    boxes: te.Tensor,
    scores: te.Tensor,
    max_output: te.Tensor,
    iou_threshold: te.Tensor,
    score_threshold: te.Tensor,
    center_point_box: bool,
    has_score_threshold: bool,
) -> tuple[te.Tensor, te.Tensor, list[int]]:
    """Which boxes greedy NMS keeps (``B x C x N``, 0/1 ``int64``) and each
    box's rank among the candidates of its batch and class."""
    nb, n, _ = _static(boxes, "non_max_suppression")
    _, nc, _ = _static(scores, "non_max_suppression")
    if n > MAX_NMS_BOXES:
        raise ValueError(
            f"non_max_suppression takes at most {MAX_NMS_BOXES} boxes (one unrolled stage "
            f"per box), got {n}"
        )
    one, zero = te.const(1, "int64"), te.const(0, "int64")

    def valid(b: PrimExpr, c: PrimExpr, i: PrimExpr) -> PrimExpr:
        if has_score_threshold:
            return scores[b, c, i] > _one(score_threshold)
        return scores[b, c, i] == scores[b, c, i]  # true (NaN scores are never candidates)

    j = te.reduce_axis((0, n), name="j")
    rank = te.compute(
        (nb, nc, n),
        lambda b, c, i: te.sum(
            one,
            axis=j,
            where=valid(b, c, j)
            & (
                (scores[b, c, j] > scores[b, c, i])
                | ((scores[b, c, j] == scores[b, c, i]) & (j < i))
            ),
        ),
        name="T_nms_rank",
    )

    def corners(b: PrimExpr, i: PrimExpr) -> tuple[PrimExpr, PrimExpr, PrimExpr, PrimExpr]:
        """``x0, x1, y0, y1`` of box ``i``."""
        v = [boxes[b, i, k] for k in range(4)]
        if center_point_box:
            return v[0] - v[2] / 2.0, v[0] + v[2] / 2.0, v[1] - v[3] / 2.0, v[1] + v[3] / 2.0
        return te.min(v[1], v[3]), te.max(v[1], v[3]), te.min(v[0], v[2]), te.max(v[0], v[2])

    def suppresses(b: PrimExpr, k: PrimExpr, i: PrimExpr) -> PrimExpr:
        ax0, ax1, ay0, ay1 = corners(b, k)
        bx0, bx1, by0, by1 = corners(b, i)
        width = te.min(ax1, bx1) - te.max(ax0, bx0)
        height = te.min(ay1, by1) - te.max(ay0, by0)
        inter = width * height
        area_a = (ax1 - ax0) * (ay1 - ay0)
        area_b = (bx1 - bx0) * (by1 - by0)
        union = area_a + area_b - inter
        return (
            (width > 0.0)
            & (height > 0.0)
            & (area_a > 0.0)
            & (area_b > 0.0)
            & (union > 0.0)
            & (inter / union > _one(iou_threshold))
        )

    suppress = te.compute((nb, n, n), suppresses, name="T_nms_suppress")
    limit = _one(max_output)
    selected = te.compute((nb, nc, n), lambda b, c, i: zero, name="T_nms_selected")
    for t in range(n):
        selected = _nms_stage(
            selected, t, suppress, lambda b, c, i, t=t: valid(b, c, i) & (rank[b, c, i] == t), limit
        )
    return selected, rank, [nb, nc, n]


def _nms_stage(
    prev: te.Tensor,
    t: int,
    suppress: te.Tensor,
    deciding: Callable[[PrimExpr, PrimExpr, PrimExpr], PrimExpr],
    limit: PrimExpr,
) -> te.Tensor:
    """Stage ``t`` of greedy NMS: the candidate of rank ``t`` (where
    ``deciding``) is kept unless a box kept before it suppresses it or
    ``limit`` boxes are kept already; every other box keeps its state."""
    nb, nc, n = (int(d) for d in prev.shape)
    one, zero = te.const(1, "int64"), te.const(0, "int64")
    r = te.reduce_axis((0, n), name="r")
    kept = te.compute((nb, nc), lambda b, c: te.sum(prev[b, c, r], axis=r), name=f"T_nms_kept{t}")
    q = te.reduce_axis((0, n), name="q")
    hits = te.compute(
        (nb, nc, n),
        lambda b, c, i: te.sum(one, axis=q, where=(prev[b, c, q] > 0) & suppress[b, q, i]),
        name=f"T_nms_hits{t}",
    )
    return te.compute(
        (nb, nc, n),
        lambda b, c, i: te.select(
            deciding(b, c, i),
            te.select((hits[b, c, i] == 0) & (kept[b, c] < limit), one, zero),
            prev[b, c, i],
        ),
        name=f"T_nms_selected{t}",
    )


def non_max_suppression_shape(
    boxes: te.Tensor,
    scores: te.Tensor,
    max_output: te.Tensor,
    iou_threshold: te.Tensor,
    score_threshold: te.Tensor,
    center_point_box: bool,
    has_score_threshold: bool,
) -> te.Tensor:
    """``[number of selected boxes, 3]``."""
    selected, _, (nb, nc, n) = _nms_selected(
        boxes,
        scores,
        max_output,
        iou_threshold,
        score_threshold,
        center_point_box,
        has_score_threshold,
    )
    rb, rc, ri = (te.reduce_axis((0, e), name=v) for e, v in ((nb, "rb"), (nc, "rc"), (n, "ri")))
    total = te.compute(
        (1,), lambda _: te.sum(selected[rb, rc, ri], axis=[rb, rc, ri]), name="T_nms_count"
    )
    return _shape_of([None, 3], total, "T_nms_shape")


def non_max_suppression(
    boxes: te.Tensor,
    scores: te.Tensor,
    max_output: te.Tensor,
    iou_threshold: te.Tensor,
    score_threshold: te.Tensor,
    center_point_box: bool,
    has_score_threshold: bool,
) -> te.Tensor:
    """The ``selected x 3`` rows ``(batch, class, box)``; ``selected`` a
    shape variable."""
    selected, rank, (nb, nc, n) = _nms_selected(
        boxes,
        scores,
        max_output,
        iou_threshold,
        score_threshold,
        center_point_box,
        has_score_threshold,
    )
    r = te.reduce_axis((0, n), name="r")
    kept = te.compute((nb, nc), lambda b, c: te.sum(selected[b, c, r], axis=r), name="T_nms_kept")
    b2, c2 = te.reduce_axis((0, nb), name="b2"), te.reduce_axis((0, nc), name="c2")
    offset = te.compute(
        (nb, nc),
        lambda b, c: te.sum(kept[b2, c2], axis=[b2, c2], where=b2 * nc + c2 < b * nc + c),
        name="T_nms_offset",
    )
    q = te.reduce_axis((0, n), name="q")
    before = te.compute(
        (nb, nc, n),
        lambda b, c, i: te.sum(selected[b, c, q], axis=q, where=rank[b, c, q] < rank[b, c, i]),
        name="T_nms_before",
    )
    position = te.compute(
        (nb, nc, n), lambda b, c, i: offset[b, c] + before[b, c, i], name="T_nms_position"
    )
    count = te.var("nms_count")
    rb, rc, ri = (te.reduce_axis((0, e), name=v) for e, v in ((nb, "rb"), (nc, "rc"), (n, "ri")))

    def row(k: PrimExpr, d: PrimExpr) -> PrimExpr:
        field = te.select(
            d == 0, rb.astype("int64"), te.select(d == 1, rc.astype("int64"), ri.astype("int64"))
        )
        return te.sum(
            field,
            axis=[rb, rc, ri],
            where=(selected[rb, rc, ri] > 0) & (position[rb, rc, ri] == k.astype("int64")),
        )

    return te.compute((count, 3), row, name="T_nms", tag="non_max_suppression")


# Ops whose output *shape* is an input's value (ONNX Range, ConstantOfShape,
# Expand, Tile, Reshape, TopK with a run-time K): the shape function reads
# the small shape (or scalar) input; the op's kernel has a shape variable
# per output extent, bound by its output buffer, and checks with
# ``te.require`` what the shape must satisfy.


def _out_vars(rank: int, name: str) -> list[te.Var]:
    return [te.var(f"{name}_n{k}") for k in range(rank)]


def _entries(values: Sequence[PrimExpr], name: str) -> te.Tensor:
    """The 1-d ``int64`` tensor of ``values`` (expressions of the inputs)."""

    def entry(i: PrimExpr) -> PrimExpr:
        value: PrimExpr = values[-1]
        for k in reversed(range(len(values) - 1)):
            value = te.select(i == k, values[k], value)
        return value

    return te.compute((len(values),), entry, name=name)


def arange_shape(start: te.Tensor, limit: te.Tensor, delta: te.Tensor) -> te.Tensor:
    """``[max(ceil((limit - start) / delta), 0)]``, computed in ``float64``
    as NumPy's ``arange`` does."""

    def length() -> PrimExpr:
        s, l, d = (_one(t).astype("float64") for t in (start, limit, delta))
        n = te.ceil((l - s) / d).astype("int64")
        return te.max(n, te.const(0, "int64"))

    return _entries([length()], "T_arange_shape")


def arange(start: te.Tensor, delta: te.Tensor) -> te.Tensor:
    """``start + i * delta`` for ``i`` below the shape variable."""
    n = te.var("arange_n")
    return te.compute(
        (n,), lambda i: _one(start) + i.astype(start.dtype) * _one(delta), name="T_arange"
    )


def full(value: te.Tensor, rank: int) -> te.Tensor:
    """``value`` (one element) at every position of a run-time shape of ``rank`` axes."""
    return te.compute(tuple(_out_vars(rank, "full")), lambda *i: _one(value), name="T_full")


def _aligned(data: te.Tensor, rank: int) -> list[int | None]:
    """The data's extents right-aligned to ``rank`` axes (None before them)."""
    dims = _static(data, "broadcast_to")
    return [None] * (rank - len(dims)) + list(dims)


def broadcast_to_shape(data: te.Tensor, shape: te.Tensor) -> te.Tensor:
    """The broadcast of the data's shape and the values of ``shape``."""
    (length,) = _static(shape, "broadcast_to")
    rank = max(length, len(data.shape))
    values: list[PrimExpr] = []
    for k, x in enumerate(_aligned(data, rank)):
        j = k - (rank - length)
        s = shape[j] if j >= 0 else te.const(1, "int64")
        if x is None or x == 1:
            values.append(s)
        else:  # s must be x or 1 (the kernel checks)
            values.append(te.select(s == 1, te.const(x, "int64"), s))
    return _entries(values, "T_broadcast_to_shape")


def broadcast_to(data: te.Tensor, rank: int) -> te.Tensor:
    """The data broadcast to a run-time shape of ``rank`` axes."""
    out = _out_vars(rank, "broadcast")
    aligned = _aligned(data, rank)
    for v, x in zip(out, aligned):
        if x is not None and x != 1:
            te.require(v == x, f"broadcast_to: the shape cannot take an axis of {x} (1 or {x})")

    def read(*i: PrimExpr) -> PrimExpr:
        index = [i[k] if x != 1 else 0 for k, x in enumerate(aligned) if x is not None]
        return data[tuple(index)]

    return te.compute(tuple(out), read, name="T_broadcast_to")


def tile_shape(data: te.Tensor, repeats: te.Tensor) -> te.Tensor:
    """The data's extents times the values of ``repeats``."""
    dims = _static(data, "tile")
    return _entries([repeats[k] * d for k, d in enumerate(dims)], "T_tile_shape")


def tile(data: te.Tensor) -> te.Tensor:
    """The data repeated to a run-time shape (each extent a multiple of the data's)."""
    dims = _static(data, "tile")
    out = _out_vars(len(dims), "tile")
    for v, d in zip(out, dims):
        te.require(
            te.floormod(v, d) == 0 if d else v == 0, f"tile: the extent must be a multiple of {d}"
        )

    def read(*i: PrimExpr) -> PrimExpr:
        return data[tuple(te.floormod(x, d) if d else 0 for x, d in zip(i, dims))]

    return te.compute(tuple(out), read, name="T_tile")


def reshape_shape(data: te.Tensor, newshape: te.Tensor, allowzero: bool) -> te.Tensor:
    """ONNX ``Reshape``'s shape: a 0 copies the data's extent at that axis
    (unless ``allowzero``), a -1 takes what is left of the size."""
    dims = _static(data, "reshape")
    (length,) = _static(newshape, "reshape")
    size = 1
    for d in dims:
        size *= d
    one = te.const(1, "int64")
    known = []
    for k in range(length):
        v = newshape[k]
        if not allowzero:
            v = te.select(v == 0, te.const(dims[k] if k < len(dims) else 0, "int64"), v)
        known.append(v)
    product: PrimExpr = one
    for k in range(length):
        product = product * te.select(newshape[k] == -1, one, known[k])
    inferred = te.select(
        product == 0,
        te.const(0, "int64"),
        te.floordiv(te.const(size, "int64"), te.max(product, one)),
    )
    return _entries(
        [te.select(newshape[k] == -1, inferred, known[k]) for k in range(length)],
        "T_reshape_shape",
    )


def reshape(data: te.Tensor, rank: int) -> te.Tensor:
    """The data's elements, row-major, in a run-time shape of ``rank`` axes
    (which must hold as many elements)."""
    dims = _static(data, "reshape")
    size = 1
    for d in dims:
        size *= d
    out = _out_vars(rank, "reshape")
    count: PrimExpr = te.const(1, "int64")
    for v in out:
        count = count * v.astype("int64")
    te.require(count == size, f"reshape: the new shape must hold {size} elements")

    def read(*i: PrimExpr) -> PrimExpr:
        flat: PrimExpr = i[0] if rank else 0
        for x, v in zip(i[1:], out[1:]):
            flat = flat * v + x
        return data[tuple(_unravel(flat, dims))] if dims else data[()]

    return te.compute(tuple(out), read, name="T_reshape")


def topk_shape(data: te.Tensor, k: te.Tensor, axis: int) -> list[te.Tensor]:
    """The data's shape with ``k`` at ``axis``, for each of the two results."""
    dims = _static(data, "topk")
    values = [
        _one(k).astype("int64") if a == axis else te.const(d, "int64") for a, d in enumerate(dims)
    ]
    return [_entries(values, "T_topk_values_shape"), _entries(values, "T_topk_indices_shape")]


def topk(data: te.Tensor, axis: int, is_ascend: bool) -> list[te.Tensor]:
    """``topi.topk`` with ``k`` a shape variable (at most the axis' extent)."""
    from xtvm.topi.algorithm import topk as static_topk

    dims = _static(data, "topk")
    k = te.var("topk_k")
    te.require(k <= dims[axis], f"topk: k must be at most {dims[axis]} (the size of axis {axis})")
    return static_topk(data, k, axis, is_ascend)


def _resize_scales(
    data: te.Tensor, given: te.Tensor, axes: Sequence[int], scales_given: bool, policy: str
) -> list[PrimExpr]:
    """The float64 scale of each resized axis: the given scale, or (sizes
    given) ``size / extent``, or one common scale under a keep-aspect-ratio
    policy (``not_larger``: the least, ``not_smaller``: the greatest)."""
    dims = _static(data, "resize")
    if scales_given:
        return [given[k].astype("float64") for k in range(len(axes))]
    ratios = [
        given[k].astype("float64") / float(dims[a]) if dims[a] else te.const(1.0, "float64")
        for k, a in enumerate(axes)
    ]
    if policy == "stretch":
        return ratios
    common = ratios[0]
    for r in ratios[1:]:
        common = te.min(common, r) if policy == "not_larger" else te.max(common, r)
    return [common] * len(axes)


def resize_shape(
    data: te.Tensor, given: te.Tensor, axes: Sequence[int], scales_given: bool, policy: str
) -> te.Tensor:
    """The resized shape: ``floor(extent * scale)`` with scales, the sizes
    (``floor(scale * extent + 0.5)`` under a keep-aspect-ratio policy)."""
    dims = _static(data, "resize")
    scales = _resize_scales(data, given, axes, scales_given, policy)
    values: list[PrimExpr] = [te.const(d, "int64") for d in dims]
    for k, a in enumerate(axes):
        if scales_given:
            values[a] = (scales[k] * float(dims[a])).astype("int64")
        elif policy == "stretch":
            values[a] = given[k]
        else:
            values[a] = (scales[k] * float(dims[a]) + 0.5).astype("int64")
    return _entries(values, "T_resize_shape")


def _dynamic_coordinate(
    mode: str, x: PrimExpr, n: int, out: PrimExpr, scale: PrimExpr, roi: tuple[PrimExpr, PrimExpr]
) -> PrimExpr:
    """``topi.image.source_coordinate`` with a run-time scale and output size."""
    f64 = "float64"
    xf = x.astype(f64)
    length = scale * float(n)
    one = te.const(1.0, f64)
    if mode == "half_pixel":
        return (xf + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return te.select(length == one, te.const(-0.5, f64), (xf + 0.5) / scale - 0.5)
    if mode == "half_pixel_symmetric":
        offset = (one - out.astype(f64) / length) * (n / 2)
        return offset + (xf + 0.5) / scale - 0.5
    if mode == "align_corners":
        return te.select(length == one, te.const(0.0, f64), xf * float(n - 1) / (length - 1.0))
    if mode == "asymmetric":
        return xf / scale
    if mode != "tf_crop_and_resize":
        raise ValueError(f"resize: unknown coordinate_transformation_mode {mode!r}")
    start, end = roi
    single = (end - start) * float(n - 1) / 2.0 + start * float(n - 1)
    return te.select(
        length == one,
        single,
        xf * (end - start) * float(n - 1) / (length - 1.0) + start * float(n - 1),
    )


def resize(
    data: te.Tensor,
    given: te.Tensor,
    roi: te.Tensor,
    axes: Sequence[int],
    scales_given: bool,
    policy: str,
    **attrs: object,
) -> te.Tensor:
    """``topi.image.resize`` of ``axes`` to a run-time shape (a shape
    variable per resized axis), the scales read from ``given`` (scales, or
    sizes) and the crop from ``roi`` at run time; no antialiasing."""
    from xtvm.topi.image import AxisResize, _clamp_index, _interpolate, _nearest

    if attrs["antialias"]:
        raise ValueError("resize: antialiasing needs compile-time scales")
    method, mode = attrs["method"], attrs["coordinate_transformation_mode"]
    dims = _static(data, "resize")
    out = list(dims)
    for a in axes:
        out[a] = te.var(f"resize_n{a}")
    scales = _resize_scales(data, given, axes, scales_given, policy)
    count = len(axes)
    plan = [AxisResize(a, dims[a], out[a], scales[k], (0.0, 1.0)) for k, a in enumerate(axes)]

    def element(*i: PrimExpr) -> PrimExpr:
        coords = [
            _dynamic_coordinate(
                mode,
                i[a],
                dims[a],
                out[a],
                scales[k],
                (roi[k].astype("float64"), roi[count + k].astype("float64")),
            )
            for k, a in enumerate(axes)
        ]
        if method == "nearest_neighbor":
            index = list(i)
            for a, x in zip(plan, coords):
                index[a.axis] = _clamp_index(_nearest(x, attrs["rounding_method"]), a.in_size)
            value = data[tuple(index)]
        else:
            value = _interpolate(data, i, plan, coords, attrs).astype(data.dtype)
        if mode != "tf_crop_and_resize":
            return value
        cond = None
        for a, x in zip(plan, coords):
            c = (x < 0.0) | (x > a.in_size - 1.0)
            cond = c if cond is None else cond | c
        return te.eager_select(cond, te.const(attrs["extrapolation_value"], data.dtype), value)

    return te.compute(tuple(out), element, name="T_resize", tag="injective")


def softmax_last_axis(x: te.Tensor) -> te.Tensor:
    """Softmax along the last axis for a kernel with run-time extents: the
    row maximum, ``exp(x - max)`` materialized once (``topi.softmax``
    evaluates it twice, in the sum and in the normalisation: twice the libm
    calls), its sum, and the quotient. The same values in the same order,
    so the same result bit for bit; ``xtvm/topi/x86/dynamic_softmax.py``
    schedules it row by row."""
    rows, n = x.shape[:-1], x.shape[-1]
    k1 = te.reduce_axis((0, n), name="k")
    maxelem = te.compute(rows, lambda *i: te.max(x[(*i, k1)], axis=k1), name="T_softmax_maxelem")
    exps = te.compute(
        x.shape, lambda *i: te.exp(x[i] - maxelem[i[:-1]]), name="T_softmax_exp",
        attrs={"materialize": True},
    )
    k2 = te.reduce_axis((0, n), name="k")
    expsum = te.compute(rows, lambda *i: te.sum(exps[(*i, k2)], axis=k2), name="T_softmax_expsum")
    return te.compute(
        x.shape, lambda *i: exps[i] / expsum[i[:-1]], name="T_softmax_norm", tag="softmax_output"
    )
