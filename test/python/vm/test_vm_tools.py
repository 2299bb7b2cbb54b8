"""The VM from the command line: ``--executor vm --emit vm`` prints the vm
stage, which the printed pipeline replays from the memory stage and which
compiles alone; ``xtvm-run`` runs a VM library with the graph executor's
outputs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

from vm_models import mlp_model

BIN = Path(sys.executable).parent


def tool(name: str, *args, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / name), *map(str, args)], capture_output=True, text=True, timeout=300, check=check
    )


def body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("//"))


def emit(tmp_path: Path, stage: str) -> Path:
    """``xtvm-compile --executor vm --emit STAGE`` of the test MLP."""
    model = tmp_path / "mlp.onnx"
    if not model.exists():
        onnx.save(mlp_model(), model)
    out = tmp_path / f"{stage}.mlir"
    tool("xtvm-compile", model, "--executor", "vm", "--emit", stage, "-o", out)
    return out


def test_vm_stage_replays_from_the_memory_stage(tmp_path: Path) -> None:
    memory, vm_file = emit(tmp_path, "memory"), emit(tmp_path, "vm")
    text = vm_file.read_text()
    assert "vm.func @main" in text and "vm.invoke_packed" in text

    # The memory stage names the pipeline to the vm stage, which replays it.
    match = re.search(r"// next stage \(vm\): xtvm-opt FILE -p '([^']*)'", memory.read_text())
    assert match and match.group(1) == "convert-memory-to-vm"
    replayed = tool("xtvm-opt", memory, "-p", match.group(1)).stdout
    assert body(replayed) == body(text)
    after = re.search(r"// next stage \(llvm-dialect\): xtvm-opt FILE -p '([^']*)'", text)
    assert after and after.group(1) == "vm-embed-executable,llvm-embed-metadata,convert-tir-to-llvm"



@pytest.mark.slow
def test_vm_stage_compiles_alone_and_runs(tmp_path: Path) -> None:
    """The vm stage's file alone compiles (the VM is implied), and xtvm-run
    runs it with the outputs of the graph executor's library (slow: three
    compiles in subprocesses)."""
    vm_file, model = emit(tmp_path, "vm"), tmp_path / "mlp.onnx"
    x = np.random.default_rng(0).standard_normal((2, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    outputs = {}
    for name, source, extra in (("vm", vm_file, []), ("graph", model, [])):
        lib = tmp_path / f"{name}.so"
        tool("xtvm-compile", source, *extra, "-o", lib)
        run = tool("xtvm-run", lib, "--input", f"x={tmp_path / 'x.npy'}", "--output", tmp_path / f"{name}.npz")
        assert "output 0 'probs': shape (2, 8) float32" in run.stdout
        outputs[name] = np.load(tmp_path / f"{name}.npz")
    for key in ("probs", "logits"):
        np.testing.assert_array_equal(outputs["vm"][key], outputs["graph"][key])


def test_emit_vm_needs_the_vm(tmp_path: Path) -> None:
    model = tmp_path / "mlp.onnx"
    onnx.save(mlp_model(), model)
    result = tool("xtvm-compile", model, "--executor", "graph", "--emit", "vm", check=False)
    assert result.returncode != 0
    assert "--emit vm prints the VM program: use --executor vm" in result.stderr
