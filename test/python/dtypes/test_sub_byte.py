"""The sub-byte element types (int4, uint4, int2, uint2, float4_e2m1fn) end to
end (docs/sub-byte-types.md): the packing of the runtime against ONNX's own
packers, NDArray's NumPy boundary, and compiled ONNX models (Cast,
QuantizeLinear, DequantizeLinear, a packed constant) against ``ml_dtypes``
and onnx's reference evaluator, with odd element counts (a padded last
byte, elements of two rows sharing a byte) and shapes large enough for the
default schedules' parallel and vectorized loops."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from xtvm.frontend.onnx.backend import XtvmBackend
from xtvm.reference.relay.tensor import sub_byte_int_cast
from xtvm.runtime import ndarray as nd
from xtvm.runtime import packing
from xtvm.runtime.base import XTVMError
from xtvm.runtime.metadata import load_param_dict, save_param_dict

# The ml_dtypes references convert out-of-range floats, which is the point.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast")

SUB_BYTE = ["int4", "uint4", "int2", "uint2", "float4_e2m1fn"]
ONNX_TYPE = {
    "int4": TensorProto.INT4,
    "uint4": TensorProto.UINT4,
    "int2": TensorProto.INT2,
    "uint2": TensorProto.UINT2,
    "float4_e2m1fn": TensorProto.FLOAT4E2M1,
}


def _every_value(dtype: str, count: int) -> np.ndarray:
    """``count`` elements of ``dtype`` cycling through all its bit patterns
    (a float4's 16 codes include -0)."""
    bits = packing.SUB_BYTE_BITS[dtype]
    codes = (np.arange(count) * 7 % (1 << bits)).astype(np.uint8)
    return codes.view(packing.numpy_dtype(dtype))


def _onnx_pack(values: np.ndarray) -> np.ndarray:
    if packing.SUB_BYTE_BITS[values.dtype.name] == 4:
        return numpy_helper._pack_4bitx2(values)
    return numpy_helper._pack_2bitx4(values)


@pytest.mark.parametrize("dtype", SUB_BYTE)
@pytest.mark.parametrize("count", [1, 2, 3, 5, 8, 25])
def test_packing_is_onnx_packing_and_round_trips(dtype: str, count: int) -> None:
    values = _every_value(dtype, count)
    packed = packing.pack(values)
    assert packed.dtype == np.uint8 and packed.size == packing.packed_nbytes(count, dtype)
    np.testing.assert_array_equal(packed, _onnx_pack(values))
    back = packing.unpack(packed, (count,), dtype)
    assert back.dtype == values.dtype
    np.testing.assert_array_equal(back.view(np.uint8), values.view(np.uint8))


def test_unpack_ignores_padding_and_sign_extends() -> None:
    # 0xF9: element 0 is 9 (int4 -7), element 1 is 15 (-1); the last byte's
    # high nibble is padding, set to junk here.
    data = np.array([0xF9, 0xA8], np.uint8)
    np.testing.assert_array_equal(packing.unpack(data, (3,), "int4").astype(np.int8), [-7, -1, -8])
    np.testing.assert_array_equal(packing.unpack(data, (3,), "uint4").astype(np.uint8), [9, 15, 8])
    np.testing.assert_array_equal(
        packing.unpack(np.array([0b11100100], np.uint8), (4,), "int2").astype(np.int8),
        [0, 1, -2, -1],
    )


@pytest.mark.parametrize("dtype", SUB_BYTE)
def test_ndarray_holds_packed_bytes(dtype: str) -> None:
    values = _every_value(dtype, 15).reshape(3, 5)
    arr = nd.array(values)
    assert (arr.shape, arr.dtype, arr.nbytes) == ((3, 5), dtype, packing.nbytes((3, 5), dtype))
    bits = arr.handle.contents.dtype.bits
    assert bits == packing.SUB_BYTE_BITS[dtype]
    np.testing.assert_array_equal(arr._array[: arr.nbytes], _onnx_pack(values.reshape(-1)))
    np.testing.assert_array_equal(arr.numpy().view(np.uint8), values.view(np.uint8))
    other = nd.empty((3, 5), dtype)
    other.copyfrom(arr)
    np.testing.assert_array_equal(other.numpy().view(np.uint8), values.view(np.uint8))
    copy = nd.array(arr)
    np.testing.assert_array_equal(copy.numpy().view(np.uint8), values.view(np.uint8))


def test_ndarray_errors_name_the_dtype() -> None:
    values = np.array([1, 2, 3], ml_dtypes.int4)
    with pytest.raises(XTVMError, match="int4 holds its elements packed"):
        nd.NDArray(values)
    with pytest.raises(XTVMError, match=r"expected shape \(3,\) int4, got \(3,\) int8"):
        nd.empty((3,), "int4").copyfrom(np.array([1, 2, 3], np.int8))
    arr = nd.empty((3,), "int4")
    arr.copyfrom([1, -2, 7])
    assert arr.numpy().tolist() == [1, -2, 7]


def test_param_dict_round_trips_packed() -> None:
    params = {"w": _every_value("int4", 7).reshape(7, 1), "u": _every_value("uint2", 5)}
    loaded = load_param_dict(save_param_dict(params))
    for name, value in params.items():
        assert loaded[name].dtype == value.dtype and loaded[name].shape == value.shape
        np.testing.assert_array_equal(loaded[name].view(np.uint8), value.view(np.uint8))


def _model(nodes, inputs, outputs, initializers=(), opset: int = 25) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _run(model: onnx.ModelProto, *inputs: np.ndarray) -> list[np.ndarray]:
    return list(XtvmBackend.prepare(model).run(list(inputs)))


def _same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", ["int4", "uint4", "int2", "uint2"])
def test_cast_from_float_truncates_and_zeroes_out_of_range(dtype: str) -> None:
    # Odd rows (elements of two rows share a byte) and enough of them for a
    # parallel outer loop; halves, out-of-range values, NaN and infinities.
    x = np.linspace(-20.0, 20.0, 64 * 33, dtype=np.float32).reshape(64, 33)
    x.flat[:6] = [np.nan, np.inf, -np.inf, -0.5, 7.5, -8.5]
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=ONNX_TYPE[dtype])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", ONNX_TYPE[dtype], x.shape)],
    )
    (got,) = _run(model, x)
    _same(got, sub_byte_int_cast(x, packing.numpy_dtype(dtype)))  # out of range: 0


