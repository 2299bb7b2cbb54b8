"""Converter of ``TfIdfVectorizer`` on integer tensors, decomposed into
window comparisons of relay ops.

The pool (``pool_int64s``, split by ``ngram_counts`` into the 1-grams, the
2-grams, ...) is known at compile time, so each n-gram size ``n`` within
``[min_gram_length, max_gram_length]`` becomes, per skip distance ``s``
(1 only for ``n = 1``; ``1 .. max_skip_count + 1`` otherwise), ``n``
strided slices of the input — the windows ``X[..., i + k*s]`` for the
``L = C - (n-1)*s`` starts ``i`` — each compared with the pool's ``k``-th
items (a ``[L, G]`` ``relay.equal``), the ``n`` comparisons ANDed and summed
over the starts: the occurrence count of each of the ``G`` n-grams. A
constant one-hot matrix moves the pool's counts to their
``ngram_indexes`` columns (``relay.nn.matmul``, exact on small integers in
float32), and ``mode`` weighs them: ``TF`` the counts, ``IDF`` ``weights``
(or 1) where a count is positive, ``TFIDF`` ``weights * counts`` — the
weight of the pool's ``j``-th n-gram applying to column ``ngram_indexes[j]``
(the spec and onnxruntime; onnx's reference reads ``weights`` by column,
which agrees when ``ngram_indexes`` is the identity).

This counts exactly what onnx's reference trie walk counts: every n-gram of
the pool at every start and skip distance where all its items lie in the
row. With ``pool_strings`` the input is a string tensor (a byte tensor
``[..., C, W]``, see ``strings``) and items compare as whole strings.
"""

from __future__ import annotations

import itertools

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    CastOp,
    ConcatenateOp,
    EqualOp,
    ExpandDimsOp,
    GreaterOp,
    LogicalAndOp,
    MatmulOp,
    MultiplyOp,
    SqueezeOp,
    StridedSliceOp,
    SumOp,
    WhereOp,
)
from xtvm.frontend.onnx import strings
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter

MODES = ("TF", "IDF", "TFIDF")


def pool_ngrams(node: OnnxNode, pool: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The pool's n-grams in pool order: ``(n, items [G, n])`` per size,
    from ``ngram_counts`` (the start of each size's items in the pool)."""
    starts = [int(c) for c in node.attr("ngram_counts", [])]
    if not starts or starts != sorted(starts) or starts[0] != 0 or starts[-1] > len(pool):
        raise node.unsupported_attr("ngram_counts", "expected ascending starts from 0 in the pool")
    bounds = [*starts, len(pool)]
    groups = []
    for n, (begin, end) in enumerate(itertools.pairwise(bounds), start=1):
        if (end - begin) % n:
            raise node.error(
                f"the pool's {n}-grams hold {end - begin} items, not a multiple of {n}"
            )
        groups.append((n, pool[begin:end].reshape(-1, n)))
    return groups


class TfIdfVectorizer(OnnxOpConverter):
    """``TfIdfVectorizer(X)``: X ``[C]`` or ``[B, C]`` integers → float32
    ``[output_size]`` or ``[B, output_size]``; see the module docstring."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        mode = node.attr("mode")
        if mode not in MODES:
            raise node.unsupported_attr("mode", f"expected one of {', '.join(MODES)}")
        x = node.input(0)
        xty = x.type
        assert isinstance(xty, TensorType)
        dtype = numpy_dtype(xty.get_element_type())
        text = node.attr("pool_strings") is not None
        if text != strings.is_string(x):
            raise node.error(f"{node.input_label(0)} and the pool must both be strings or integers")
        shape = node.input_shape(0)[:-1] if text else node.input_shape(0)  # strings' shape
        if len(shape) not in (1, 2) or not (text or np.issubdtype(dtype, np.integer)):
            raise node.error(
                f"expected X of shape [C] or [B, C] of integers or strings, got {dtype}{list(shape)}"
            )
        if text:
            pool = np.array(node.attr("pool_strings"), object)
        else:
            pool = np.asarray(node.attr("pool_int64s", []), np.int64)
        indexes = [int(i) for i in node.attr("ngram_indexes", [])]
        groups = pool_ngrams(node, pool)
        if len(indexes) != sum(len(items) for _, items in groups) or min(indexes, default=0) < 0:
            raise node.unsupported_attr("ngram_indexes", "expected one index >= 0 per pool n-gram")
        size = max(indexes) + 1
        weights = node.attr("weights")
        if weights is not None and len(weights) != len(indexes):
            raise node.unsupported_attr("weights", "expected one weight per pool n-gram")
        lo, hi = int(node.attr("min_gram_length", 1)), int(node.attr("max_gram_length", 1))
        skips = int(node.attr("max_skip_count", 0)) + 1
        width, axis = shape[-1], len(shape) - 1
        info = np.iinfo(np.int64 if text else dtype)

        counts: list[SSAValue] = []
        columns: list[int] = []
        first = 0
        for n, items in groups:
            ids = list(range(first, first + len(items)))
            first += len(items)
            fits = (
                np.ones(len(items), bool)
                if text
                else (items >= info.min).all(1) & (items <= info.max).all(1)
            )
            if not lo <= n <= hi or not fits.any():
                continue  # not counted (or never equal to an X item): count 0
            items, ids = items[fits], [i for i, f in zip(ids, fits) if f]
            total = None
            for s in [1] if n == 1 else range(1, skips + 1):
                starts = width - (n - 1) * s
                if starts <= 0:
                    continue
                match = None
                for k in range(n):
                    window = node.emit(StridedSliceOp(x, [k * s], [k * s + starts], [1], [axis]))
                    probe = node.emit(ExpandDimsOp(window, axis + 1))  # [.., L, 1(, W)]
                    if text:  # whole strings: [.., L, G]
                        table, _ = strings.constant_strings(node, list(items[:, k]))
                        eq = strings.equal_bytes(node, probe, table)
                    else:
                        eq = node.emit(EqualOp(probe, node.const(items[:, k].astype(dtype))))
                    match = eq if match is None else node.emit(LogicalAndOp(match, eq))
                assert match is not None
                hits = node.emit(SumOp(node.emit(CastOp(match, "float32")), [axis]))  # [.., G]
                total = hits if total is None else node.emit(AddOp(total, hits))
            if total is not None:
                counts.append(total)
                columns += [indexes[i] for i in ids]
        if not counts:
            return node.const(np.zeros((*shape[:-1], size), np.float32))
        scatter = np.zeros((len(columns), size), np.float32)
        scatter[np.arange(len(columns)), columns] = 1
        joined = node.emit(ConcatenateOp(counts, axis)) if len(counts) > 1 else counts[0]
        if len(shape) == 1:
            joined = node.emit(ExpandDimsOp(joined, 0))
        freq = node.emit(MatmulOp(joined, node.const(scatter)))  # [B or 1, size]
        if len(shape) == 1:
            freq = node.emit(SqueezeOp(freq, [0]))
        # The weight of pool n-gram j sits in its column, ngram_indexes[j] (as onnxruntime).
        w_out = np.ones(size, np.float32)
        if weights is not None:
            w_out[indexes] = weights
        w = node.const(w_out)
        if mode == "TF":
            return freq
        if mode == "IDF":
            positive = node.emit(GreaterOp(freq, node.const(np.array(0, np.float32))))
            return node.emit(WhereOp(positive, w, node.const(np.array(0, np.float32))))
        return freq if weights is None else node.emit(MultiplyOp(freq, w))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"TfIdfVectorizer": TfIdfVectorizer}
