"""ai.onnx.ml Binarizer and ArrayFeatureExtractor against onnxruntime,
compiled."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx_testing import run_ort, tensor


def _ml_model(op: str, inputs: list[onnx.ValueInfoProto], output: onnx.ValueInfoProto, **attrs):
    node = helper.make_node(op, [i.name for i in inputs], ["y"], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph([node], "ml", inputs, [output])
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)],
    )
    model.ir_version = 8
    return model


@pytest.mark.parametrize(
    ("dtype", "elem"), [(np.float32, TensorProto.FLOAT), (np.int64, TensorProto.INT64)]
)
def test_binarizer(dtype, elem):
    x = np.random.default_rng(1).integers(-4, 5, (3, 4, 5)).astype(dtype)
    model = _ml_model(
        "Binarizer", [tensor("x", x.shape, elem)], tensor("y", x.shape, elem), threshold=1.0
    )
    feeds = {"x": x}
    (got,) = run_compiled(model, feeds)
    wants = [(x > 1).astype(dtype)]
    if dtype == np.float32:  # onnxruntime's Binarizer takes float only
        wants += run_ort(model, feeds)
    for want in wants:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("xshape", "ishape"), [((3, 4), (2,)), ((2, 3, 5), (1, 3)), ((6,), (2,))])
def test_array_feature_extractor(xshape, ishape):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(xshape).astype(np.float32)
    idx = rng.integers(0, xshape[-1], ishape).astype(np.int64)
    inputs = [tensor("x", xshape), tensor("i", ishape, TensorProto.INT64)]
    count = int(np.prod(ishape))
    yshape = (1, count) if len(xshape) == 1 else (*xshape[:-1], count)
    model = _ml_model("ArrayFeatureExtractor", inputs, tensor("y", yshape))
    feeds = {"x": x, "i": idx}
    (got,) = run_compiled(model, feeds)
    (want,) = run_ort(model, feeds)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
