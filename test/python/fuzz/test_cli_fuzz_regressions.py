"""Bad command lines the runtime fuzzer's CLI scenarios try
(``python -m xtvm.testing.fuzz runtime``): each is an error message and
exit 1 (or 2 from argparse), never a traceback.

xtvm/tools is another area's: cases that still fail are
``xfail(strict=True)`` with the reason, so the fix turns them into passes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

TOOLS = Path(sys.executable).parent


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cli")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), d / "m.onnx")
    (d / "garbage.onnx").write_bytes(bytes(range(256)) * 3)
    (d / "text.so").write_text("not a library\n")
    (d / "dir").mkdir()
    np.save(d / "wrong.npy", np.zeros((5,), np.float32))
    subprocess.run(
        [TOOLS / "xtvm-compile", "m.onnx", "-o", "m.so"], cwd=d, check=True, capture_output=True
    )
    return d


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


CASES = [
    (
        "compile-bad-mattr",
        ["xtvm-compile", "m.onnx", "--target", "llvm -mattr=+nope", "-o", "o.so"],
        (),
    ),
    (
        "compile-bad-mattr-emit",
        [
            "xtvm-compile",
            "m.onnx",
            "--target",
            "llvm -mattr=+nope",
            "--emit",
            "llvm-ir",
            "-o",
            "o.ll",
        ],
        (),
    ),
    (
        "compile-bad-mcpu",
        ["xtvm-compile", "m.onnx", "--target", "llvm -mcpu=nope", "-o", "o.so"],
        (),
    ),
    ("compile-garbage-model", ["xtvm-compile", "garbage.onnx", "-o", "o.so"], ()),
    ("compile-bad-shape", ["xtvm-compile", "m.onnx", "--shape", "x=a,b", "-o", "o.so"], ()),
    (
        "compile-output-is-a-directory",
        ["xtvm-compile", "m.onnx", "-o", "dir"],
        (),
    ),
    ("compile-directory-model", ["xtvm-compile", "dir", "-o", "o.so"], ()),
    ("run-text-library", ["xtvm-run", "text.so"], ()),
    ("run-directory", ["xtvm-run", "dir"], ()),
    ("run-wrong-input-shape", ["xtvm-run", "m.so", "--input", "x=wrong.npy"], ()),
    ("run-input-without-a-name", ["xtvm-run", "m.so", "--input", "=wrong.npy"], ()),
    (
        "run-output-in-a-missing-directory",
        ["xtvm-run", "m.so", "--fill", "zeros", "--output", "missing/out.npz"],
        (),
    ),
]


@pytest.mark.parametrize("argv", [pytest.param(a, id=n, marks=m) for n, a, m in CASES])
def test_a_bad_command_line_is_a_clean_error(argv: list[str], workdir: Path) -> None:
    proc = subprocess.run(
        [TOOLS / argv[0], *argv[1:]], cwd=workdir, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-1500:]
    assert proc.returncode in (1, 2), (proc.returncode, proc.stderr[-500:])
    assert "error" in proc.stderr.lower(), proc.stderr[-500:]
