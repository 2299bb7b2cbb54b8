"""Shared libraries: export from the JIT module and from the llvm dialect,
load in a fresh process with ctypes and with the runtime."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tir_kernels import ADDONE, build, lower

from xtvm import codegen

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")

LOAD_WITH_CTYPES = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
size = ctypes.c_uint64.in_dll(lib, "__xtvm_metadata_size").value
start = ctypes.addressof(ctypes.c_uint8.in_dll(lib, "__xtvm_metadata"))
header = json.loads(ctypes.string_at(start, size))
w = ctypes.addressof(ctypes.c_uint8.in_dll(lib, header["params"]["w"]["symbol"]))
print(json.dumps({"size": size, "aligned": w % 64 == 0, "header": header,
                  "has_entry": hasattr(lib, "addone")}))
"""

RUN_WITH_RUNTIME = r"""
import sys
import numpy as np
from xtvm.runtime import load_module
mod = load_module(sys.argv[1])
a = np.array([1, 2, 3], np.float32)
b = np.zeros(3, np.float32)
mod["addone"](a, b)
print(b.tolist())
print(mod.params["w"].tolist())
"""


def _python(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    return result.stdout


def test_export_from_jit_module(tmp_path: Path) -> None:
    module, header = lower(ADDONE)
    w = np.arange(5, dtype=np.float32)
    mod = codegen.jit(module, header, {"w": w})
    path = tmp_path / "addone.so"
    mod.export_library(path)
    info = json.loads(_python(LOAD_WITH_CTYPES, str(path)))
    assert info["aligned"] and info["has_entry"]
    assert info["header"]["functions"] == header["functions"]
    assert info["header"]["params"]["w"]["shape"] == [5]
    out = _python(RUN_WITH_RUNTIME, str(path)).splitlines()
    assert out == ["[2.0, 3.0, 4.0]", "[0.0, 1.0, 2.0, 3.0, 4.0]"]


def test_export_from_llvm_dialect(tmp_path: Path) -> None:
    module, header = lower(ADDONE)
    path = tmp_path / "direct.so"
    module = codegen.embed_header(module, header, {"w": np.zeros(5, np.float32)})
    codegen.export_library(module, path)
    assert _python(RUN_WITH_RUNTIME, str(path)).splitlines()[0] == "[2.0, 3.0, 4.0]"


def test_missing_c_compiler_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    mod = build(ADDONE)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(codegen.CodegenError, match="needs a C compiler"):
        mod.export_library(tmp_path / "x.so")


def test_link_failure_reports_the_command(tmp_path: Path, monkeypatch) -> None:
    module, header = lower(ADDONE)
    monkeypatch.setenv("CC", "false")
    with pytest.raises(codegen.CodegenError, match="linking .* failed"):
        codegen.export_library(codegen.embed_header(module, header, {}), tmp_path / "x.so")
