"""Upstream MLIR round trip: a whole model's llvm-dialect IR, as xtvm prints
it (``xtvm-compile --emit llvm-dialect``: kernels, the AOT entry, the weights
as ``dense``/``dense_resource`` constant globals, the zeroed workspace, the
metadata string), goes through upstream LLVM's tools instead of llvmlite::

    mlir-translate-19 --mlir-to-llvmir model.mlir -o model.ll
    llc-19 -O3 -filetype=obj -relocation-model=pic -mcpu=native model.ll -o model.o
    cc -shared -o model.so model.o -lgomp -lm

and the library, loaded by ``xtvm.runtime.load_module`` in a fresh process,
must compute what the llvmlite-built library of the same IR computes
(``xtvm.build`` + ``export_library``). Skipped only where
``mlir-translate-19`` or ``llc-19`` is not on PATH (Debian: ``mlir-19-tools``,
``llvm-19``; ``.ci/run`` installs them when it can).
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import xtvm
from xtvm.codegen.export import find_c_compiler
from xtvm.driver.build_module import lower
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import light_model_path, randomize_weights
from xtvm.ir.printing import print_module

TOOLS = ("mlir-translate-19", "llc-19")

# Runs in a fresh process: load one library, feed it the saved input, save
# every output. Only xtvm.runtime is imported.
RUNNER = """
import ctypes, sys, numpy as np
from xtvm.runtime import cpu, load_module
lib, inp, out = sys.argv[1:4]
gmod = load_module(lib)["default"](cpu(0))
gmod["set_input"](0, np.load(inp))
gmod["run"]()
outputs = [gmod["get_output"](i).numpy() for i in range(gmod["get_num_outputs"]())]
so = ctypes.CDLL(lib)
size = ctypes.c_int64.in_dll(so, "__xtvm_metadata_size").value
metadata = np.frombuffer((ctypes.c_char * size).in_dll(so, "__xtvm_metadata").raw, np.uint8)
np.savez(out, *outputs, metadata=metadata)
"""


@pytest.fixture(scope="module")
def tools() -> dict[str, str]:
    found = {name: shutil.which(name) for name in TOOLS}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        pytest.skip(
            f"{' and '.join(missing)} not on PATH (Debian packages mlir-19-tools, llvm-19)"
        )
    return found


def run(command: list[str]) -> None:
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, command))} failed:\n{result.stderr}"


def upstream_library(tools: dict[str, str], text: Path, tmp: Path) -> Path:
    """``text`` (llvm-dialect MLIR) → a shared library, through upstream LLVM."""
    ll, obj, so = tmp / "upstream.ll", tmp / "upstream.o", tmp / "upstream.so"
    run([tools["mlir-translate-19"], "--mlir-to-llvmir", text, "-o", ll])
    run([tools["llc-19"], "-O3", "-filetype=obj", "-relocation-model=pic", "-mcpu=native",
         ll, "-o", obj])
    run([find_c_compiler(), "-shared", "-o", so, obj, "-lgomp", "-lm"])
    return so


def outputs(library: Path, x: np.ndarray, tmp: Path) -> tuple[list[np.ndarray], bytes]:
    """The library's outputs on ``x``, computed in a fresh process, and the
    bytes of its ``__xtvm_metadata``."""
    inp, out = tmp / "input.npy", tmp / f"{library.stem}.outputs.npz"
    np.save(inp, x)
    run([sys.executable, "-c", RUNNER, library, inp, out])
    with np.load(out) as saved:
        count = len(saved.files) - 1
        return [saved[f"arr_{i}"] for i in range(count)], saved["metadata"].tobytes()


def round_trip(tools, model: onnx.ModelProto, shape: dict, x: np.ndarray, tmp: Path):
    """(upstream outputs, llvmlite outputs, the printed IR) of one lowering of ``model``."""
    mod, params = from_onnx(model, shape=shape)
    with xtvm.transform.PassContext(opt_level=3):
        lowered = lower(mod, params)  # stage llvm-dialect: the whole program
    text = tmp / "model.mlir"
    with open(text, "w") as f:
        print_module(lowered, f)

    reference = tmp / "llvmlite.so"
    xtvm.build(lowered).export_library(reference)  # continues from llvm-dialect
    upstream = upstream_library(tools, text, tmp)
    return outputs(upstream, x, tmp), outputs(reference, x, tmp), text.read_text()


def assert_same(upstream, llvmlite) -> None:
    """Equal outputs within 1e-5 relative (of each output's largest
    magnitude), and the identical metadata."""
    (got, got_metadata), (expected, expected_metadata) = upstream, llvmlite
    assert got_metadata == expected_metadata
    assert json.loads(got_metadata)["version"] == 2
    assert len(got) == len(expected) >= 1
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        assert np.all(np.isfinite(e)) and np.count_nonzero(e) > 0
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5 * float(np.max(np.abs(e))))


def check_program_is_whole(text: str) -> None:
    """What the round trip takes through upstream MLIR, so that a silently
    shrunken IR cannot pass."""
    assert "llvm.func @tvmgen_default_run(" in text
    assert "llvm.mlir.zero" in text  # the workspace
    assert "dense_resource<" in text and "dialect_resources" in text  # large weights
    assert "llvm.mlir.global external constant @__xtvm_const_" in text
    assert "@__xtvm_metadata(" in text and "@__xtvm_metadata_size(" in text


def test_mlp_through_mlir_translate_and_llc(tools, mlp_path, tmp_path):
    x = np.random.default_rng(0).random((1, 784), np.float32)
    got, expected, text = round_trip(tools, onnx.load(mlp_path), {"data": (1, 784)}, x, tmp_path)
    check_program_is_whole(text)
    assert "dense<[" in text  # fc3.bias, 10 elements, stays inline
    assert "GOMP_parallel" in text  # a parallel kernel: the library links libgomp
    assert_same(got, expected)
    assert np.count_nonzero(expected[0][0] > 1e-3) > 1  # not a saturated softmax


@pytest.mark.slow
def test_squeezenet_through_mlir_translate_and_llc(tools, tmp_path):
    model = randomize_weights(onnx.load(light_model_path("squeezenet")), seed=0)
    weights = {t.name for t in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in weights]
    shape = tuple(d.dim_value for d in inp.type.tensor_type.shape.dim)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got, expected, text = round_trip(tools, model, {inp.name: shape}, x, tmp_path)
    check_program_is_whole(text)
    assert_same(got, expected)

