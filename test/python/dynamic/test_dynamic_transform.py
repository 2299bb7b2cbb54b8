"""Reshape, batch_flatten, transpose and concatenate where the dynamic axis
maps through: compiled once, run at n = 1, 3, 8, 64 against NumPy."""

import numpy as np
from dynamic_testing import DynamicModel, check_sizes, uniform

TRANSFORMS = """
func.func @main(%x: tensor<?x3x4xf32>, %y: tensor<?x5xf32>) -> (tensor<?x12xf32>, tensor<?x12xf32>, tensor<?x4x3xf32>, tensor<?x17xf32>, tensor<4x3x?xf32>, tensor<?x2x6xf32>) {
  %r = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %f = relay.nn.batch_flatten %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %t = relay.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<?x3x4xf32>) -> tensor<?x4x3xf32>
  %c = relay.concatenate %f, %y {axis = 1 : i64} : (tensor<?x12xf32>, tensor<?x5xf32>) -> tensor<?x17xf32>
  %t2 = relay.transpose %x {axes = array<i64: 2, 1, 0>} : (tensor<?x3x4xf32>) -> tensor<4x3x?xf32>
  %r2 = relay.reshape %r {newshape = array<i64: -1, 2, 6>} : (tensor<?x12xf32>) -> tensor<?x2x6xf32>
  func.return %r, %f, %t, %c, %t2, %r2 : tensor<?x12xf32>, tensor<?x12xf32>, tensor<?x4x3xf32>, tensor<?x17xf32>, tensor<4x3x?xf32>, tensor<?x2x6xf32>
}
"""


def test_shape_ops_map_the_dynamic_axis_through() -> None:
    model = DynamicModel(TRANSFORMS)
    check_sizes(model, lambda n, rng: [uniform(n, 3, 4, rng=rng), uniform(n, 5, rng=rng)])


def test_fused_shape_ops() -> None:
    check_sizes(
        DynamicModel(TRANSFORMS, fuse=True),
        lambda n, rng: [uniform(n, 3, 4, rng=rng), uniform(n, 5, rng=rng)],
    )


INDEXING = """
func.func @main(%cols: tensor<3xi64>, %table: tensor<50x16xf32>, %ids: tensor<?xi64>, %x: tensor<?x8xf32>) -> (tensor<?x16xf32>, tensor<?x4xf32>, tensor<?x3xf32>) {
  %e = relay.take %table, %ids {axis = 0 : i64} : (tensor<50x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  %s = relay.strided_slice %x {begin = array<i64: 2>, end = array<i64: 6>, axes = array<i64: 1>} : (tensor<?x8xf32>) -> tensor<?x4xf32>
  %t = relay.take %x, %cols {axis = 1 : i64} : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x3xf32>
  func.return %e, %s, %t : tensor<?x16xf32>, tensor<?x4xf32>, tensor<?x3xf32>
}
"""


def test_indexing_with_a_dynamic_batch() -> None:
    """An embedding lookup of `?` token ids, and a slice and a take along a
    static axis of a `?`-row tensor."""
    cols = np.array([0, 5, 7], dtype="int64")
    check_sizes(
        DynamicModel(INDEXING),
        lambda n, rng: [
            cols,
            uniform(50, 16, rng=rng),
            rng.integers(0, 50, size=(n,)).astype("int64"),
            uniform(n, 8, rng=rng),
        ],
    )