@pytest.mark.parametrize("dtype", ["int4", "uint4", "int2", "uint2", "float4_e2m1fn"])
def test_cast_to_float_sign_extends(dtype: str) -> None:
    # Every bit pattern, in a 3x7 tensor (rows share bytes).
    values = _every_value(dtype, 21).reshape(3, 7)
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)],
        [helper.make_tensor_value_info("x", ONNX_TYPE[dtype], values.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, values.shape)],
    )
    (got,) = _run(model, values)
    _same(got, values.astype(np.float32))


def test_cast_to_float4_rounds_to_nearest_even_and_saturates() -> None:
    x = np.array(
        [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 5.5, 7.0, -0.3, 1e9, -np.inf, 0.1, -0.0, 4.9],
        np.float32,
    ).reshape(3, 5)
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT4E2M1)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT4E2M1, x.shape)],
    )
    (got,) = _run(model, x)
    _same(got, x.astype(ml_dtypes.float4_e2m1fn))


@pytest.mark.parametrize(
    ("dtype", "axis", "block_size", "shape", "param_shape"),
    [
        ("int4", 1, 0, (4, 7), (7,)),  # per-axis, saturating both ways
        ("uint4", 0, 0, (5, 3), ()),  # per-tensor
        ("int2", 1, 3, (3, 7), (3, 3)),  # blocked, the last block short
        ("uint2", 0, 0, (7,), ()),
    ],
)
def test_quantize_dequantize_saturate_as_onnx(
    dtype: str, axis: int, block_size: int, shape: tuple, param_shape: tuple
) -> None:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 6).astype(np.float32)
    scale = rng.uniform(0.5, 2.0, param_shape).astype(np.float32)
    info = ml_dtypes.iinfo(dtype)
    zp = rng.integers(info.min, info.max + 1, param_shape).astype(packing.numpy_dtype(dtype))
    attrs = {"axis": axis, **({"block_size": block_size} if block_size else {})}
    model = _model(
        [
            helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], **attrs),
            helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"], **attrs),
        ],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [
            helper.make_tensor_value_info("q", ONNX_TYPE[dtype], shape),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, shape),
        ],
        # the parameters are initializers: zp becomes a packed constant
        [numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zp, "zp")],
    )
    want_q, want_y = ReferenceEvaluator(model).run(None, {"x": x})
    got_q, got_y = _run(model, x)
    _same(got_q, want_q)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-6)
    assert got_q.astype(np.int8).min() >= info.min and got_q.astype(np.int8).max() <= info.max


