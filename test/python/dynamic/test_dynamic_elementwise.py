"""Elementwise kernels with a dynamic leading axis: unary maths, binary
arithmetic with broadcasting, the activations; each kernel is compiled once
and run at n = 1, 3, 8, 64 against NumPy; a wrong shape at call time is a
clear error."""

import numpy as np
import pytest
from dynamic_testing import PER_OP_SLOW_AND_FUSED, DynamicModel, check_sizes, uniform

from xtvm.runtime import NDArray, XTVMError

BINARY = """
func.func @main(%x: tensor<?x40xf32>, %b: tensor<40xf32>, %y: tensor<?x40xf32>, %c: tensor<?x1xf32>) -> tensor<?x40xf32> {
  %a = relay.add %x, %b : (tensor<?x40xf32>, tensor<40xf32>) -> tensor<?x40xf32>
  %s = relay.subtract %a, %y : (tensor<?x40xf32>, tensor<?x40xf32>) -> tensor<?x40xf32>
  %m = relay.multiply %s, %c : (tensor<?x40xf32>, tensor<?x1xf32>) -> tensor<?x40xf32>
  %d = relay.divide %m, %b : (tensor<?x40xf32>, tensor<40xf32>) -> tensor<?x40xf32>
  %mx = relay.maximum %d, %y : (tensor<?x40xf32>, tensor<?x40xf32>) -> tensor<?x40xf32>
  func.return %mx : tensor<?x40xf32>
}
"""


def _binary_inputs(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    b = uniform(40, rng=rng)
    b[np.abs(b) < 0.1] = 1.0
    return [uniform(n, 40, rng=rng), b, uniform(n, 40, rng=rng), uniform(n, 1, rng=rng)]


@pytest.mark.parametrize("fuse", PER_OP_SLOW_AND_FUSED, ids=["one-kernel-per-op", "fused"])
def test_binary_with_broadcasting(fuse: bool) -> None:
    check_sizes(DynamicModel(BINARY, fuse=fuse), _binary_inputs)


UNARY = """
func.func @main(%x: tensor<?x3x17xf32>) -> tensor<?x3x17xf32> {
  %0 = relay.exp %x : tensor<?x3x17xf32>
  %1 = relay.log %0 : tensor<?x3x17xf32>
  %2 = relay.negative %1 : tensor<?x3x17xf32>
  %3 = relay.abs %2 : tensor<?x3x17xf32>
  %4 = relay.sqrt %3 : tensor<?x3x17xf32>
  %5 = relay.floor %4 : tensor<?x3x17xf32>
  %6 = relay.add %5, %x : (tensor<?x3x17xf32>, tensor<?x3x17xf32>) -> tensor<?x3x17xf32>
  %7 = relay.erf %6 : tensor<?x3x17xf32>
  func.return %7 : tensor<?x3x17xf32>
}
"""


def test_unary_maths() -> None:
    model = DynamicModel(UNARY)
    check_sizes(model, lambda n, rng: [uniform(n, 3, 17, rng=rng)])


ACTIVATIONS = """
func.func @main(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {
  %r = relay.nn.relu %x : tensor<?x64xf32>
  %s = relay.sigmoid %x : tensor<?x64xf32>
  %t = relay.tanh %x : tensor<?x64xf32>
  %c = relay.clip %x {a_min = -0.5 : f64, a_max = 0.5 : f64} : tensor<?x64xf32>
  func.return %r, %s, %t, %c : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
}
"""


def test_activations() -> None:
    check_sizes(DynamicModel(ACTIVATIONS), lambda n, rng: [uniform(n, 64, rng=rng)])


def test_fused_activation_chain_is_one_kernel() -> None:
    """GELU as ONNX writes it (x * 0.5 * (1 + erf(x / sqrt 2))): one fused kernel."""
    text = """
    func.func @main(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
      %k = relay.const dense<0.707106769> : tensor<f32>
      %h = relay.const dense<0.5> : tensor<f32>
      %one = relay.const dense<1.0> : tensor<f32>
      %0 = relay.multiply %x, %k : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
      %1 = relay.erf %0 : tensor<?x64xf32>
      %2 = relay.add %1, %one : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
      %3 = relay.multiply %x, %h : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
      %4 = relay.multiply %3, %2 : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
      func.return %4 : tensor<?x64xf32>
    }
    """
    model = DynamicModel(text, fuse=True)
    assert len(model.prim_funcs()) == 1
    check_sizes(model, lambda n, rng: [uniform(n, 64, rng=rng)])


def test_kernel_reads_its_extent_from_the_arguments() -> None:
    model = DynamicModel(BINARY)
    (kernel,) = [f for f in model.prim_funcs().values() if "p3" not in f.arg_names][:1]
    assert kernel.shape_vars, "a dynamic kernel lists its shape variables"


def test_wrong_shape_at_call_time_is_a_clear_error() -> None:
    model = DynamicModel(BINARY)
    name = next(n for n, f in model.prim_funcs().items() if len(f.args) == 3 and f.shape_vars)
    kernel = model.kernels[name]
    x, b, out = (np.zeros(s, "float32") for s in ((3, 40), (40,), (3, 40)))
    kernel(NDArray(x), NDArray(b), NDArray(out))  # fine
    with pytest.raises(XTVMError, match=r"axis 0 is the shape variable p0_n0 = 3 .*got 5"):
        kernel(NDArray(x), NDArray(b), NDArray(np.zeros((5, 40), "float32")))
    with pytest.raises(XTVMError, match=r"axis 1 must be 40, got 41"):
        kernel(NDArray(np.zeros((3, 41), "float32")), NDArray(b), NDArray(out))


def test_kernel_shape_function_gives_the_output_shapes() -> None:
    """The closed-form shape function a kernel carries (tir.shape_vars): the
    outputs' dynamic axes come from the inputs' (what a VM allocates)."""
    model = DynamicModel(BINARY, fuse=True)
    (kernel,) = model.prim_funcs().values()
    assert kernel.shape_rule()[-1] == [(0, 0), 40]
    shapes = kernel.shapes_for([(7, 40), (40,), (7, 40), (7, 1)])
    assert shapes[-1] == (7, 40)
    with pytest.raises(ValueError, match="only 0 input shapes are given"):
        kernel.shapes_for([])


def test_dynamic_axis_broadcast_to_a_static_one_is_checked_at_call_time() -> None:
    """`?x4 + 3x4` is `3x4`: the `?` must be 1 (it broadcasts) or 3; the
    kernel asserts it and reads row 0 when it is 1."""
    text = """
    func.func @main(%x: tensor<?x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
      %0 = relay.add %x, %y : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
      func.return %0 : tensor<3x4xf32>
    }
    """
    model = DynamicModel(text)
    check_sizes(model, lambda n, rng: [uniform(n, 4, rng=rng), uniform(3, 4, rng=rng)], sizes=(1, 3))
    (name,) = model.prim_funcs()
    out = NDArray(np.zeros((3, 4), "float32"))
    with pytest.raises(XTVMError, match=r"assertion failed: a dynamic extent \(p0_n0\) broadcast to 3 must be 1 or 3"):
        model.kernels[name](NDArray(np.zeros((2, 4), "float32")), NDArray(np.zeros((3, 4), "float32")), out)
