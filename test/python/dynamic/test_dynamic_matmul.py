"""The register-tiled schedule of matmuls with run-time extents
(``xtvm/topi/x86/dynamic_matmul.py``): a ``?`` sequence times a weight with
a residual epilogue, attention's ``?x16 · 16x?`` scores (a run-time number
of columns: whole vector blocks and a scalar tail) and ``?x? · ?x16``
context (a run-time reduction), a transposed operand (default nest), and a
dynamic batch over a static 5x24 · 24x40 (fewer rows than a tile, a static
column tail). Compiled once, run against NumPy at sizes that leave every
tail empty, partial and full."""

import numpy as np
from dynamic_testing import DynamicModel, check_sizes, uniform

MATMULS = """
func.func @main(%x: tensor<1x?x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>, %r: tensor<1x?x32xf32>, %q: tensor<1x4x?x16xf32>, %k: tensor<1x4x16x?xf32>, %p: tensor<1x4x?x?xf32>, %v: tensor<1x4x?x16xf32>, %y: tensor<?x5x24xf32>, %u: tensor<24x40xf32>) -> (tensor<1x?x32xf32>, tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x?xf32>, tensor<?x5x40xf32>) {
  %m = relay.nn.matmul %x, %w : (tensor<1x?x64xf32>, tensor<64x32xf32>) -> tensor<1x?x32xf32>
  %a = relay.add %m, %b : (tensor<1x?x32xf32>, tensor<32xf32>) -> tensor<1x?x32xf32>
  %res = relay.add %r, %a : (tensor<1x?x32xf32>, tensor<1x?x32xf32>) -> tensor<1x?x32xf32>
  %s = relay.nn.matmul %q, %k : (tensor<1x4x?x16xf32>, tensor<1x4x16x?xf32>) -> tensor<1x4x?x?xf32>
  %half = relay.const dense<0.5> : tensor<f32>
  %ss = relay.multiply %s, %half : (tensor<1x4x?x?xf32>, tensor<f32>) -> tensor<1x4x?x?xf32>
  %c = relay.nn.matmul %p, %v : (tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x16xf32>
  %t = relay.nn.matmul %q, %v {transpose_b = true} : (tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x?xf32>
  %z = relay.nn.matmul %y, %u : (tensor<?x5x24xf32>, tensor<24x40xf32>) -> tensor<?x5x40xf32>
  %g = relay.tanh %z : tensor<?x5x40xf32>
  func.return %res, %ss, %c, %t, %g : tensor<1x?x32xf32>, tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x?xf32>, tensor<?x5x40xf32>
}
"""


def _inputs(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Queries of ``n`` rows, keys and values of ``n + 5``."""
    m = n + 5
    return [
        uniform(1, n, 64, rng=rng), uniform(64, 32, rng=rng), uniform(32, rng=rng),
        uniform(1, n, 32, rng=rng), uniform(1, 4, n, 16, rng=rng), uniform(1, 4, 16, m, rng=rng),
        uniform(1, 4, n, m, rng=rng), uniform(1, 4, m, 16, rng=rng),
        uniform(n, 5, 24, rng=rng), uniform(24, 40, rng=rng),
    ]


def test_dynamic_matmuls_match_numpy_at_every_tail() -> None:
    model = DynamicModel(MATMULS, fuse=True)
    tiled = [f for f in model.prim_funcs().values() if 'kind "unrolled"' in str(f)]
    assert len(tiled) == 4  # every NN matmul kernel has register tiles; NT keeps its nest
    check_sizes(model, _inputs, sizes=(1, 7, 8, 11, 16, 27, 64), rtol=1e-4, atol=1e-4)