def test_packed_constant_reaches_outputs_and_kernels() -> None:
    # An int4 initializer of 15 elements: returned reshaped (a packed
    # constant global copied out) and dequantized with a run-time scale (a
    # kernel reading the packed global).
    w = _every_value("int4", 15).reshape(3, 5)
    model = _model(
        [
            helper.make_node("Reshape", ["w", "shape"], ["r"]),
            helper.make_node("DequantizeLinear", ["w", "s"], ["y"], axis=0),
        ],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [3])],
        [
            helper.make_tensor_value_info("r", TensorProto.INT4, [5, 3]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5]),
        ],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array([5, 3]), "shape")],
    )
    s = np.array([0.5, 2.0, -1.0], np.float32)
    got_r, got_y = _run(model, s)
    _same(got_r, w.reshape(5, 3))
    np.testing.assert_array_equal(got_y, w.astype(np.float32) * s[:, None])


def test_rpc_tensors_travel_unpacked() -> None:
    from xtvm.rpc.protocol import tensor_from, tensor_header

    values = _every_value("int4", 7)
    blobs: list = []
    header = tensor_header(nd.array(values).view(), blobs)
    assert header["dtype"] == "int4" and header["shape"] == [7]
    back = tensor_from(header, [memoryview(bytes(blobs[0]))])
    _same(back, values)


def test_c_header_sizes_packed_tensors() -> None:
    from xtvm.codegen.c_header import make_header

    entry = {
        "run": "tvmgen_default_run",
        "run_with_workspace": "tvmgen_default_run_with_workspace",
        "workspace_size": "tvmgen_default_workspace_size",
        "workspace_bytes": 0,
        "inputs": [{"name": "q", "shape": [3, 5], "dtype": "int4"}],
        "outputs": [{"name": "u", "shape": [7], "dtype": "uint2"}],
    }
    text = make_header(entry)
    assert "#define TVMGEN_DEFAULT_Q_SIZE 8" in text  # 15 nibbles
    assert "#define TVMGEN_DEFAULT_U_SIZE 2" in text  # 7 two-bit elements


def test_vm_dynamic_kernel_with_a_packed_constant() -> None:
    # A ? dimension selects the VM: its constant table packs the int4
    # constant; the kernel writes a run-time number of packed rows (odd
    # counts of nibbles); relay.where moves int4 values without arithmetic.
    import xtvm
    from xtvm.driver.pipeline import mlir_context
    from xtvm.ir.parse import parse_module
    from xtvm.runtime.vm import VirtualMachine

    text = """
    func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xi4> {
      %q = relay.cast %x {dtype = "int4"} : (tensor<?x3xf32>) -> tensor<?x3xi4>
      %c = relay.const dense<[[1, -2, 7]]> : tensor<1x3xi4>
      %z = relay.const dense<0.0> : tensor<f32>
      %m = relay.greater %x, %z : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xi1>
      %y = relay.where %m, %q, %c : (tensor<?x3xi1>, tensor<?x3xi4>, tensor<1x3xi4>) -> tensor<?x3xi4>
      func.return %y : tensor<?x3xi4>
    }
    """
    vm = VirtualMachine(xtvm.build(parse_module(text, "<test>", mlir_context())), xtvm.cpu(0))
    c = np.array([[1, -2, 7]], ml_dtypes.int4)
    for rows in (1, 5):
        x = np.linspace(-9, 9, rows * 3, dtype=np.float32).reshape(rows, 3)
        _same(vm.invoke("main", x).numpy(), np.where(x > 0, sub_byte_int_cast(x, ml_dtypes.int4), c))


