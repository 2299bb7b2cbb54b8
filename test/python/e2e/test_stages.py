"""The textual IR is the whole program at every stage: each file that
`xtvm-compile --emit STAGE` prints compiles alone to the same model as the
ONNX file, replaying the printed pipelines with `xtvm-opt` from `relay` to
`llvm-dialect` gives the files `xtvm-compile` printed, and the arena offsets
of `--emit memory` are the ones the executor uses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

from xtvm.driver.pipeline import STAGES

BIN = Path(sys.executable).parent
MLIR_STAGES = [s.name for s in STAGES if s.name != "vm"]
"""The graph executor's stages (the VM's own, ``vm``, is tested in test/python/vm)."""


def tool(name: str, *args) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(BIN / name), *map(str, args)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return result


def body(text: str) -> str:
    """A printed stage without its leading comment lines (the commands)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("//"))


def run_library(path: Path, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Outputs of an exported model, run in a fresh process by the runtime alone."""
    feed = path.with_suffix(".npz")
    np.savez(feed, **inputs)
    out = path.with_suffix(".out.npz")
    script = (
        "import sys, numpy as np, xtvm.runtime as rt\n"
        "g = rt.load_module(sys.argv[1])['default'](rt.cpu(0))\n"
        "for k, v in np.load(sys.argv[2]).items(): g.set_input(k, v)\n"
        "g.run()\n"
        "np.savez(sys.argv[3], *[g.get_output(i).numpy() for i in range(g.get_num_outputs())])\n"
    )
    subprocess.run([sys.executable, "-c", script, path, feed, out], check=True, timeout=300)
    saved = np.load(out)
    return [saved[f"arr_{i}"] for i in range(len(saved.files))]


def emit_every_stage(model: Path, tmp: Path, shape: list[str]) -> dict[str, Path]:
    files = {}
    for stage in MLIR_STAGES:
        files[stage] = tmp / f"{stage}.mlir"
        tool("xtvm-compile", model, *shape, "--emit", stage, "-o", files[stage])
    return files


def check_model(model: Path, tmp: Path, shape: list[str], inputs: dict[str, np.ndarray]) -> None:
    reference = tmp / "from_onnx.so"
    tool("xtvm-compile", model, *shape, "-o", reference)
    want = run_library(reference, inputs)
    files = emit_every_stage(model, tmp, shape)

    # Each stage's file alone compiles to the same model.
    for stage, path in files.items():
        lib = tmp / f"{stage}.so"
        tool("xtvm-compile", path, "-o", lib)
        for got, expected in zip(run_library(lib, inputs), want, strict=True):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=stage)

    # The printed pipeline takes each stage's file to the next stage's.
    for stage, after in zip(MLIR_STAGES, MLIR_STAGES[1:]):
        text = files[stage].read_text()
        match = re.search(rf"// next stage \({after}\): xtvm-opt FILE -p '([^']*)'", text)
        assert match, f"--emit {stage} does not print the pipeline to {after}"
        replayed = tool("xtvm-opt", files[stage], "-p", match.group(1)).stdout
        assert body(replayed) == body(files[after].read_text()), f"{stage} -> {after}"


def test_mlp_every_stage_compiles_alone_and_replays(mlp_path: Path, tmp_path: Path) -> None:
    x = np.random.default_rng(0).standard_normal((2, 784)).astype(np.float32)
    check_model(mlp_path, tmp_path, ["--shape", "data=2,784"], {"data": x})


def test_memory_stage_offsets_are_the_executors(mlp_path: Path, tmp_path: Path) -> None:
    """The graph executor's storage offsets of kernel outputs are the
    `memory.alloc_tensor` offsets `--emit memory` prints (one planned arena
    at offset 0 of the workspace), in kernel order."""
    memory = tmp_path / "memory.mlir"
    tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "memory", "-o", memory)
    text = memory.read_text()
    assert text.count("memory.alloc_storage") == 1  # the arena
    printed = [int(m) for m in re.findall(r"memory\.alloc_tensor %arena \{offset = (\d+)", text)]
    lib_path = tmp_path / "m.so"
    tool("xtvm-compile", memory, "-o", lib_path)
    script = (
        "import sys, json, xtvm.runtime as rt\n"
        "print(rt.load_module(sys.argv[1]).graph_json)\n"
    )
    graph = json.loads(
        subprocess.run(
            [sys.executable, "-c", script, lib_path], capture_output=True, text=True, check=True
        ).stdout
    )
    offsets = graph["attrs"]["storage_offset"][1]
    row = graph["node_row_ptr"]
    used = [
        offsets[e]
        for nid, node in enumerate(graph["nodes"])
        if node["op"] == "tvm_op"
        for e in range(row[nid], row[nid + 1])
    ]
    assert printed and used == printed


@pytest.mark.slow
def test_resnet50_every_stage_compiles_alone_and_replays(tmp_path: Path) -> None:
    from xtvm.frontend.onnx.testing import light_model_path, randomize_weights

    model = randomize_weights(onnx.load(light_model_path("resnet50")), seed=0)
    path = tmp_path / "resnet50.onnx"
    onnx.save(model, path)
    name = model.graph.input[0].name
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(dims).astype(np.float32)
    check_model(path, tmp_path, [], {name: x})
