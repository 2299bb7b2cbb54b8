"""The README's "Extending xtvm" snippets run as written: the pass skeleton
(applied, and its failure placed at the op's line) and "IR text in Python"."""

import os
import re
import subprocess
import sys
import types
from pathlib import Path

from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import PassFailedException

from xtvm.ir.diagnostics import failure_diagnostic
from xtvm.ir.parse import default_context, parse_module
from xtvm.passes.registry import PASSES

README = Path(__file__).resolve().parents[3] / "README.md"

DROPOUT = """func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %y = relay.nn.dropout %x {rate = 0.75 : f64} : tensor<1x8xf32>
  %z = relay.nn.relu %y : tensor<1x8xf32>
  func.return %z : tensor<1x8xf32>
}
"""


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def block_with(text: str) -> str:
    (block,) = [b for b in python_blocks() if text in b]
    return block


def test_pass_skeleton():
    module = types.ModuleType("drop_dropout")
    exec(block_with("class DropDropoutPass(ModulePass)"), module.__dict__)
    passes = {**PASSES, "relay-drop-dropout": lambda: module.DropDropoutPass}

    ir = parse_module(DROPOUT, "model.mlir")
    try:
        PassPipeline.parse_spec(passes, "relay-drop-dropout{max-rate=0.5}").apply(default_context(), ir)
        raise AssertionError("the pass should fail")
    except PassFailedException as e:
        assert failure_diagnostic(ir, e).where == "model.mlir:2:3"

    PassPipeline.parse_spec(passes, "relay-drop-dropout").apply(default_context(), ir)
    assert "relay.nn.dropout" not in str(ir) and "relay.nn.relu %x" in str(ir)


def test_ir_text_in_python(mlp_path, tmp_path):
    tir = tmp_path / "tir.mlir"
    r = subprocess.run(
        [str(Path(sys.executable).parent / "xtvm-compile"), str(mlp_path), "--shape", "data=1,784",
         "--emit", "tir", "-o", str(tir)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    code = block_with("parse_module(open(")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ},
    )
    assert out.returncode == 0, out.stderr
    assert "memory.planned_bytes" in out.stdout and "error" not in out.stdout
