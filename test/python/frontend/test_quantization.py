"""The quantization converters (``xtvm/frontend/onnx/quantization.py``),
each on a one-node model, against onnxruntime: the relay IR with qnn ops
(evaluated with the references) and the compiled module.

onnxruntime runs the ``com.microsoft`` QOperator ops. The integers must
equal onnxruntime's: the qnn ops use its arithmetic (float32 scale ratios,
halves to even), even where it computes through a float lookup table
(QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax); ``steps`` allows a
difference where a case needs one.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from compiled_testing import run_compiled
from onnx import helper
from onnx_testing import import_error, init, run_ort, tensor

from xtvm.frontend import from_onnx
from xtvm.passes.relay.evaluate import evaluate_function

MS = "com.microsoft"
RNG = np.random.default_rng(0)


def ms_model(
    op_type, inputs, feeds, inits, out, domain=MS, out_type=onnx.TensorProto.UINT8, **attrs
) -> onnx.ModelProto:
    """One ``op_type`` node (named ``q``) whose output ``y`` has shape ``out``."""
    node = helper.make_node(op_type, list(inputs), ["y"], name="q", domain=domain, **attrs)
    graph = helper.make_graph(
        [node],
        "test",
        [tensor(n, v.shape, helper.np_dtype_to_tensor_dtype(v.dtype)) for n, v in feeds.items()],
        [tensor("y", list(out), out_type)],
        [init(n, v) for n, v in inits.items()],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)]
    )
    model.ir_version = 8
    return model


def check(model, feeds, expected_op: str, steps: int = 0) -> None:
    """The imported IR holds ``expected_op``; the references and the compiled
    module give onnxruntime's integers within ``steps``."""
    (want,) = run_ort(model, feeds)
    module, params = from_onnx(model)
    assert expected_op in str(module)
    args = [feeds.get(n, params.get(n)) for n in _arg_names(module)]
    (ref,) = evaluate_function(module, "main", args)
    (got,) = run_compiled(model, feeds)
    for ours in (ref, got):
        assert ours.dtype == want.dtype and ours.shape == want.shape
        diff = np.abs(ours.astype(np.int64) - want.astype(np.int64)).max()
        assert diff <= steps, f"{expected_op}: max |Δ| {diff} > {steps}"


def _arg_names(module) -> list[str]:
    from onnx_testing import arg_names

    return arg_names(module)


def u8(*shape):
    return RNG.integers(0, 256, shape).astype(np.uint8)


def qparams(prefix: str, scale: float, zp: int, dtype=np.uint8) -> dict[str, np.ndarray]:
    return {f"{prefix}_s": np.array(scale, np.float32), f"{prefix}_z": np.array(zp, dtype)}


@pytest.mark.parametrize("op_type,expected", [("QLinearAdd", "qnn.add"), ("QLinearMul", "qnn.mul")])
def test_qlinear_binary(op_type, expected):
    feeds = {"a": u8(2, 8), "b": u8(2, 8)}
    inits = {**qparams("a", 0.05, 120), **qparams("b", 0.03, 100), **qparams("y", 0.07, 128)}
    inputs = ["a", "a_s", "a_z", "b", "b_s", "b_z", "y_s", "y_z"]
    check(ms_model(op_type, inputs, feeds, inits, (2, 8)), feeds, expected, )


def test_qlinear_concat():
    feeds = {"a": u8(1, 2, 3), "b": u8(1, 4, 3)}
    inits = {**qparams("a", 0.05, 120), **qparams("b", 0.1, 100), **qparams("y", 0.08, 128)}
    inputs = ["y_s", "y_z", "a", "a_s", "a_z", "b", "b_s", "b_z"]
    model = ms_model("QLinearConcat", inputs, feeds, inits, (1, 6, 3), axis=1)
    check(model, feeds, "qnn.concatenate")


def test_qlinear_average_pools():
    feeds = {"x": u8(1, 3, 6, 6)}
    inits = {**qparams("x", 0.05, 120), **qparams("y", 0.04, 110)}
    inputs = ["x", "x_s", "x_z", "y_s", "y_z"]
    model = ms_model("QLinearGlobalAveragePool", inputs, feeds, inits, (1, 3, 1, 1))
    check(model, feeds, "qnn.avg_pool2d")
    model = ms_model(
        "QLinearAveragePool",
        inputs,
        feeds,
        inits,
        (1, 3, 2, 2),
        kernel_shape=[3, 3],
        strides=[2, 2],
    )
    check(model, feeds, "qnn.avg_pool2d")


@pytest.mark.parametrize(
    "op_type,attrs,op",
    [
        ("QLinearSigmoid", {}, "relay.sigmoid"),
        ("QLinearLeakyRelu", {"alpha": 0.1}, "qnn.requantize"),
        ("QLinearSoftmax", {"axis": -1, "opset": 13}, "relay.nn.softmax"),
    ],
)
def test_qlinear_float_lookup_ops(op_type, attrs, op):
    feeds = {"x": u8(2, 10)}
    inits = {**qparams("x", 0.05, 120), **qparams("y", 1 / 256, 0)}
    model = ms_model(op_type, ["x", "x_s", "x_z", "y_s", "y_z"], feeds, inits, (2, 10), **attrs)
    check(model, feeds, op, )


