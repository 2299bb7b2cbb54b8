"""Converters of neural-network ops: Relu, Softmax, LogSoftmax, Hardmax,
MatMul, MatMulInteger, Gemm."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper
from compiled_testing import compile_and_compare, run_compiled
from node_testing import node_model
from onnx_testing import import_and_compare, import_error, init, make_model, tensor

from xtvm.frontend import from_onnx

RNG = np.random.default_rng(0)


def randn(*shape: int, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize(
    ("elem", "dtype"), [(TensorProto.FLOAT, np.float32), (TensorProto.DOUBLE, np.float64)]
)
@pytest.mark.parametrize("opset", [6, 13, 14])
def test_relu(elem, dtype, opset):
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [tensor("x", [3, 4], elem)],
        [tensor("y", [3, 4], elem)],
        opset=opset,
    )
    import_and_compare(model, {"x": randn(3, 4, dtype=dtype)}, ["relay.nn.relu"])


SOFTMAX_FLAT = ["relay.reshape", "relay.nn.softmax", "relay.reshape"]


@pytest.mark.parametrize(
    ("opset", "attrs", "expected_ops"),
    [
        # Opset < 13: one softmax over all axes from `axis` on (default 1).
        (11, {}, SOFTMAX_FLAT),
        (11, {"axis": 1}, SOFTMAX_FLAT),
        (11, {"axis": 0}, SOFTMAX_FLAT),
        (11, {"axis": -2}, SOFTMAX_FLAT),
        (11, {"axis": 2}, ["relay.nn.softmax"]),
        (1, {"axis": 2}, ["relay.nn.softmax"]),
        # Opset 13: softmax along `axis` alone (default -1).
        (13, {}, ["relay.nn.softmax"]),
        (13, {"axis": 1}, ["relay.nn.softmax"]),
        (13, {"axis": 0}, ["relay.nn.softmax"]),
        (13, {"axis": -2}, ["relay.nn.softmax"]),
    ],
)
def test_softmax_opset_semantics(opset, attrs, expected_ops):
    model = make_model(
        [helper.make_node("Softmax", ["x"], ["y"], **attrs)],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 3, 4])],
        opset=opset,
    )
    import_and_compare(model, {"x": randn(2, 3, 4)}, expected_ops)


@pytest.mark.parametrize("opset", [11, 13])
def test_softmax_axis1_against_numpy(opset):
    # Opset 11 normalises over axes 1 and 2 together, opset 13 over axis 1 only.
    x = randn(2, 3, 4)
    e = np.exp(x)
    expected = e / e.sum(axis=(1, 2) if opset == 11 else 1, keepdims=True)
    model = make_model(
        [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 3, 4])],
        opset=opset,
    )
    ops = SOFTMAX_FLAT if opset == 11 else ["relay.nn.softmax"]
    import_and_compare(model, {"x": x}, ops, expected=[expected])


@pytest.mark.parametrize("opset", [11, 13])
def test_softmax_axis_out_of_range(opset):
    model = make_model(
        [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=3)],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 3, 4])],
        opset=opset,
    )
    assert import_error(model) == (
        f"node 'sm' (Softmax, opset {opset}): attribute 'axis' = 3 is out of range for rank 3"
    )


@pytest.mark.parametrize(
    ("op_type", "relay_op"), [("LogSoftmax", "log_softmax"), ("Hardmax", "hardmax")]
)
@pytest.mark.parametrize(("opset", "axis"), [(11, 1), (11, 2), (11, 0), (13, 1), (13, -1)])
def test_log_softmax_and_hardmax_opset_semantics(op_type, relay_op, opset, axis):
    x = randn(2, 3, 4) * 10
    x[0, 0, :2] = x[0, 0, 3]  # a tie: hardmax takes the first maximum
    op = [f"relay.nn.{relay_op}"]
    flat = opset < 13 and axis != 2  # the input is coerced to 2-d at `axis`
    model = node_model(op_type, ["x"], {"x": x}, opset=opset, axis=axis)
    compile_and_compare(
        model, {"x": x}, ["relay.reshape", *op, "relay.reshape"] if flat else op, atol=1e-5
    )


@pytest.mark.parametrize(
    ("zero_points", "consts"),
    [({}, 3), ({"az": np.array(12, np.uint8), "bz": np.array([3], np.uint8)}, 1)],
)
def test_matmul_integer(zero_points, consts):
    # a 2-d B is the weight of a qnn.dense, transposed; the scale (and the
    # zero points left out) are constants
    rng = np.random.default_rng(0)
    feeds = {"a": rng.integers(0, 255, (4, 3)).astype(np.uint8)}
    inits = {"b": rng.integers(0, 255, (3, 2)).astype(np.uint8), **zero_points}
    model = node_model("MatMulInteger", ["a", *inits], feeds, inits, opset=10)
    compile_and_compare(model, feeds, [*["relay.const"] * consts, "relay.transpose", "qnn.dense"])


def test_matmul_integer_zero_point_per_row():
    # onnxruntime takes scalar zero points only: compare with NumPy.
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 255, (4, 3)), rng.integers(0, 255, (3, 2))
    zero = np.array([1, 2, 3, 4])
    inits = {"b": b.astype(np.uint8), "az": zero.astype(np.uint8)}
    feeds = {"a": a.astype(np.uint8)}
    model = node_model("MatMulInteger", ["a", "b", "az"], feeds, inits, opset=10)
    (got,) = run_compiled(model, feeds)
    np.testing.assert_array_equal(got, ((a - zero[:, None]) @ b).astype(np.int32))


MATMUL_CASES = [
    ((3, 4), (4, 5), (3, 5), ["relay.nn.matmul"]),
    ((2, 3, 4), (4, 5), (2, 3, 5), ["relay.nn.matmul"]),
    ((2, 1, 3, 4), (5, 4, 6), (2, 5, 3, 6), ["relay.nn.matmul"]),
    ((4,), (4, 5), (5,), ["relay.reshape", "relay.nn.matmul", "relay.reshape"]),
    ((2, 3, 4), (4,), (2, 3), ["relay.reshape", "relay.nn.matmul", "relay.reshape"]),
    ((4,), (2, 4, 5), (2, 5), ["relay.reshape", "relay.nn.matmul", "relay.reshape"]),
    ((4,), (4,), (), ["relay.reshape", "relay.reshape", "relay.nn.matmul", "relay.reshape"]),
]


@pytest.mark.parametrize(("shape_a", "shape_b", "shape_y", "expected_ops"), MATMUL_CASES)
def test_matmul(shape_a, shape_b, shape_y, expected_ops):
    model = make_model(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        [tensor("a", shape_a), tensor("b", shape_b)],
        [tensor("y", shape_y)],
    )
    import_and_compare(model, {"a": randn(*shape_a), "b": randn(*shape_b)}, expected_ops)


def test_matmul_int64_with_weight():
    w = RNG.integers(-5, 5, (4, 3)).astype(np.int64)
    model = make_model(
        [helper.make_node("MatMul", ["a", "w"], ["y"])],
        [tensor("a", [2, 4], TensorProto.INT64)],
        [tensor("y", [2, 3], TensorProto.INT64)],
        [init("w", w)],
    )
    a = RNG.integers(-5, 5, (2, 4)).astype(np.int64)
    import_and_compare(model, {"a": a}, ["relay.nn.matmul"])


def test_matmul_reduction_mismatch_names_node():
    model = make_model(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
        [tensor("a", [3, 4]), tensor("b", [5, 6])],
        [tensor("y", [3, 6])],
    )
    assert import_error(model) == (
        "node 'mm' (MatMul, opset 13): "
        "'relay.nn.matmul' reduction sizes differ: a has K=4, b has K=5"
    )


def test_matmul_of_scalar():
    model = make_model(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
        [tensor("a", []), tensor("b", [2, 2])],
        [tensor("y", [2])],
    )
    assert import_error(model) == (
        "node 'mm' (MatMul, opset 13): inputs must have rank >= 1, got scalar and 2x2"
    )


M, K, N = 3, 5, 4


def gemm_model(
    attrs: dict, c_shape: tuple[int, ...] | None, opset: int = 13, as_initializers: bool = False
):
    """``Gemm(a, b[, c])`` with A' [M, K] and B' [K, N] (A and B stored
    transposed as the attributes say), and random feeds for its inputs;
    with ``as_initializers`` B and C are initializers."""
    trans_a, trans_b = attrs.get("transA", 0), attrs.get("transB", 0)
    a_shape = (K, M) if trans_a else (M, K)
    b_shape = (N, K) if trans_b else (K, N)
    feeds = {"a": randn(*a_shape), "b": randn(*b_shape)}
    if c_shape is not None:
        feeds["c"] = randn(*c_shape)
    inputs = [tensor(n, v.shape) for n, v in feeds.items()]
    initializers = []
    if as_initializers:
        initializers = [init(n, feeds.pop(n)) for n in ("b", "c") if n in feeds]
        inputs = inputs[:1]
    names = ["a", "b"] + (["c"] if c_shape is not None else [])
    model = make_model(
        [helper.make_node("Gemm", names, ["y"], name="gemm", **attrs)],
        inputs,
        [tensor("y", [M, N])],
        initializers,
        opset=opset,
    )
    return model, feeds


def gemm_ops(attrs: dict, has_c: bool) -> list[str]:
    """The relay ops a Gemm becomes."""
    dense = attrs.get("transB") and not attrs.get("transA")
    ops = ["relay.nn.dense" if dense else "relay.nn.matmul"]
    if attrs.get("alpha", 1.0) != 1.0:
        ops += ["relay.const", "relay.multiply"]
    beta = attrs.get("beta", 1.0)
    if has_c and beta != 0.0:
        ops += (["relay.const", "relay.multiply"] if beta != 1.0 else []) + ["relay.add"]
    return ops


@pytest.mark.parametrize(
    ("trans_a", "trans_b", "alpha", "beta"),
    list(itertools.product([0, 1], [0, 1], [1.0, 0.5], [1.0, 2.0, 0.0])),
)
def test_gemm_attributes(trans_a, trans_b, alpha, beta):
    attrs = {"transA": trans_a, "transB": trans_b, "alpha": alpha, "beta": beta}
    model, feeds = gemm_model(attrs, (N,))
    import_and_compare(model, feeds, gemm_ops(attrs, True))


@pytest.mark.parametrize(
    ("c_shape", "opset"),
    [(c, opset) for c in [(), (1,), (N,), (1, N), (M, 1), (M, N)] for opset in (7, 11, 13)]
    + [(None, 11), (None, 13)],  # C is optional from opset 11
)
def test_gemm_bias_broadcast(c_shape, opset):
    attrs = {"transB": 1}
    model, feeds = gemm_model(attrs, c_shape, opset)
    import_and_compare(model, feeds, gemm_ops(attrs, c_shape is not None))


def test_gemm_weights_as_params():
    attrs = {"transB": 1, "beta": 0.5}
    model, feeds = gemm_model(attrs, (N,), as_initializers=True)
    module = import_and_compare(model, feeds, gemm_ops(attrs, True))
    assert list(from_onnx(model)[1]) == ["b", "c"]
    assert '%c: tensor<4xf32> {relay.name = "c"}' in str(module)


def test_gemm_beta_zero_ignores_c():
    attrs = {"transB": 1, "beta": 0.0}
    model, feeds = gemm_model(attrs, (N,), as_initializers=True)
    import_and_compare(model, feeds, ["relay.nn.dense"])
    assert list(from_onnx(model)[1]) == ["b"]


@pytest.mark.parametrize("broadcast", [0, 1])
def test_gemm_legacy_broadcast_opset6(broadcast):
    attrs = {"transA": 1, "broadcast": broadcast, "alpha": 2.0, "beta": 0.5}
    model, feeds = gemm_model(attrs, (M, N) if not broadcast else (N,), opset=6)
    expected = 2.0 * feeds["a"].T @ feeds["b"] + 0.5 * feeds["c"]
    import_and_compare(model, feeds, gemm_ops(attrs, True), expected=[expected])


@pytest.mark.parametrize(
    ("c_shape", "opset", "message"),
    [
        ((N,), 6, "input 'C' ('c') of shape 4 must be the output shape 3x4"),
        ((N + 1,), 13, "input 'C' ('c') of shape 5 must broadcast to the output shape 3x4"),
        ((2, M, N), 13, "input 'C' ('c') of shape 2x3x4 must broadcast to the output shape 3x4"),
        ((M, N, 1), 13, "input 'C' ('c') of shape 3x4x1 must broadcast to the output shape 3x4"),
    ],
)
def test_gemm_bias_errors(c_shape, opset, message):
    model, _ = gemm_model({}, c_shape, opset)
    assert import_error(model) == f"node 'gemm' (Gemm, opset {opset}): {message}"


def test_gemm_rank_error_names_input():
    model = make_model(
        [helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm")],
        [tensor("a", [2, M, K]), tensor("b", [K, N])],
        [tensor("y", [M, N])],
    )
    assert import_error(model) == (
        "node 'gemm' (Gemm, opset 13): input 'A' ('a') must be 2-d, got 2x3x5"
    )


def test_gemm_integer():
    model = make_model(
        [helper.make_node("Gemm", ["a", "b", "c"], ["y"], alpha=2.0, beta=3.0)],
        [
            tensor("a", [M, K], TensorProto.INT32),
            tensor("b", [K, N], TensorProto.INT32),
            tensor("c", [N], TensorProto.INT32),
        ],
        [tensor("y", [M, N], TensorProto.INT32)],
    )
    shapes = {"a": (M, K), "b": (K, N), "c": (N,)}
    feeds = {n: RNG.integers(-4, 4, s).astype(np.int32) for n, s in shapes.items()}
    expected = 2 * feeds["a"] @ feeds["b"] + 3 * feeds["c"]
    ops = gemm_ops({"alpha": 2.0, "beta": 3.0}, True)
    import_and_compare(model, feeds, ops, expected=[expected])


def test_gemm_integer_with_fractional_alpha():
    model = make_model(
        [helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm", alpha=0.5)],
        [tensor("a", [M, K], TensorProto.INT64), tensor("b", [K, N], TensorProto.INT64)],
        [tensor("y", [M, N], TensorProto.INT64)],
    )
    assert import_error(model) == (
        "node 'gemm' (Gemm, opset 13): attribute 'alpha' = 0.5 is not an integer, "
        "but the operands are int64"
    )
