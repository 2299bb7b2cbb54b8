"""Neural-network computes (TVM's ``topi.nn``): relu, dense, matmul,
bias_add, softmax, batch_norm, lrn, batch_flatten (convolution and pooling
live in ``conv`` and ``pool``)."""

from __future__ import annotations

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.topi.reduce import argmax
from xtvm.topi.tensor import broadcast_indices, broadcast_shape
from xtvm.topi.transform import reshape


def relu(x: te.Tensor) -> te.Tensor:
    """``max(x, 0)`` elementwise."""
    return te.compute(
        x.shape, lambda *i: te.max(x[i], te.const(0, x.dtype)), name="T_relu", tag="elemwise"
    )


def _same_dtype(name: str, a: te.Tensor, b: te.Tensor, out_dtype: str | None = None) -> str:
    """The accumulation dtype: ``out_dtype``, with which integer operands may
    differ (``uint8`` × ``int8`` → ``int32``), else the operands' one dtype."""
    integers = all(dt.is_int(t.dtype) for t in (a, b))
    if a.dtype != b.dtype and not (out_dtype and integers):
        raise TypeError(f"{name}: operand dtypes differ ({a.dtype} and {b.dtype})")
    return out_dtype or a.dtype


def _widened(value: PrimExpr, acc: str) -> PrimExpr:
    return value if value.dtype == acc else te.cast(acc, value)


def rounded_once(result: te.Tensor, dtype: str) -> te.Tensor:
    """``result`` (accumulated in float32) rounded to ``dtype`` once."""
    if result.dtype == dtype:
        return result
    return te.compute(
        result.shape,
        lambda *i: te.cast(dtype, result[i]),
        name=f"{result.op.name}_round",
        tag="elemwise",
    )


def accumulator_dtype(acc: str) -> str:
    """The type products of ``acc`` operands are summed in: float16 in
    float32, rounded to float16 once at the end (as NumPy's float16 matmul,
    which ONNX's reference uses for MatMul, Conv and Attention: a float16
    running sum rounds at every addition and ends float16 ulps away)."""
    return "float32" if acc == "float16" else acc


def dense(data: te.Tensor, weight: te.Tensor, out_dtype: str | None = None) -> te.Tensor:
    """``data · weightᵀ``: data ``[..., K]``, weight ``[N, K]`` → ``[..., N]``,
    the products accumulated in ``out_dtype`` (default: the operands'; see
    :func:`accumulator_dtype` for float16)."""
    acc = _same_dtype("dense", data, weight, out_dtype)
    if data.ndim < 1 or weight.ndim != 2 or data.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"dense: data {list(data.shape)} and weight {list(weight.shape)} do not match"
        )
    k = te.reduce_axis((0, weight.shape[1]), name="k")
    wide = accumulator_dtype(acc)
    result = te.compute(
        (*data.shape[:-1], weight.shape[0]),
        lambda *i: te.sum(
            _widened(data[(*i[:-1], k)], wide) * _widened(weight[i[-1], k], wide), axis=k
        ),
        name="T_dense",
        tag="dense",
    )
    return rounded_once(result, acc)


def matmul(
    a: te.Tensor,
    b: te.Tensor,
    transpose_a: bool = False,
    transpose_b: bool = False,
    out_dtype: str | None = None,
) -> te.Tensor:
    """Batched ``a · b`` with NumPy batch broadcasting; ``transpose_a`` /
    ``transpose_b`` swap an operand's last two axes first; products
    accumulate in ``out_dtype`` (default: the operands'; see
    :func:`accumulator_dtype` for float16)."""
    acc = _same_dtype("matmul", a, b, out_dtype)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul: operands {list(a.shape)} and {list(b.shape)} need rank >= 2")
    m, ka = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    kb, n = (b.shape[-1], b.shape[-2]) if transpose_b else (b.shape[-2], b.shape[-1])
    if isinstance(ka, int) and isinstance(kb, int):
        if ka != kb:
            raise ValueError(f"matmul: reduction sizes differ ({ka} and {kb})")
    elif isinstance(ka, int) or isinstance(kb, int):  # checked when the kernel is called
        static, dynamic = (ka, kb) if isinstance(ka, int) else (kb, ka)
        te.require(dynamic == static, f"matmul: the dynamic reduction size must be {static}")
        ka = static
    else:  # a dynamic sequence: both shape variables, equal at run time
        ka = te.assume_equal(ka, kb, "matmul: the reduction sizes")
    batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
    k = te.reduce_axis((0, ka), name="k")
    wide = accumulator_dtype(acc)

    def element(*i: PrimExpr) -> PrimExpr:
        row, col = i[-2], i[-1]
        a_batch = broadcast_indices(a.shape[:-2], batch, i[:-2])
        b_batch = broadcast_indices(b.shape[:-2], batch, i[:-2])
        a_idx = (*a_batch, k, row) if transpose_a else (*a_batch, row, k)
        b_idx = (*b_batch, col, k) if transpose_b else (*b_batch, k, col)
        return te.sum(_widened(a[a_idx], wide) * _widened(b[b_idx], wide), axis=k)

    suffix = ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    result = te.compute((*batch, m, n), element, name=f"T_matmul_{suffix}", tag="matmul")
    return rounded_once(result, acc)


