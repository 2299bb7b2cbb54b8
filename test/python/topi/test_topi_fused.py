"""Fused primitive functions, lowered by convert-relay-to-tir to one kernel
and compiled, against the chain of NumPy references of their ops."""

import numpy as np
import pytest
from topi_testing import parse, random, run_relay
from xdsl.dialects import func

from xtvm.dialects import relay
from xtvm.dialects.relay import RelayOp
from xtvm.reference.relay import evaluate
from xtvm.te import dtype as dt

FUSED = {
    "dense_bias_relu": """
func.func private @fused(%p0: tensor<3x16xf32>, %p1: tensor<8x16xf32>, %p2: tensor<8xf32>) -> tensor<3x8xf32> attributes {relay.primitive} {
  %0 = relay.nn.dense %p0, %p1 : (tensor<3x16xf32>, tensor<8x16xf32>) -> tensor<3x8xf32>
  %1 = relay.nn.bias_add %0, %p2 {axis = 1 : i64} : (tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %2 = relay.nn.relu %1 : tensor<3x8xf32>
  func.return %2 : tensor<3x8xf32>
}""",
    "matmul_scale_subtract": """
func.func private @fused(%p0: tensor<2x3x4xf32>, %p1: tensor<4x5xf32>, %p2: tensor<5xf32>) -> tensor<2x3x5xf32> attributes {relay.primitive} {
  %c = relay.const dense<0.5> : tensor<f32>
  %0 = relay.nn.matmul %p0, %p1 : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %1 = relay.multiply %0, %c : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3x5xf32>
  %2 = relay.subtract %1, %p2 : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  func.return %2 : tensor<2x3x5xf32>
}""",
    "add_softmax": """
func.func private @fused(%p0: tensor<4x6xf32>, %p1: tensor<6xf32>) -> tensor<4x6xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %1 = relay.nn.softmax %0 {axis = -1 : i64} : tensor<4x6xf32>
  func.return %1 : tensor<4x6xf32>
}""",
    "reshape_transpose_relu": """
func.func private @fused(%p0: tensor<2x12xf32>) -> tensor<4x2x3xf32> attributes {relay.primitive} {
  %0 = relay.reshape %p0 {newshape = array<i64: 2, 3, 4>} : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
  %1 = relay.transpose %0 {axes = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %2 = relay.nn.relu %1 : tensor<4x2x3xf32>
  func.return %2 : tensor<4x2x3xf32>
}""",
    "int_divide_chain": """
func.func private @fused(%p0: tensor<3x4xi32>, %p1: tensor<4xi32>) -> tensor<3x4xi32> attributes {relay.primitive} {
  %0 = relay.divide %p0, %p1 : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %1 = relay.multiply %0, %p1 : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %2 = relay.subtract %p0, %1 : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
  func.return %2 : tensor<3x4xi32>
}""",
}

MAIN = """
func.func @main({params}) -> {result} {{
  %r = func.call @fused({args}) : ({types}) -> {result}
  func.return %r : {result}
}}"""


def _reference(fn: func.FuncOp, inputs: list[np.ndarray]) -> np.ndarray:
    """Evaluate the primitive function's ops in order with the references."""
    env = dict(zip(fn.body.block.args, inputs))
    result = None
    for op in fn.body.block.ops:
        if isinstance(op, relay.ConstOp):
            value = op.value
            dtype = dt.from_xdsl(value.type.element_type)
            env[op.result] = np.array(value.get_values(), dtype).reshape(value.type.get_shape())
        elif isinstance(op, RelayOp):
            env[op.results[0]] = evaluate(op.name, [env[v] for v in op.operands], op.attrs)
        else:  # func.return
            result = env[op.operands[0]]
    return result


@pytest.mark.parametrize("case", list(FUSED))
def test_fused_function_matches_reference_chain(case: str) -> None:
    fused = parse(FUSED[case])
    fn = next(iter(fused.ops))
    types = [a.type for a in fn.body.block.args]
    result = str(fn.function_type.outputs.data[0])
    main = MAIN.format(
        params=", ".join(f"%a{i}: {t}" for i, t in enumerate(types)),
        args=", ".join(f"%a{i}" for i in range(len(types))),
        types=", ".join(str(t) for t in types),
        result=result,
    )
    module = parse(FUSED[case] + main)
    rng = np.random.default_rng(7)
    inputs = []
    for t in types:
        dtype = dt.from_xdsl(t.element_type)
        arr = random(t.get_shape(), dtype, rng)
        inputs.append(np.where(arr == 0, 1, arr).astype(dtype))
    expected = _reference(fn, inputs)
    (got,) = run_relay(module, "fused", inputs)
    if np.issubdtype(expected.dtype, np.floating):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)
