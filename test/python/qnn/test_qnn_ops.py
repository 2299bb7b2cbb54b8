"""The qnn ops' NumPy references, and ``qnn-canonicalize`` against them.

The references are checked on hand-computed values (ONNX's rounding: halves
to even, then saturation) and against onnx's own reference evaluator for
QuantizeLinear/DequantizeLinear. Each function of the canonicalization's lit
test is then evaluated on random inputs before the pass (qnn references)
and after it (relay references): the integer relay ops must give exactly
the same integers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from xtvm.constants import numpy_dtype
from xtvm.passes.qnn.canonicalize import QnnCanonicalizePass
from xtvm.passes.relay.evaluate import evaluate_function
from xtvm.reference import qnn as ref

LIT = Path(__file__).resolve().parents[2] / "lit" / "passes" / "qnn" / "qnn-canonicalize.mlir"


def test_quantize_rounds_halves_to_even_and_saturates():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1000.0, -1000.0], np.float32)
    q = ref.quantize(x, np.float32(1.0), np.uint8(10), out_dtype="uint8")
    assert q.tolist() == [10, 12, 12, 10, 8, 255, 0]
    q8 = ref.quantize(x, np.float32(1.0), np.int8(0), out_dtype="int8")
    assert q8.tolist() == [0, 2, 2, 0, -2, 127, -128]


def test_quantize_dequantize_match_onnx_reference():
    from onnx.reference.ops.op_dequantize_linear import DequantizeLinear_19
    from onnx.reference.ops.op_quantize_linear import QuantizeLinear_19

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32) * 5
    scale = np.array([0.1, 0.05, 0.3], np.float32)
    zp = np.array([3, -2, 0], np.int8)
    ours = ref.quantize(x, scale, zp, axis=1, out_dtype="int8")
    theirs = QuantizeLinear_19.eval(x, scale, zp, axis=1)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(
        ref.dequantize(ours, scale, zp, axis=1), DequantizeLinear_19.eval(ours, scale, zp, axis=1)
    )


def test_requantize_fixed_point_is_within_one_step_of_float():
    acc = np.arange(-5000, 5000, 7, dtype=np.int32)
    args = (acc, np.float32(0.0123), np.int32(0), np.float32(0.5), np.uint8(128))
    exact = ref.requantize(*args, axis=0, out_dtype="uint8", compute_dtype="float32")
    fixed = ref.requantize(*args, axis=0, out_dtype="uint8", compute_dtype="int64")
    assert np.abs(exact.astype(int) - fixed.astype(int)).max() <= 1


def test_conv2d_reference_subtracts_zero_points_with_real_zero_padding():
    x = np.full((1, 1, 2, 2), 5, np.uint8)
    w = np.ones((1, 1, 3, 3), np.int8)
    one = np.float32(1)
    y = ref.conv2d(x, w, np.uint8(5), np.int8(0), one, one, padding=(1, 1, 1, 1))
    assert not y.any()  # x - zx is zero everywhere, the padding too


def _functions():
    from xdsl.context import Context

    from xtvm.driver.pipeline import mlir_context

    ctx: Context = mlir_context()
    from xdsl.parser import Parser

    module = Parser(ctx, LIT.read_text()).parse_module()
    return ctx, module


def _random(ty: TensorType, rng: np.random.Generator) -> np.ndarray:
    dtype = numpy_dtype(ty.get_element_type())
    shape = tuple(ty.get_shape())
    if dtype.kind == "f":
        return rng.uniform(0.01, 0.5, shape).astype(dtype)  # scales: positive
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 200), shape).astype(dtype)


NAMES = [
    "quantize",
    "dequantize",
    "requantize_identity",
    "requantize_float32",
    "requantize_fixed_point",
    "conv2d",
    "conv2d_zero_points",
    "dense",
    "dense_uint8_weight",
    "dense_int8_data",
    "add_mul",
    "concatenate",
    "avg_pool2d",
    "avg_pool2d_window",
    "matmul",
    "quantize_blocked",
    "conv2d_uint8_weight",
    "conv2d_int8_weight",
    "conv2d_uint8_weight_128",
    "scalar",
]


@pytest.mark.parametrize("name", NAMES)
def test_canonicalized_equals_reference(name):
    ctx, module = _functions()
    f = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    rng = np.random.default_rng(1)
    inputs = [_random(arg.type, rng) for arg in f.body.block.args]
    before = evaluate_function(module, name, inputs)
    QnnCanonicalizePass().apply(ctx, module)
    text = str(module)
    assert "= qnn." not in text
    after = evaluate_function(module, name, inputs)
    for b, a in zip(before, after, strict=True):
        assert b.dtype == a.dtype
        np.testing.assert_array_equal(b, a)
