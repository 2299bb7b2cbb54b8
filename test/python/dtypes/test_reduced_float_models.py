"""bfloat16 and float8 end to end: NDArrays with their DLPack codes, ONNX
models whose ops compute in float32 between storage-float inputs and outputs
(against onnx's reference evaluator), Cast's saturate modes, and the clear
error for arithmetic on a storage float in relay."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from xtvm.frontend.onnx.backend import XtvmBackend
from xtvm.runtime import ndarray as nd


@pytest.mark.parametrize(
    ("dtype", "code", "bits"),
    [
        ("bfloat16", 4, 16),
        ("float8_e4m3fn", 10, 8),
        ("float8_e4m3fnuz", 11, 8),
        ("float8_e5m2", 12, 8),
        ("float8_e5m2fnuz", 13, 8),
        ("float8_e8m0fnu", 14, 8),
    ],
)
def test_ndarray_holds_the_bits_with_the_dlpack_code(dtype: str, code: int, bits: int) -> None:
    values = np.array([0.5, 2.0, 4.0], np.float32).astype(dtype)
    a = nd.array(values)
    assert a.dtype == dtype
    assert (a.handle.contents.dtype.code, a.handle.contents.dtype.bits) == (code, bits)
    back = a.numpy()
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back.view(f"uint{bits}"), values.view(f"uint{bits}"))


def _model(nodes, inputs, outputs, opset=23):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _run_both(model, feeds):
    want = ReferenceEvaluator(model).run(None, dict(feeds))
    got = XtvmBackend.prepare(model).run([v for _, v in feeds])
    return got, want


def test_bfloat16_elementwise_chain_matches_onnx_reference() -> None:
    """Each node rounds its float32 result to bfloat16, as the reference's
    ml_dtypes arithmetic does after each op: the results are equal."""
    shape = [4, 5]
    bf = TensorProto.BFLOAT16
    model = _model(
        [
            helper.make_node("Mul", ["x", "y"], ["p"]),
            helper.make_node("Add", ["p", "x"], ["s"]),
            helper.make_node("Relu", ["s"], ["r"]),
            helper.make_node("Sqrt", ["r"], ["out"]),
        ],
        [helper.make_tensor_value_info(n, bf, shape) for n in ("x", "y")],
        [helper.make_tensor_value_info("out", bf, shape)],
    )
    rng = np.random.default_rng(18)
    x = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    y = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    (got,), (want,) = _run_both(model, [("x", x), ("y", y)])
    assert got.dtype == np.dtype("bfloat16")
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_layer_norm_keeps_its_float32_statistics() -> None:
    """ONNX types LayerNormalization's mean and inverse deviation as float32
    (stash_type): only the normalized output goes back to bfloat16."""
    bf = TensorProto.BFLOAT16
    model = _model(
        [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "m", "v"], axis=-1)],
        [
            helper.make_tensor_value_info("x", bf, [2, 8]),
            helper.make_tensor_value_info("s", bf, [8]),
            helper.make_tensor_value_info("b", bf, [8]),
        ],
        [
            helper.make_tensor_value_info("y", bf, [2, 8]),
            helper.make_tensor_value_info("m", TensorProto.FLOAT, [2, 1]),
            helper.make_tensor_value_info("v", TensorProto.FLOAT, [2, 1]),
        ],
    )
    rng = np.random.default_rng(3)
    feeds = [
        (n, rng.standard_normal(s).astype(ml_dtypes.bfloat16))
        for n, s in (("x", (2, 8)), ("s", (8,)), ("b", (8,)))
    ]
    got, want = _run_both(model, feeds)
    assert [g.dtype.name for g in got] == ["bfloat16", "float32", "float32"]
    np.testing.assert_allclose(got[0].astype(np.float32), want[0].astype(np.float32), atol=0.05)
    # the reference averages in bfloat16 (and types the mean so); ONNX
    # specifies float32 statistics
    x = feeds[0][1].astype(np.float32)
    np.testing.assert_allclose(got[1], x.mean(-1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize(
    "to", [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E5M2]
)
def test_cast_to_float8_saturates_as_onnx(to: int, saturate: int) -> None:
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=to, saturate=saturate)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [9])],
        [helper.make_tensor_value_info("y", to, [9])],
    )
    x = np.array([0.3, -1e6, 1e6, np.inf, -np.inf, np.nan, 500.0, 60000.0, -0.0], np.float32)
    (got,), (want,) = _run_both(model, [("x", x)])
    g, w = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    np.testing.assert_array_equal(g[~np.isnan(w)], w[~np.isnan(w)])


def test_c_header_describes_bfloat16_and_float8_tensors(tmp_path) -> None:
    """The AOT C header of a bfloat16 model gives the input's DLPack code and
    bits (kDLBfloat, 16) and its byte size."""
    from xtvm.codegen.c_header import header_of_library
    from xtvm.driver.build_module import build
    from xtvm.frontend.onnx.importer import from_onnx

    bf = TensorProto.BFLOAT16
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E5M2)],
        [helper.make_tensor_value_info("x", bf, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT8E5M2, [2, 3])],
    )
    path = str(tmp_path / "m.so")
    build(*from_onnx(model)[:1]).export_library(path)
    header = header_of_library(path)
    assert '{"x", "bfloat16", 4, 16, 2, {2, 3}, 12u}' in header
    assert '"float8_e5m2", 12, 8, 2, {2, 3}, 6u}' in header
