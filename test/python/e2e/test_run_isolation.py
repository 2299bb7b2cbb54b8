"""xtvm-run's reliability: a crash inside generated code is an error message
(the model runs in a child process), an input given as an .npz archive is
read or refused clearly, and xtvm-compile refuses an unwritable -o before
compiling."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from native_kernels import KERNELS_C, build_library  # noqa: E402

BIN = Path(sys.executable).parent

CRASHING_C = KERNELS_C.replace(
    "for (int k = 0; k < 4; ++k) DATA(1)[k] = DATA(0)[k] + 1.0f;",
    "if (DATA(0)[0] > 100.0f) *(volatile int *)0 = 0;  /* a bug on big inputs */\n"
    "  for (int k = 0; k < 4; ++k) DATA(1)[k] = DATA(0)[k] + 1.0f;",
)

GRAPH = {
    "nodes": [
        {"op": "null", "name": "x", "inputs": []},
        {
            "op": "tvm_op",
            "name": "addone",
            "attrs": {"func_name": "addone", "num_inputs": "1", "num_outputs": "1"},
            "inputs": [[0, 0, 0]],
        },
    ],
    "arg_nodes": [0],
    "heads": [[1, 0, 0]],
    "attrs": {
        "shape": ["list_shape", [[4], [4]]],
        "dltype": ["list_str", ["float32", "float32"]],
        "storage_id": ["list_int", [0, 1]],
    },
}


def xtvm_run(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "xtvm-run"), *map(str, args)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def crashing_library(tmp_path_factory) -> Path:
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler (cc)")
    functions = {"addone": {"args": [{"name": "A", "shape": [4], "dtype": "float32"},
                                     {"name": "B", "shape": [4], "dtype": "float32"}],
                            "asserts": []}}
    header = {"functions": functions, "graph_json": json.dumps(GRAPH)}
    return build_library(tmp_path_factory.mktemp("crash"), header, {}, source=CRASHING_C)


def test_a_crash_in_generated_code_is_an_error_message(crashing_library: Path, tmp_path: Path):
    small, big = tmp_path / "small.npy", tmp_path / "big.npy"
    np.save(small, np.ones(4, np.float32))
    np.save(big, np.full(4, 1000, np.float32))
    ok = xtvm_run(crashing_library, "--input", f"x={small}", "--repeat", "1")
    assert ok.returncode == 0, ok.stderr
    assert "[2. 2. 2. 2.]" in ok.stdout
    crashed = xtvm_run(crashing_library, "--input", f"x={big}", "--repeat", "1")
    assert crashed.returncode == 1
    assert "crashed inside its generated code (SIGSEGV)" in crashed.stderr
    assert "Traceback" not in crashed.stderr


def test_npz_inputs(crashing_library: Path, tmp_path: Path):
    one = tmp_path / "one.npz"
    np.savez(one, anything=np.ones(4, np.float32))
    named = tmp_path / "named.npz"
    np.savez(named, other=np.zeros(4, np.float32), x=np.ones(4, np.float32))
    for path in (one, named):
        result = xtvm_run(crashing_library, "--input", f"x={path}", "--repeat", "1")
        assert result.returncode == 0, result.stderr
        assert "[2. 2. 2. 2.]" in result.stdout
    two = tmp_path / "two.npz"
    np.savez(two, a=np.ones(4, np.float32), b=np.ones(4, np.float32))
    result = xtvm_run(crashing_library, "--input", f"x={two}")
    assert result.returncode == 1
    assert "holds 2 arrays (a, b) and none is named 'x'" in result.stderr
    text = tmp_path / "text.npy"
    text.write_text("not an array")
    result = xtvm_run(crashing_library, "--input", f"x={text}")
    assert result.returncode == 1 and "not a .npy or .npz file" in result.stderr


def test_compile_refuses_an_unwritable_output_before_compiling(mlp_path: Path, tmp_path: Path):
    for out, message in (
        (tmp_path / "missing" / "m.so", "does not exist"),
        (tmp_path, "it is a directory"),
    ):
        result = subprocess.run(
            [str(BIN / "xtvm-compile"), str(mlp_path), "--shape", "data=1,784", "-o", str(out)],
            capture_output=True, text=True, timeout=120,
        )
        assert result.returncode == 1
        assert f"cannot write '{out}': " in result.stderr and message in result.stderr
        assert "Traceback" not in result.stderr
