"""The compute of ``relay.det``: Gaussian elimination with partial
pivoting (LAPACK's ``getrf``, which ``np.linalg.det`` calls), unrolled
over the ``n`` columns since ``te`` has no sequential loops. Column ``k``
takes four stages over the batch of matrices: the largest magnitude at or
below the diagonal, the first row holding it (the pivot), the matrix with
that row swapped into row ``k``, and the rows below eliminated. The
determinant is the product of the pivots, negated once per real swap; a
zero pivot leaves its column as it is (the product is 0 anyway). float16
is computed in float32. ``O(n)`` stages of ``O(n^2)`` work per matrix:
meant for the small matrices models take determinants of."""

from __future__ import annotations

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi import reduce


_STORED = {"materialize": True}
"""Each stage reads the previous matrix several times: inlined, the
expression would grow fourfold per column."""


def det(x: te.Tensor) -> te.Tensor:
    """The determinants of the ``[..., n, n]`` matrices of ``x``."""
    *batch, n, _ = x.shape
    dtype = x.dtype
    work = "float32" if dtype == "float16" else dtype
    a = te.compute(x.shape, lambda *i: te.cast(work, x[i]), name="T_det_lu")
    zero, one = te.const(0, work), te.const(1, work)
    sign = te.compute(tuple(batch), lambda *b: one, name="T_det_sign")
    for k in range(n):
        r = te.reduce_axis((k, n), name="r")
        best = te.compute(
            tuple(batch), lambda *b, a=a, r=r: te.max(te.abs(a[(*b, r, k)]), axis=r), name="T_det_best"
        )
        s = te.reduce_axis((k, n), name="s")
        found = te.compute(
            tuple(batch),
            lambda *b, a=a, s=s, best=best: te.min(
                te.cast("int64", s), axis=s, where=te.abs(a[(*b, s, k)]) == best[b]
            ),
            name="T_det_pivot",
        )
        # A NaN column matches no row: keep row k.
        pivot = te.compute(
            tuple(batch),
            lambda *b, found=found: te.eager_select(found[b] < n, found[b], te.const(k, "int64")),
            name="T_det_row",
        )

        def source(i: PrimExpr, p: PrimExpr, k: int = k) -> PrimExpr:
            row = te.cast("int64", i)
            return te.eager_select(row == k, p, te.eager_select(row == p, te.const(k, "int64"), row))

        swapped = te.compute(
            x.shape,
            lambda *idx, a=a, pivot=pivot: a[
                (*idx[:-2], source(idx[-2], pivot[idx[:-2]]), idx[-1])
            ],
            name="T_det_swap",
            attrs=_STORED,
        )
        sign = te.compute(
            tuple(batch),
            lambda *b, sign=sign, pivot=pivot, k=k: te.eager_select(
                pivot[b] == k, sign[b], -sign[b]
            ),
            name="T_det_sign",
            attrs=_STORED,
        )

        def eliminate(*idx: PrimExpr, m: te.Tensor = swapped, k: int = k) -> PrimExpr:
            *b, i, j = idx
            head = m[(*b, k, k)]
            below = (te.cast("int64", i) > k) & (te.cast("int64", j) > k) & (head != zero)
            factor = m[(*b, i, k)] / te.eager_select(head != zero, head, one)
            return te.eager_select(below, m[idx] - factor * m[(*b, k, j)], m[idx])

        a = te.compute(x.shape, eliminate, name="T_det_eliminate", attrs=_STORED)
    d = te.reduce_axis((0, n), name="d")
    diagonal = te.compute(
        tuple(batch), lambda *b: reduce.PROD(a[(*b, d, d)], axis=d), name="T_det_product"
    )
    return te.compute(
        tuple(batch),
        lambda *b: te.cast(dtype, sign[b] * diagonal[b]),
        name="T_det",
        tag="det",
    )
