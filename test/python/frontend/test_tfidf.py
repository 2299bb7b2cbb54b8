"""TfIdfVectorizer, compiled, against onnxruntime: every mode, with and
without weights, 1-d and 2-d input, unigrams to trigrams with skips."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx_testing import import_error, run_ort, tensor


def _model(xshape, elem, **attrs):
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    size = max(attrs["ngram_indexes"]) + 1
    yshape = [size] if len(xshape) == 1 else [xshape[0], size]
    graph = helper.make_graph([node], "tfidf", [tensor("x", xshape, elem)], [tensor("y", yshape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


POOL = {
    "ngram_counts": [0, 4, 10],
    "pool_int64s": [2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 5, 6, 7, 6, 7, 8],  # 4 uni, 3 bi, 2 tri
    "ngram_indexes": [8, 1, 2, 3, 4, 0, 5, 6, 7],
}


@pytest.mark.parametrize(
    ("mode", "weighted", "xshape", "dtype", "elem"),
    [
        ("TF", False, (14,), np.int32, TensorProto.INT32),
        ("IDF", False, (3, 9), np.int64, TensorProto.INT64),
        ("IDF", True, (14,), np.int32, TensorProto.INT32),
        ("TFIDF", False, (14,), np.int64, TensorProto.INT64),
        ("TFIDF", True, (3, 9), np.int32, TensorProto.INT32),
    ],
)
def test_tfidf_matches_onnxruntime(mode, weighted, xshape, dtype, elem):
    attrs = dict(POOL, mode=mode, min_gram_length=1, max_gram_length=3, max_skip_count=2)
    if weighted:
        attrs["weights"] = [0.5, 1.0, 2.0, 3.0, 0.25, 1.5, 2.5, 4.0, 0.75]
    model = _model(list(xshape), elem, **attrs)
    x = np.random.default_rng(3).integers(2, 9, xshape).astype(dtype)
    (got,) = run_compiled(model, {"x": x})
    (want,) = run_ort(model, {"x": x})
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("xshape", [(9,), (2, 6)])
def test_tfidf_string_pool_matches_onnxruntime(xshape):
    from xtvm.frontend.onnx.backend import XtvmBackend

    attrs = {
        "mode": "TF",
        "min_gram_length": 1,
        "max_gram_length": 2,
        "max_skip_count": 1,
        "ngram_counts": [0, 3],
        "pool_strings": ["the", "cat", "é", "the", "cat", "cat", "sat"],
        "ngram_indexes": [0, 1, 2, 3, 4],
    }
    model = _model(list(xshape), TensorProto.STRING, **attrs)
    words = np.random.default_rng(5).choice(["the", "cat", "sat", "é", "a"], xshape)
    x = np.array(words.tolist(), object)
    (got,) = XtvmBackend.prepare(model).run([x])
    (want,) = run_ort(model, {"x": x})
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_tfidf_refuses_a_string_pool_for_integers():
    model = _model(
        [4],
        TensorProto.INT64,
        mode="TF",
        ngram_counts=[0],
        ngram_indexes=[0],
        pool_strings=["a"],
        min_gram_length=1,
        max_gram_length=1,
        max_skip_count=0,
    )
    assert "must both be strings or integers" in import_error(model)
