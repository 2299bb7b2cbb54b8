"""Dense and matmul with a dynamic number of rows, conv2d and pools with a
dynamic batch, and a dynamic sequence axis (``?x64`` tokens) through matmul,
softmax and layer norm: compiled once, run at n = 1, 3, 8, 64 against NumPy."""

import numpy as np
import pytest
from dynamic_testing import PER_OP_SLOW_AND_FUSED, DynamicModel, check_sizes, uniform

DENSE = """
func.func @main(%x: tensor<?x48xf32>, %w: tensor<40x48xf32>, %b: tensor<40xf32>, %v: tensor<48x24xf32>) -> (tensor<?x40xf32>, tensor<?x24xf32>) {
  %d = relay.nn.dense %x, %w : (tensor<?x48xf32>, tensor<40x48xf32>) -> tensor<?x40xf32>
  %a = relay.nn.bias_add %d, %b {axis = -1 : i64} : (tensor<?x40xf32>, tensor<40xf32>) -> tensor<?x40xf32>
  %r = relay.nn.relu %a : tensor<?x40xf32>
  %m = relay.nn.matmul %x, %v : (tensor<?x48xf32>, tensor<48x24xf32>) -> tensor<?x24xf32>
  func.return %r, %m : tensor<?x40xf32>, tensor<?x24xf32>
}
"""


