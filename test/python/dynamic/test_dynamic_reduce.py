"""Reductions over a static axis with a dynamic batch, and softmax and layer
normalization over the last (static) axis: compiled once, run at n = 1, 3,
8, 64 against NumPy."""

import pytest
from dynamic_testing import PER_OP_SLOW_AND_FUSED, DynamicModel, check_sizes, uniform

REDUCTIONS = """
func.func @main(%x: tensor<?x5x12xf32>) -> (tensor<?x5xf32>, tensor<?x1x12xf32>, tensor<?x5x1xf32>, tensor<?xf32>, tensor<?x12xi64>) {
  %s = relay.sum %x {axis = array<i64: 2>} : (tensor<?x5x12xf32>) -> tensor<?x5xf32>
  %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<?x5x12xf32>) -> tensor<?x1x12xf32>
  %mx = relay.max %x {axis = array<i64: -1>, keepdims = true} : (tensor<?x5x12xf32>) -> tensor<?x5x1xf32>
  %mn = relay.min %x {axis = array<i64: 1, 2>} : (tensor<?x5x12xf32>) -> tensor<?xf32>
  %am = relay.argmax %x {axis = array<i64: 1>} : (tensor<?x5x12xf32>) -> tensor<?x12xi64>
  func.return %s, %m, %mx, %mn, %am : tensor<?x5xf32>, tensor<?x1x12xf32>, tensor<?x5x1xf32>, tensor<?xf32>, tensor<?x12xi64>
}
"""


def test_reductions_over_static_axes() -> None:
    check_sizes(DynamicModel(REDUCTIONS), lambda n, rng: [uniform(n, 5, 12, rng=rng)])


SOFTMAX = """
func.func @main(%x: tensor<?x10xf32>) -> (tensor<?x10xf32>, tensor<?x10xf32>) {
  %s = relay.nn.softmax %x {axis = -1 : i64} : tensor<?x10xf32>
  %l = relay.nn.log_softmax %x {axis = 1 : i64} : tensor<?x10xf32>
  func.return %s, %l : tensor<?x10xf32>, tensor<?x10xf32>
}
"""


def test_softmax_over_the_last_axis() -> None:
    check_sizes(DynamicModel(SOFTMAX), lambda n, rng: [uniform(n, 10, rng=rng)])


LAYER_NORM = """
func.func @main(%x: tensor<?x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<?x64xf32> {
  %eps = relay.const dense<1.0e-05> : tensor<f32>
  %two = relay.const dense<2.0> : tensor<f32>
  %mean = relay.mean %x {axis = array<i64: -1>, keepdims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %d = relay.subtract %x, %mean : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
  %sq = relay.power %d, %two : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
  %var = relay.mean %sq {axis = array<i64: -1>, keepdims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %ve = relay.add %var, %eps : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32>
  %sd = relay.sqrt %ve : tensor<?x1xf32>
  %n = relay.divide %d, %sd : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
  %g = relay.multiply %n, %gamma : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %y = relay.add %g, %beta : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  func.return %y : tensor<?x64xf32>
}
"""


@pytest.mark.parametrize("fuse", PER_OP_SLOW_AND_FUSED, ids=["one-kernel-per-op", "fused"])
def test_layer_norm_over_the_last_axis(fuse: bool) -> None:
    model = DynamicModel(LAYER_NORM, fuse=fuse)
    check_sizes(
        model,
        lambda n, rng: [uniform(n, 64, rng=rng), uniform(64, rng=rng), uniform(64, rng=rng)],
        rtol=1e-4,
        atol=1e-4,
    )


def test_dynamic_buffers_report_a_failed_allocation_by_name() -> None:
    """Softmax's per-row buffers are allocated at run time; a failed
    allocation is an assert whose message names the buffer (no crash)."""
    from xtvm.codegen import tir_signature

    model = DynamicModel(SOFTMAX)
    kernel = model.prim_funcs()["fused_nn_softmax"]
    asserts = tir_signature(kernel)["asserts"]
    assert any("T_softmax_maxelem" in m and "out of memory" in m for m in asserts)


OVER_THE_DYNAMIC_AXIS = """
func.func @main(%x: tensor<?x5xf32>) -> (tensor<5xf32>, tensor<1x5xf32>, tensor<f32>, tensor<5xi64>, tensor<1x5xi64>) {
  %m = relay.mean %x {axis = array<i64: 0>} : (tensor<?x5xf32>) -> tensor<5xf32>
  %s = relay.sum %x {axis = array<i64: 0>, keepdims = true} : (tensor<?x5xf32>) -> tensor<1x5xf32>
  %a = relay.max %x : (tensor<?x5xf32>) -> tensor<f32>
  %i = relay.argmax %x {axis = array<i64: 0>} : (tensor<?x5xf32>) -> tensor<5xi64>
  %j = relay.argmin %x {axis = array<i64: 0>, keepdims = true, select_last_index = true} : (tensor<?x5xf32>) -> tensor<1x5xi64>
  func.return %m, %s, %a, %i, %j : tensor<5xf32>, tensor<1x5xf32>, tensor<f32>, tensor<5xi64>, tensor<1x5xi64>
}
"""


def test_reductions_over_the_dynamic_axis() -> None:
    """The reduction runs to the shape variable; the mean divides by it and
    argmax/argmin count positions with it."""
    check_sizes(DynamicModel(OVER_THE_DYNAMIC_AXIS), lambda n, rng: [uniform(n, 5, rng=rng)])
