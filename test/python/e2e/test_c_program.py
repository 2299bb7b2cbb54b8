"""A C program runs a model (docs/abi.md, "The AOT entry (C ABI)").

examples/run_model.c, compiled with ``cc`` against a model's exported ``.so``
and its generated header and nothing else (no Python, no xtvm runtime), runs
the example MLP and SqueezeNet (seeded random weights, logits exposed as a
second output); its outputs, written to files, match onnxruntime. Also: the
generated header itself (names made C identifiers, every dtype, bad
metadata), the documented error code of a NULL pointer, and a wrong-sized
input file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import xtvm
from xtvm.codegen import find_c_compiler
from xtvm.codegen.c_header import HeaderError, c_identifier, make_header, unique_identifiers

ROOT = Path(__file__).resolve().parents[3]
RUN_MODEL_C = ROOT / "examples" / "run_model.c"
CFLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"]


def build_program(directory: Path, library: str) -> Path:
    """cc examples/run_model.c against ``directory/library`` and the
    ``tvmgen_default.h`` beside it; the executable finds the library by rpath."""
    exe = directory / "run_model"
    subprocess.run(
        [find_c_compiler(), *CFLAGS, str(RUN_MODEL_C), f"-I{directory}", f"-L{directory}",
         f"-l:{library}", f"-Wl,-rpath,{directory}", "-o", str(exe)],
        check=True, capture_output=True, text=True,
    )
    return exe


def run_program(exe: Path, *args: str, expect: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=600)
    assert result.returncode == expect, (result.returncode, result.stdout, result.stderr)
    return result


def needed_libraries(path: Path) -> set[str] | None:
    """The DT_NEEDED entries of an ELF file (None without readelf)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        return None
    out = subprocess.run([readelf, "-d", str(path)], check=True, capture_output=True, text=True)
    return {line.split("[")[1].split("]")[0] for line in out.stdout.splitlines() if "(NEEDED)" in line}


def undefined_symbols(path: Path) -> set[str] | None:
    """The undefined dynamic symbols of an ELF file, without versions (None without nm)."""
    nm = shutil.which("nm")
    if nm is None:
        return None
    out = subprocess.run([nm, "-D", "--undefined-only", str(path)], check=True,
                         capture_output=True, text=True)
    return {line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.strip()}