@pytest.mark.parametrize("dtype", ["int4", "uint2"])
def test_cast_from_wider_integers_keeps_the_low_bits(dtype: str) -> None:
    x = np.arange(-20, 21, dtype=np.int32).reshape(1, 41)
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=ONNX_TYPE[dtype])],
        [helper.make_tensor_value_info("x", TensorProto.INT32, x.shape)],
        [helper.make_tensor_value_info("y", ONNX_TYPE[dtype], x.shape)],
    )
    (got,) = _run(model, x)
    _same(got, x.astype(packing.numpy_dtype(dtype)))  # as C (and ml_dtypes) truncate


@pytest.mark.skipif(__import__("shutil").which("cc") is None, reason="needs a C compiler (cc)")
def test_c_target_packs_as_llvm_does() -> None:
    # The C source target reads and writes the same packed bytes: a cast to
    # int4 over odd rows sized for a parallel loop, a cast back, a uint2
    # quantization with a packed zero point.
    from xtvm.target import Target

    x = np.linspace(-20.0, 20.0, 64 * 33, dtype=np.float32).reshape(64, 33)
    zp = np.array([1, 3, 0], ml_dtypes.uint2)
    model = _model(
        [
            helper.make_node("Cast", ["x"], ["q"], to=TensorProto.INT4),
            helper.make_node("Cast", ["q"], ["f"], to=TensorProto.FLOAT),
            helper.make_node("QuantizeLinear", ["x3", "s", "zp"], ["u"], axis=1),
        ],
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
            helper.make_tensor_value_info("x3", TensorProto.FLOAT, [5, 3]),
        ],
        [
            helper.make_tensor_value_info("q", TensorProto.INT4, x.shape),
            helper.make_tensor_value_info("f", TensorProto.FLOAT, x.shape),
            helper.make_tensor_value_info("u", TensorProto.UINT2, [5, 3]),
        ],
        [numpy_helper.from_array(np.float32([0.5, 1, 2]), "s"), numpy_helper.from_array(zp, "zp")],
    )
    x3 = np.linspace(-3, 3, 15, dtype=np.float32).reshape(5, 3)
    with Target.from_string("c"):
        q, f, u = _run(model, x, x3)
    _same(q, sub_byte_int_cast(x, ml_dtypes.int4))
    _same(f, sub_byte_int_cast(x, ml_dtypes.int4).astype(np.float32))
    _same(u, ReferenceEvaluator(model).run(["u"], {"x": x, "x3": x3})[0])


def test_vm_reshape_keeps_the_packed_bytes() -> None:
    import xtvm
    from xtvm.driver.pipeline import mlir_context
    from xtvm.ir.parse import parse_module
    from xtvm.runtime.vm import VirtualMachine

    text = """
    vm.func @main(%x: tensor<5xi4>) -> tensor<5x1xi4> {
      %r = vm.reshape_tensor %x : tensor<5xi4> -> tensor<5x1xi4>
      vm.ret %r : tensor<5x1xi4>
    }
    """
    vm = VirtualMachine(xtvm.build(parse_module(text, "<test>", mlir_context())), xtvm.cpu(0))
    x = np.array([1, -2, 7, -8, 3], ml_dtypes.int4)
    _same(vm.invoke("main", x).numpy(), x.reshape(5, 1))