def bias_add(data: te.Tensor, bias: te.Tensor, axis: int = 1) -> te.Tensor:
    """``data + bias`` with the 1-d ``bias`` along ``axis``."""
    _same_dtype("bias_add", data, bias)
    axis %= max(data.ndim, 1)
    if bias.shape != (data.shape[axis],):
        raise ValueError(
            f"bias_add: bias {list(bias.shape)} does not match axis {axis} of {list(data.shape)}"
        )
    return te.compute(data.shape, lambda *i: data[i] + bias[i[axis]], name="T_add", tag="broadcast")


def _along(i: tuple[PrimExpr, ...], axis: int, k: PrimExpr) -> tuple[PrimExpr, ...]:
    """Index ``i`` of a tensor reduced over ``axis``, with ``k`` put back at ``axis``."""
    return (*i[:axis], k, *i[axis:])


def _without(i: tuple[PrimExpr, ...], axis: int) -> tuple[PrimExpr, ...]:
    return i[:axis] + i[axis + 1 :]


def _softmax_stages(x: te.Tensor, axis: int, op: str) -> tuple[te.Tensor, te.Tensor]:
    """The maximum along ``axis`` and the sum of ``exp(x - max)``."""
    if not dt.is_float(x.dtype):
        raise TypeError(f"{op} needs a float tensor, got {x.dtype}")
    reduced = _without(x.shape, axis)
    k1 = te.reduce_axis((0, x.shape[axis]), name="k")
    maxelem = te.compute(
        reduced, lambda *i: te.max(x[_along(i, axis, k1)], axis=k1), name=f"T_{op}_maxelem"
    )
    k2 = te.reduce_axis((0, x.shape[axis]), name="k")
    expsum = te.compute(
        reduced,
        lambda *i: te.sum(te.exp(x[_along(i, axis, k2)] - maxelem[i]), axis=k2),
        name=f"T_{op}_expsum",
    )
    return maxelem, expsum


def softmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``, in three stages:
    the maximum, the sum of exponentials, and the normalisation."""
    axis %= x.ndim
    maxelem, expsum = _softmax_stages(x, axis, "softmax")

    def norm(*i: PrimExpr) -> PrimExpr:
        rest = _without(i, axis)
        return te.exp(x[i] - maxelem[rest]) / expsum[rest]

    return te.compute(x.shape, norm, name="T_softmax_norm", tag="softmax_output")


def log_softmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    """``x - max - log(sum(exp(x - max)))`` along ``axis``."""
    axis %= x.ndim
    maxelem, expsum = _softmax_stages(x, axis, "log_softmax")

    def norm(*i: PrimExpr) -> PrimExpr:
        rest = _without(i, axis)
        return x[i] - maxelem[rest] - te.log(expsum[rest])

    return te.compute(x.shape, norm, name="T_log_softmax_norm", tag="log_softmax_output")


def hardmax(x: te.Tensor, axis: int = -1) -> te.Tensor:
    """1 at the first maximum along ``axis``, 0 elsewhere."""
    if not dt.is_float(x.dtype):
        raise TypeError(f"hardmax needs a float tensor, got {x.dtype}")
    axis %= x.ndim
    first = argmax(x, [axis])
    one, zero = te.const(1, x.dtype), te.const(0, x.dtype)
    return te.compute(
        x.shape,
        lambda *i: te.if_then_else(i[axis].astype("int64") == first[_without(i, axis)], one, zero),
        name="T_hardmax",
        tag="injective",
    )


def batch_norm(
    data: te.Tensor,
    gamma: te.Tensor,
    beta: te.Tensor,
    moving_mean: te.Tensor,
    moving_var: te.Tensor,
    axis: int = 1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> te.Tensor:
    """Inference batch norm along ``axis``:
    ``(x - mean) / sqrt(var + epsilon) * gamma + beta``."""
    if not dt.is_float(data.dtype):
        raise TypeError(f"batch_norm needs a float tensor, got {data.dtype}")
    axis %= data.ndim

    def fcompute(*i: PrimExpr) -> PrimExpr:
        c = i[axis]
        out = (data[i] - moving_mean[c]) / te.sqrt(moving_var[c] + epsilon)
        if scale:
            out = out * gamma[c]
        return out + beta[c] if center else out

    return te.compute(data.shape, fcompute, name="T_batch_norm", tag="elemwise")


UNROLLED_LRN_WINDOW = 16
"""LRN windows up to this size are summed term by term (one elementwise
stage, vectorized along the row); larger ones are a reduction."""


def lrn(
    x: te.Tensor,
    size: int = 5,
    axis: int = 1,
    alpha: float = 1e-5,
    beta: float = 0.75,
    bias: float = 2.0,
) -> te.Tensor:
    """Local response normalization across ``axis`` (ONNX ``LRN``):
    ``x / (bias + alpha / size * window_sum(x**2)) ** beta``, the window
    ``[c - (size - 1) // 2, c + size // 2]`` clipped to the axis.

    A small window is summed term by term, each term read at the channel
    clamped into the axis and zeroed outside it (a select that is the same
    along a whole row when ``axis`` is not the last): no reduction loop and
    no branch, so the kernel is a vectorizable elementwise stage. The power
    of the usual ``beta`` (0.75, 0.5, 1) is made of square roots, which
    have vector instructions (``pow`` does not)."""
    if not dt.is_float(x.dtype):
        raise TypeError(f"lrn needs a float tensor, got {x.dtype}")
    axis %= x.ndim
    before, n = (size - 1) // 2, x.shape[axis]
    zero = te.const(0, x.dtype)

    def at(i: tuple[PrimExpr, ...], c: PrimExpr) -> PrimExpr:
        return x[(*i[:axis], c, *i[axis + 1 :])]

    if size <= UNROLLED_LRN_WINDOW:

        def window(*i: PrimExpr) -> PrimExpr:
            total: PrimExpr | None = None
            for k in range(size):
                c = i[axis] + (k - before)
                if k < before:
                    v = at(i, te.max(c, 0))
                    term = te.eager_select(c >= 0, v * v, zero)
                elif k > before:
                    v = at(i, te.min(c, n - 1))
                    term = te.eager_select(c < n, v * v, zero)
                else:
                    v = at(i, c)
                    term = v * v
                total = term if total is None else total + term
            assert total is not None
            return total

        sqsum = te.compute(x.shape, window, name="T_lrn_sqsum", tag="elemwise")
    else:
        k = te.reduce_axis((0, size), name="k")

        def reduced(*i: PrimExpr) -> PrimExpr:
            c = i[axis] + k - before
            v = at(i, c)
            return te.sum(v * v, axis=k, where=(c >= 0) & (c < n))

        sqsum = te.compute(x.shape, reduced, name="T_lrn_sqsum")

    def power(base: PrimExpr) -> PrimExpr:
        if beta == 0.75:
            root = te.sqrt(base)
            return root * te.sqrt(root)
        if beta == 0.5:
            return te.sqrt(base)
        if beta == 1.0:
            return base
        return te.power(base, beta)

    return te.compute(
        x.shape,
        lambda *i: x[i] / power(bias + (alpha / size) * sqsum[i]),
        name="T_lrn",
        tag="elemwise",
    )


def dropout(x: te.Tensor) -> te.Tensor:
    """Dropout at inference: a copy of ``x``."""
    return te.compute(x.shape, lambda *i: x[i], name="T_dropout", tag="elemwise")


def batch_flatten(x: te.Tensor) -> te.Tensor:
    """``[N, d1, ..., dk]`` → ``[N, d1 * ... * dk]``."""
    rest = 1
    for d in x.shape[1:]:
        rest *= d
    return reshape(x, (x.shape[0], rest))
