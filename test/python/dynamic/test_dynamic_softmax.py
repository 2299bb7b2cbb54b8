"""Softmax along a last axis of run-time extent
(``topi.dynamic.softmax_last_axis``: ``exp`` once per element, scheduled by
``xtvm/topi/x86/dynamic.py``): against NumPy at sizes that leave the vector
tail empty, partial and full, and bit for bit equal to ``topi.softmax``'s
kernel (the same values summed in the same order)."""

import numpy as np
import pytest
from dynamic_testing import DynamicModel, check_sizes, uniform

import xtvm.lowering.relay_to_tir.nn as relay_to_tir_nn
from xtvm import topi
from xtvm.runtime.ndarray import NDArray

SCORES = """
func.func @main(%x: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %s = relay.nn.softmax %x {axis = -1 : i64} : tensor<1x4x?x?xf32>
  func.return %s : tensor<1x4x?x?xf32>
}
"""


def test_softmax_over_a_dynamic_last_axis_matches_numpy():
    model = DynamicModel(SCORES, fuse=True)
    assert "%T_softmax_exp =" in str(model.prim_funcs()["fused_nn_softmax"])
    check_sizes(model, lambda n, rng: [uniform(1, 4, n, n + 3, rng=rng)], sizes=(1, 5, 13, 16, 40))


def test_softmax_over_a_dynamic_last_axis_equals_topi_softmax(monkeypatch: pytest.MonkeyPatch):
    new = DynamicModel(SCORES, fuse=True)
    monkeypatch.setattr(relay_to_tir_nn, "_softmax", lambda x, axis: topi.softmax(x, axis))
    old = DynamicModel(SCORES, fuse=True)
    assert "%T_softmax_exp =" not in str(old.prim_funcs()["fused_nn_softmax"])
    x = np.random.default_rng(0).standard_normal((1, 4, 19, 37)).astype(np.float32) * 4
    outs = []
    for model in (old, new):
        out = NDArray(np.zeros_like(x))
        model.kernels["fused_nn_softmax"](NDArray(x), out)
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