def _dense_inputs(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    return [
        uniform(n, 48, rng=rng),
        uniform(40, 48, rng=rng),
        uniform(40, rng=rng),
        uniform(48, 24, rng=rng),
    ]


@pytest.mark.parametrize("fuse", PER_OP_SLOW_AND_FUSED, ids=["one-kernel-per-op", "fused"])
def test_dense_and_matmul_with_dynamic_rows(fuse: bool) -> None:
    check_sizes(DynamicModel(DENSE, fuse=fuse), _dense_inputs, rtol=1e-4, atol=1e-4)


CONV_POOL = """
func.func @main(%x: tensor<?x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> (tensor<?x8x4x4xf32>, tensor<?x8x1x1xf32>, tensor<?x8x8x8xf32>) {
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>} : (tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x8x8xf32>
  %r = relay.nn.relu %c : tensor<?x8x8x8xf32>
  %mp = relay.nn.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x8x8x8xf32>) -> tensor<?x8x4x4xf32>
  %ap = relay.nn.avg_pool2d %r {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x8x8x8xf32>) -> tensor<?x8x4x4xf32>
  %s = relay.add %mp, %ap : (tensor<?x8x4x4xf32>, tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
  %g = relay.nn.global_avg_pool2d %r : (tensor<?x8x8x8xf32>) -> tensor<?x8x1x1xf32>
  func.return %s, %g, %c : tensor<?x8x4x4xf32>, tensor<?x8x1x1xf32>, tensor<?x8x8x8xf32>
}
"""


@pytest.mark.parametrize("fuse", PER_OP_SLOW_AND_FUSED, ids=["one-kernel-per-op", "fused"])
def test_conv2d_and_pools_with_dynamic_batch(fuse: bool) -> None:
    model = DynamicModel(CONV_POOL, fuse=fuse)
    check_sizes(
        model,
        lambda n, rng: [uniform(n, 3, 10, 10, rng=rng), uniform(8, 3, 3, 3, rng=rng)],
        rtol=1e-4,
        atol=1e-4,
    )


ATTENTION = """
func.func @main(%x: tensor<?x64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>, %wv: tensor<64x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<?x64xf32> {
  %scale = relay.const dense<0.125> : tensor<f32>
  %eps = relay.const dense<1.0e-05> : tensor<f32>
  %q = relay.nn.matmul %x, %wq : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %k = relay.nn.matmul %x, %wk : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %v = relay.nn.matmul %x, %wv : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %s = relay.nn.matmul %q, %k {transpose_b = true} : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x?xf32>
  %ss = relay.multiply %s, %scale : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %p = relay.nn.softmax %ss {axis = -1 : i64} : tensor<?x?xf32>
  %o = relay.nn.matmul %p, %v : (tensor<?x?xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %res = relay.add %o, %x : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %mean = relay.mean %res {axis = array<i64: -1>, keepdims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %d = relay.subtract %res, %mean : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
  %sq = relay.multiply %d, %d : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %var = relay.mean %sq {axis = array<i64: -1>, keepdims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %ve = relay.add %var, %eps : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32>
  %sd = relay.sqrt %ve : tensor<?x1xf32>
  %nrm = relay.divide %d, %sd : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
  %g = relay.multiply %nrm, %gamma : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %y = relay.add %g, %beta : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  func.return %y : tensor<?x64xf32>
}
"""


def _attention_inputs(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    weights = [(uniform(64, 64, rng=rng) / 8).astype("float32") for _ in range(3)]
    return [uniform(n, 64, rng=rng), *weights, uniform(64, rng=rng), uniform(64, rng=rng)]


@pytest.mark.parametrize("pipeline", [False, True], ids=["fused", "compile-pipeline"])
def test_attention_over_a_dynamic_sequence(pipeline: bool) -> None:
    """Self-attention on ``?x64`` tokens: the scores are ``?x?`` (a softmax
    and a reduction over the dynamic axis), then a residual and layer norm;
    fused by relay-fuse-ops alone, or by xtvm-compile's relay passes."""
    model = DynamicModel(ATTENTION, fuse=True, pipeline=pipeline)
    check_sizes(model, _attention_inputs, rtol=1e-4, atol=1e-4)


MLP = """
func.func @main(%data: tensor<?x784xf32>, %w1: tensor<256x784xf32>, %b1: tensor<256xf32>, %w2: tensor<10x256xf32>) -> tensor<?x10xf32> {
  %d = relay.nn.dense %data, %w1 : (tensor<?x784xf32>, tensor<256x784xf32>) -> tensor<?x256xf32>
  %a = relay.nn.bias_add %d, %b1 {axis = -1 : i64} : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  %r = relay.nn.relu %a : tensor<?x256xf32>
  %o = relay.nn.dense %r, %w2 : (tensor<?x256xf32>, tensor<10x256xf32>) -> tensor<?x10xf32>
  %s = relay.nn.softmax %o {axis = -1 : i64} : tensor<?x10xf32>
  func.return %s : tensor<?x10xf32>
}
"""


def test_mlp_through_the_compile_pipeline() -> None:
    """The relay passes of xtvm-compile (weight packing for x86's dense,
    fusion) and the tir stage: the packed dense keeps its register tiles of
    8 rows by 16 outputs over whole chunks of rows, then a tail of single
    rows."""
    model = DynamicModel(MLP, pipeline=True)
    packed = [f for n, f in model.prim_funcs().items() if "dense_pack" in n]
    assert packed and packed[0].shape_vars
    kinds = {op.kind.data for op in packed[0].walk() if op.name == "tir.for"}
    assert "vectorized" in kinds
    tiles = {str(op.res.type) for op in packed[0].walk() if op.name == "tir.allocate"}
    assert {"memref<128xf32>", "memref<16xf32>"} <= tiles
    check_sizes(
        model,
        lambda n, rng: [
            uniform(n, 784, rng=rng),
            (uniform(256, 784, rng=rng) / 16).astype("float32"),
            uniform(256, rng=rng),
            (uniform(10, 256, rng=rng) / 8).astype("float32"),
        ],
        sizes=(0, 1, 3, 8, 11, 64),  # no rows; the tail only; chunks only; both
        rtol=1e-4,
        atol=1e-5,
    )


CNN = """
func.func @main(%x: tensor<?x3x16x16xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x1x1xf32> {
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x3x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<?x16x16x16xf32>
  %a = relay.nn.bias_add %c, %b {axis = 1 : i64} : (tensor<?x16x16x16xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
  %r = relay.nn.relu %a : tensor<?x16x16x16xf32>
  %p = relay.nn.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x16x16x16xf32>) -> tensor<?x16x8x8xf32>
  %g = relay.nn.global_avg_pool2d %p : (tensor<?x16x8x8xf32>) -> tensor<?x16x1x1xf32>
  func.return %g : tensor<?x16x1x1xf32>
}
"""


def test_cnn_through_the_compile_pipeline() -> None:
    """conv2d, bias, relu and pools with a dynamic batch through
    xtvm-compile's relay passes (NCHWc layout for x86) and the tir stage; the
    packed conv keeps its register-tiled schedule inside the batch loop."""
    model = DynamicModel(CNN, pipeline=True)
    (conv,) = [f for n, f in model.prim_funcs().items() if "conv2d_packed" in n]
    kinds = [op.kind.data for op in conv.walk() if op.name == "tir.for"]
    assert "vectorized" in kinds and conv.shape_vars
    check_sizes(
        model,
        lambda n, rng: [
            uniform(n, 3, 16, 16, rng=rng),
            (uniform(16, 3, 3, 3, rng=rng) / 4).astype("float32"),
            uniform(16, rng=rng),
        ],
        rtol=1e-4,
        atol=1e-5,
    )
