"""xtvm-compile on a relay module with `?` dimensions: the relay passes and
the lowering reach the tir stage, whose file parses again and whose kernels
read their extents at run time (docs/dynamic-shapes.md)."""

import subprocess
import sys
from pathlib import Path

from dynamic_testing import parse

BIN = Path(sys.executable).parent

MLP = """
func.func @main(%data: tensor<?x784xf32>, %w1: tensor<256x784xf32>, %b1: tensor<256xf32>) -> tensor<?x256xf32> {
  %d = relay.nn.dense %data, %w1 : (tensor<?x784xf32>, tensor<256x784xf32>) -> tensor<?x256xf32>
  %a = relay.nn.bias_add %d, %b1 {axis = -1 : i64} : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  %r = relay.nn.relu %a : tensor<?x256xf32>
  func.return %r : tensor<?x256xf32>
}
"""


def test_emit_tir_of_a_dynamic_module(tmp_path: Path) -> None:
    model = tmp_path / "mlp.mlir"
    model.write_text(MLP)
    r = subprocess.run(
        [str(BIN / "xtvm-compile"), str(model), "--emit", "tir"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert "tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 3, 0>]}" in r.stdout
    assert "tir.buffer_shapes = [array<i64: -1, 784>" in r.stdout
    assert "relay.call_lowered @fused_nn_contrib_dense_pack" in r.stdout
    parse("\n".join(line for line in r.stdout.splitlines() if not line.startswith("//")))