def ort_outputs(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def read_outputs(prefix: Path, entry: dict) -> list[np.ndarray]:
    return [
        np.fromfile(f"{prefix}{k}.bin", dtype=t["dtype"]).reshape(t["shape"])
        for k, t in enumerate(entry["outputs"])
    ]


# -- the MLP, compiled by xtvm-compile --header ---------------------------------


@pytest.fixture(scope="module")
def mlp(mlp_path, tmp_path_factory):
    """(directory, model, entry, executable) of the example MLP at batch 1."""
    directory = tmp_path_factory.mktemp("c_mlp")
    so, header = directory / "mlp.so", directory / "tvmgen_default.h"
    result = subprocess.run(
        [sys.executable, "-m", "xtvm.tools.compile", str(mlp_path), "--shape", "data=1,784",
         "-o", str(so), "--header", str(header)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert header.exists()
    entry = xtvm.runtime.load_module(str(so)).header["entry"]
    return directory, onnx.load(mlp_path), entry, build_program(directory, "mlp.so")


def test_mlp_c_program_matches_onnxruntime(mlp):
    directory, model, entry, exe = mlp
    x = np.random.default_rng(0).standard_normal((1, 784)).astype(np.float32)
    x.tofile(directory / "data.bin")
    result = run_program(exe, "-i", str(directory / "data.bin"), "-o", str(directory / "out"),
                         "-n", "20")
    (out,) = read_outputs(directory / "out", entry)
    (ref,) = ort_outputs(model, {"data": x})
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    # What it prints: the input, the output's checksum and first values, the latency.
    lines = result.stdout.splitlines()
    assert "input 0 'data' 1x784 float32 (3136 bytes)" in lines[0]
    (line,) = [i for i, text in enumerate(lines) if text.startswith("output 0 'probs' 1x10 float32")]
    assert float(lines[line].split("sum ")[1].split()[0]) == pytest.approx(float(ref.sum()), rel=1e-4)
    printed = [float(v) for v in lines[line + 1].strip(" []").split(",")]
    np.testing.assert_allclose(printed, ref.ravel(), rtol=1e-4, atol=1e-5)
    assert lines[-1].startswith("latency: median ") and "over 20 runs" in lines[-1]


def test_mlp_deterministic_fill_runs_the_same_twice(mlp):
    directory, _, entry, exe = mlp
    run_program(exe, "-o", str(directory / "a"), "-n", "3")
    run_program(exe, "-o", str(directory / "b"), "-n", "3", "-t", "1")
    (a,), (b,) = read_outputs(directory / "a", entry), read_outputs(directory / "b", entry)
    np.testing.assert_array_equal(a, b)
    assert np.isclose(a.sum(), 1.0, rtol=1e-5)  # a softmax


def test_the_program_needs_only_the_model_library(mlp):
    directory, _, _, exe = mlp
    needed = needed_libraries(exe)
    if needed is None:
        pytest.skip("no readelf")
    assert "mlp.so" in needed
    assert not {n for n in needed if "python" in n or "xtvm" in n}, needed
    assert needed - {"mlp.so"} <= {"libc.so.6"}, needed


def test_mlp_library_allocates_nothing(mlp):
    """docs/abi.md: the MLP's kernels have no heap temporaries (SqueezeNet's do)."""
    directory = mlp[0]
    symbols = undefined_symbols(directory / "mlp.so")
    if symbols is None:
        pytest.skip("no nm")
    assert not symbols & {"malloc", "aligned_alloc", "calloc", "realloc", "posix_memalign"}


@pytest.mark.parametrize("pointer, kind", [(0, "input 0"), (1, "output 0")])
def test_null_pointer_returns_the_documented_code(mlp, pointer, kind):
    exe = mlp[3]
    result = run_program(exe, "-z", str(pointer), expect=3)
    assert f"return code: {(2 << 16) | pointer}" in result.stdout
    assert f"(2 << 16) | {pointer}: NULL pointer ({kind})" in result.stderr


def test_wrong_input_file_is_a_clear_error(mlp):
    directory, _, _, exe = mlp
    np.zeros(783, np.float32).tofile(directory / "short.bin")
    result = run_program(exe, "-i", str(directory / "short.bin"), expect=2)
    assert "has fewer bytes than input 'data' (3136 bytes: 1x784 float32)" in result.stderr
    result = run_program(exe, "-i", str(directory / "missing.bin"), expect=2)
    assert "cannot open" in result.stderr
    result = run_program(exe, "-i", str(directory / "short.bin"), "-i", "x", expect=2)
    assert "more -i files than the model's 1 input(s)" in result.stderr


def test_header_flag_needs_a_library(mlp_path, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "xtvm.tools.compile", str(mlp_path), "--shape", "data=1,784",
         "--emit", "relay", "--header", str(tmp_path / "m.h")],
        capture_output=True, text=True,
    )
    assert result.returncode == 2 and "--header writes the C header of a library" in result.stderr


# -- SqueezeNet: two outputs (logits exposed), a 4-D input -----------------------


@pytest.fixture(scope="module")
def squeezenet(tmp_path_factory):
    from xtvm.frontend import from_onnx
    from xtvm.frontend.onnx.testing import expose_logits, light_model_path, randomize_weights

    model = expose_logits(randomize_weights(onnx.load(light_model_path("squeezenet")), seed=0))
    directory = tmp_path_factory.mktemp("c_squeezenet")
    mod, params = from_onnx(model)
    with xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, params=params)
    lib.export_library(str(directory / "squeezenet.so"))
    entry = lib.header["entry"]
    (directory / "tvmgen_default.h").write_text(make_header(entry))
    return directory, model, entry, build_program(directory, "squeezenet.so")


def test_squeezenet_c_program_matches_onnxruntime(squeezenet):
    directory, model, entry, exe = squeezenet
    (inp,) = entry["inputs"]
    x = np.random.default_rng(1).standard_normal(inp["shape"]).astype(np.float32)
    x.tofile(directory / "x.bin")
    result = run_program(exe, "-i", str(directory / "x.bin"), "-o", str(directory / "out"),
                         "-n", "3", "-p", "5")
    probs, logits = read_outputs(directory / "out", entry)
    probs_ref, logits_ref = ort_outputs(model, {inp["name"]: x})
    assert np.std(logits_ref) > 1e-2, "random weights should give varied logits"
    np.testing.assert_allclose(logits, logits_ref, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(probs, probs_ref, rtol=1e-3, atol=1e-4)
    assert result.stdout.count("\noutput ") == 2
    assert "input 0 'data_0' 1x3x224x224 float32 (602112 bytes)" in result.stdout


COUNT_ALIGNED_ALLOC = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
static long calls;
void *aligned_alloc(size_t alignment, size_t size) {
  static void *(*real)(size_t, size_t);
  if (!real) real = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
  ++calls;
  return real(alignment, size);
}
__attribute__((destructor)) static void report(void) { fprintf(stderr, "aligned_alloc: %ld\n", calls); }
"""


def aligned_allocs_per_inference(exe: Path, directory: Path) -> int:
    """aligned_alloc calls of one inference: the calls of 5 runs less those of
    1 run (which cancels the program's own start-up buffers), over 4."""
    shim = directory / "count_aligned_alloc.so"
    (directory / "count.c").write_text(COUNT_ALIGNED_ALLOC)
    subprocess.run([find_c_compiler(), "-shared", "-fPIC", "-O2", str(directory / "count.c"),
                    "-o", str(shim), "-ldl"], check=True, capture_output=True)
    counts = []
    for runs in (1, 5):  # plus one warm-up run each
        result = subprocess.run([str(exe), "-n", str(runs), "-p", "0"], capture_output=True,
                                text=True, env={**os.environ, "LD_PRELOAD": str(shim)})
        assert result.returncode == 0, result.stderr
        counts.append(int(result.stderr.split("aligned_alloc: ")[1].split()[0]))
    assert (counts[1] - counts[0]) % 4 == 0, counts
    return (counts[1] - counts[0]) // 4


def heap_temporaries_per_inference(model) -> int:
    """The kernel temporaries above the stack limit one inference of
    ``model`` allocates, counted in its ``tir`` stage: each kernel's
    ``tir.allocate`` larger than ``STACK_LIMIT_BYTES``, times its calls."""
    from xtvm.dialects.relay.transform import CallLoweredOp
    from xtvm.dialects.tir import AllocateOp, PrimFuncOp
    from xtvm.driver.build_module import lower
    from xtvm.frontend import from_onnx
    from xtvm.lowering.tir_to_llvm.function import STACK_LIMIT_BYTES, buffer_storage

    mod, params = from_onnx(model)
    with xtvm.transform.PassContext(opt_level=3):
        tir = lower(mod, params, stage="tir")
    large: dict[str, int] = {}
    calls: list[str] = []
    for op in tir.walk():
        if isinstance(op, PrimFuncOp):
            large[op.sym_name.data] = sum(
                1 for a in op.walk()
                if isinstance(a, AllocateOp) and buffer_storage(a.res.type)[2] > STACK_LIMIT_BYTES
            )
        elif isinstance(op, CallLoweredOp):
            calls.append(op.callee.root_reference.data)
    return sum(large[c] for c in calls)


def test_squeezenet_heap_allocations_per_inference(squeezenet):
    """docs/abi.md, "Memory": the only heap allocations of an inference are
    the kernel temporaries above 1 MiB (the Winograd convs' transformed
    tiles), one per such temporary and call; the graph's intermediates are
    in the workspace, smaller temporaries on the stack. If this changes,
    update the docs."""
    directory, model, _, exe = squeezenet
    expected = heap_temporaries_per_inference(model)
    assert expected > 0  # SqueezeNet's expand convs on 55x55 take Winograd
    assert aligned_allocs_per_inference(exe, directory) == expected


def test_mlp_heap_allocations_per_inference(mlp):
    directory, _, _, exe = mlp
    assert aligned_allocs_per_inference(exe, directory) == 0


# -- the header ----------------------------------------------------------------


def test_identifiers():
    assert c_identifier("data_0") == "data_0"
    assert c_identifier("input:0") == "input_0"
    assert c_identifier("0") == "_0"
    assert c_identifier("") == "_"
    assert c_identifier("int") == "int_"
    assert c_identifier("__x") == "x__x"
    assert c_identifier("_X") == "x_X"
    assert c_identifier("dé") == "d_"
    assert unique_identifiers(["a.b", "a_b", "A_B", "a-b"]) == ["a_b", "a_b_1", "A_B_2", "a_b_3"]


WEIRD_ENTRY = {
    "run": "tvmgen_default_run",
    "run_with_workspace": "tvmgen_default_run_with_workspace",
    "workspace_size": "tvmgen_default_workspace_size",
    "workspace_bytes": 0,
    "inputs": [
        {"name": "input:0", "shape": [2, 3], "dtype": "int64"},
        {"name": "input/0", "shape": [], "dtype": "float16"},
        {"name": 'a "quoted" */ name', "shape": [0], "dtype": "uint8"},
    ],
    "outputs": [{"name": "int", "shape": [4], "dtype": "bool"}],
}


def test_header_names_every_tensor():
    text = make_header(WEIRD_ENTRY)
    assert "void *input_0; /* input:0: 2x3 int64 */" in text
    assert "void *input_0_1; /* input/0: scalar float16 */" in text
    assert "void *int_; /* int: 4 bool */" in text
    assert "#define TVMGEN_DEFAULT_INPUT_0_SIZE 48" in text
    assert "#define TVMGEN_DEFAULT_INPUT_0_SHAPE {2, 3}" in text
    assert "#define TVMGEN_DEFAULT_INPUT_0_1_SIZE 2" in text
    assert "#define TVMGEN_DEFAULT_INPUT_0_1_NDIM 0" in text
    assert "TVMGEN_DEFAULT_INPUT_0_1_SHAPE" not in text
    assert "#define TVMGEN_DEFAULT_INT__DTYPE \"bool\"" in text
    assert '{"a \\"quoted\\" */ name", "uint8", 1, 8, 1, {0}, 0u},' in text
    assert "#define TVMGEN_DEFAULT_NUM_INPUTS 3" in text
    assert "int32_t tvmgen_default_run(struct tvmgen_default_inputs *inputs, " in text


@pytest.mark.parametrize("language", ["c", "c++"])
def test_header_compiles(tmp_path, language):
    """The header of unusual names and dtypes compiles cleanly (C11 and C++),
    and its table agrees with its macros."""
    (tmp_path / "tvmgen_default.h").write_text(make_header(WEIRD_ENTRY))
    source = tmp_path / ("check.c" if language == "c" else "check.cc")
    source.write_text(
        '#include "tvmgen_default.h"\n#include <stdio.h>\n#include <string.h>\n'
        "int main(void) {\n"
        "  const struct tvmgen_default_tensor_info *t = tvmgen_default_input_info(0);\n"
        "  if (t->nbytes != TVMGEN_DEFAULT_INPUT_0_SIZE || t->ndim != 2 || t->shape[1] != 3) return 1;\n"
        "  if (strcmp(t->dtype, TVMGEN_DEFAULT_INPUT_0_DTYPE) != 0 || t->dtype_code != 0) return 2;\n"
        "  if (tvmgen_default_input_info(3) != NULL || tvmgen_default_input_info(-1) != NULL) return 3;\n"
        "  if (tvmgen_default_output_info(0)->dtype_code != 6) return 4;\n"
        "  if (sizeof(struct tvmgen_default_inputs) != 3 * sizeof(void *)) return 5;\n"
        "  printf(\"%s|%s\\n\", tvmgen_default_input_info(2)->name, tvmgen_default_output_info(0)->name);\n"
        "  return 0;\n}\n"
    )
    cc = find_c_compiler()
    if language == "c++":
        cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
        if cxx is None:
            pytest.skip("no C++ compiler")
        cc, flags = cxx, ["-std=c++17", "-Wall", "-Wextra", "-Werror"]
    else:
        flags = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
    exe = tmp_path / "check"
    subprocess.run([cc, *flags, f"-I{tmp_path}", str(source), "-o", str(exe)], check=True,
                   capture_output=True, text=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0, out.returncode
    assert out.stdout == 'a "quoted" */ name|int\n'


def test_header_of_a_model_without_tensors_compiles(tmp_path):
    entry = {**WEIRD_ENTRY, "inputs": [], "outputs": []}
    (tmp_path / "tvmgen_default.h").write_text(make_header(entry))
    (tmp_path / "c.c").write_text('#include "tvmgen_default.h"\nint main(void) { return 0; }\n')
    subprocess.run([find_c_compiler(), "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}",
                    "-c", str(tmp_path / "c.c"), "-o", str(tmp_path / "c.o")], check=True)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"inputs": None}, "'inputs' must be a list of tensors"),
        ({"outputs": [{"name": "y", "shape": [-1], "dtype": "float32"}]},
         r"outputs\[0\] \('y'\): shape must be a list of non-negative integers"),
        ({"outputs": [{"name": "y", "shape": [2], "dtype": "float8"}]}, "unsupported dtype 'float8'"),
        ({"outputs": [{"name": "y", "shape": [2], "dtype": "complex64"}]}, "unsupported dtype"),
        ({"outputs": [{"shape": [2], "dtype": "int8"}]}, r"outputs\[0\]: name must be a string"),
        ({"outputs": ["y"]}, r"outputs\[0\] must be an object"),
        ({"workspace_bytes": -1}, "'workspace_bytes' must be a non-negative integer"),
        ({"run": "my run"}, "'run' must be a C symbol name"),
    ],
)
def test_bad_metadata_is_a_clear_error(change, message):
    with pytest.raises(HeaderError, match=message):
        make_header({**WEIRD_ENTRY, **change})


def test_no_entry_is_a_clear_error():
    with pytest.raises(HeaderError, match="a library without a graph has no AOT entry"):
        make_header(None)  # type: ignore[arg-type]
    with pytest.raises(HeaderError, match="header prefix must be a C identifier"):
        make_header(WEIRD_ENTRY, prefix="my-model")
    text = make_header(WEIRD_ENTRY, prefix="mymodel")
    assert "struct mymodel_inputs {" in text and "#define MYMODEL_NUM_INPUTS 3" in text
    assert "int32_t tvmgen_default_run(struct mymodel_inputs *inputs" in text


def test_benchmark_runs_and_prints_its_table():
    """python -m xtvm.bench.c_program on its smallest model (README's table)."""
    result = subprocess.run(
        [sys.executable, "-m", "xtvm.bench.c_program", "--models", "relu", "--rounds", "1",
         "--repeat", "20"],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("| relu | 1 |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    c_us, py_us = float(cells[2]), float(cells[3])
    assert 0 < c_us and 0 < py_us and float(cells[-1]) == 0.0
    assert "Per-call overhead" in result.stdout