def test_qlinear_conv_per_channel():
    feeds = {"x": u8(1, 3, 7, 7)}
    inits = {
        **qparams("x", 0.02, 120),
        "w": RNG.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8),
        "w_s": np.array([0.01, 0.02, 0.005, 0.03], np.float32),
        "w_z": np.zeros(4, np.int8),
        **qparams("y", 0.1, 128),
        "b": RNG.integers(-500, 500, 4).astype(np.int32),
    }
    inputs = ["x", "x_s", "x_z", "w", "w_s", "w_z", "y_s", "y_z", "b"]
    out = (1, 4, 7, 7)
    model = ms_model("QLinearConv", inputs, feeds, inits, out, domain="", pads=[1, 1, 1, 1])
    check(model, feeds, "qnn.conv2d")


def test_qgemm_quantized_and_float_output():
    feeds = {"a": u8(2, 16)}
    inits = {
        **qparams("a", 0.02, 120),
        "b": RNG.integers(-127, 128, (8, 16)).astype(np.int8),
        **qparams("b", 0.01, 0, np.int8),
        "c": RNG.integers(-500, 500, 8).astype(np.int32),
        **qparams("y", 0.05, 128),
    }
    inputs = ["a", "a_s", "a_z", "b", "b_s", "b_z", "c", "y_s", "y_z"]
    check(ms_model("QGemm", inputs, feeds, inits, (2, 8), transB=1), feeds, "qnn.dense")
    f32 = onnx.TensorProto.FLOAT
    model = ms_model("QGemm", inputs[:7], feeds, inits, (2, 8), out_type=f32, transB=1)
    (want,) = run_ort(model, feeds)
    (got,) = run_compiled(model, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_unknown_microsoft_op_names_the_node():
    feeds = {"x": u8(2, 4)}
    model = ms_model("QLinearWhatever", ["x"], feeds, {}, (2, 4))
    assert "com.microsoft.QLinearWhatever (opset 1)" in import_error(model)
    assert "node 'q'" in import_error(model)


def test_qdq_region_without_integer_form_names_the_node():
    """A dequantize → Erf → quantize region: the compile names the op and
    the ONNX value instead of computing it in float."""
    import xtvm

    nodes = [
        helper.make_node("DequantizeLinear", ["x", "s", "z"], ["xf"]),
        helper.make_node("Erf", ["xf"], ["gelu_out"], name="gelu"),
        helper.make_node("QuantizeLinear", ["gelu_out", "s", "z"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [tensor("x", [4], onnx.TensorProto.UINT8)],
        [tensor("y", [4], onnx.TensorProto.UINT8)],
        [init("s", np.array(0.1, np.float32)), init("z", np.array(128, np.uint8))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    mod, params = from_onnx(model)
    with pytest.raises(Exception, match=r"'relay.erf' \(value %gelu_out\)"):
        xtvm.build(mod, params=params)


@pytest.mark.parametrize(
    "dtype,axis", [(np.int32, None), (np.int8, -1), (np.uint16, 1), (np.int16, 0)]
)
def test_dequantize_then_quantize_dtypes_and_axes(dtype, axis):
    """DequantizeLinear of int32 (a bias, no zero point) and per-axis
    int8/uint16/int16 (a negative axis too), then QuantizeLinear back."""
    info = np.iinfo(dtype)
    x = RNG.integers(max(info.min, -1000), min(info.max, 1000), (3, 4)).astype(dtype)
    size = 4 if axis in (-1, 1) else 3 if axis == 0 else 1
    scale = RNG.uniform(0.01, 0.1, size).astype(np.float32).reshape(() if axis is None else -1)
    inits = {"s": scale}
    inputs = ["x", "s"]
    if dtype != np.int32:
        inits["z"] = RNG.integers(-5, 5, scale.shape).astype(dtype) if info.min < 0 else (
            RNG.integers(0, 5, scale.shape).astype(dtype)
        )
        inputs.append("z")
    attrs = {} if axis is None else {"axis": axis}
    nodes = [
        helper.make_node("DequantizeLinear", inputs, ["f"], **attrs),
        helper.make_node("QuantizeLinear", ["f", *inputs[1:]], ["y"], **attrs),
    ]
    y_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype if dtype != np.int32 else np.uint8))
    graph = helper.make_graph(
        nodes,
        "dq",
        [tensor("x", [3, 4], helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))],
        [tensor("y", [3, 4], y_type), tensor("f", [3, 4], onnx.TensorProto.FLOAT)],
        [init(n, v) for n, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    feeds = {"x": x}
    want = run_ort(model, feeds)
    got = run_compiled(model, feeds)
    for w, g in zip(want, got, strict=True):
        assert w.dtype == g.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "c,o,k,stride,pad", [(3, 96, 7, 2, 0), (96, 16, 1, 1, 0), (16, 64, 3, 1, 1)]
)
def test_conv_integer_uint8_weights_compiled_exactly(c, o, k, stride, pad):
    """ConvInteger with uint8 weights and zero points (the dynamic models'
    convolutions, SqueezeNet's shapes), through qnn-canonicalize's
    conv2d-uint8-weight rule and the int8 kernels: exactly NumPy's integers."""
    from node_testing import node_model

    from xtvm.reference.relay.conv import conv

    x = RNG.integers(0, 256, (1, c, 15, 15)).astype(np.uint8)
    w = RNG.integers(0, 256, (o, c, k, k)).astype(np.uint8)
    inits = {"w": w, "xz": np.array(7, np.uint8), "wz": np.array(131, np.uint8)}
    model = node_model(
        "ConvInteger",
        ["x", "w", "xz", "wz"],
        {"x": x},
        inits,
        opset=10,
        pads=[pad] * 4,
        strides=[stride] * 2,
    )
    want = conv(
        x.astype(np.int32) - 7, w.astype(np.int32) - 131, (stride,) * 2, (pad,) * 4
    )
    (got,) = run_compiled(model, {"x": x})
    np.testing.assert_array_equal(got, want)
