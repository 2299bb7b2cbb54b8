"""Mistakes a new user makes with the tools: each is one clear message and
exit code 1, never a Python traceback (each case here was a traceback, or a
misleading message, before). Also what the tools say about themselves
(--help, --list-passes) and standard input."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent

RELU = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = relay.nn.relu %x : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""


def tool(name, *args, stdin=None, cwd=None):
    return subprocess.run(
        [str(BIN / name), *map(str, args)], capture_output=True, text=True, input=stdin, cwd=cwd
    )


def fails_cleanly(r, *messages):
    """Exit code 1, each message in stderr, no traceback."""
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    for message in messages:
        assert message in r.stderr, r.stderr


@pytest.fixture
def relu_file(tmp_path):
    path = tmp_path / "relu.mlir"
    path.write_text(RELU)
    return path


# --- xtvm-opt


def test_pipeline_syntax_error_unquoted_path(relu_file):
    r = tool("xtvm-opt", relu_file, "-p", "apply-pdl{pdl_file=rules.pdl.mlir}")
    fails_cleanly(
        r,
        "xtvm-opt: error in the pass pipeline: pass-pipeline:1:25",
        "apply-pdl{pdl_file=rules.pdl.mlir}",
        'note: quote option values that hold "." or "/": pdl_file="rules.pdl.mlir"',
    )


def test_missing_pdl_file(relu_file, tmp_path):
    r = tool("xtvm-opt", relu_file, "-p", f'apply-pdl{{pdl_file="{tmp_path}/none.pdl.mlir"}}')
    fails_cleanly(r, "apply-pdl: cannot read the PDL file", "none.pdl.mlir': No such file or directory")


def test_unparsable_pdl_file_is_named(relu_file, tmp_path):
    pdl = tmp_path / "rules.pdl.mlir"
    pdl.write_text("pdl.pattern : benefit(1) {\n  %root = pdl.operashun\n}\n")
    r = tool("xtvm-opt", relu_file, "-p", f'apply-pdl{{pdl_file="{pdl}"}}')
    fails_cleanly(r, f"{pdl}:2:11: error: Operation pdl.operashun is not registered", "  %root = pdl.operashun\n          ^")


def test_pdl_file_applies(relu_file):
    patterns = Path(__file__).resolve().parents[3] / "patterns" / "relay_simplify.pdl.mlir"
    r = tool("xtvm-opt", relu_file, "-p", f'apply-pdl{{pdl_file="{patterns}"}}')
    assert r.returncode == 0, r.stderr
    assert "relay.nn.relu" in r.stdout


def test_opt_reads_standard_input():
    r = tool("xtvm-opt", "-", "-p", "relay-fuse-ops", stdin=RELU)
    assert r.returncode == 0, r.stderr
    assert "func.func private @fused_nn_relu" in r.stdout


def test_opt_errors_on_standard_input_name_it():
    r = tool("xtvm-opt", "-", stdin=RELU.replace("%x : tensor<4xf32>\n", "%x, : tensor<4xf32>\n"))
    fails_cleanly(r, "<stdin>:2:")


def test_opt_missing_file(tmp_path):
    fails_cleanly(tool("xtvm-opt", tmp_path / "none.mlir"), "xtvm-opt: error: No such file or directory")


def test_list_passes():
    r = tool("xtvm-opt", "--list-passes")
    assert r.returncode == 0, r.stderr
    xtvm, xdsl = r.stdout.split("xDSL passes:")
    assert "relay-fuse-ops  Fuse the ops of every graph function into primitive functions." in xtvm
    assert "      max-depth: int | None = none" in xtvm
    assert "  canonicalize" in xdsl and "relay-fuse-ops" not in xdsl


def test_opt_verify_diagnostics_fails_on_a_missing_error(relu_file):
    annotated = RELU.replace("  %r =", "  // expected-error @+1 {{not produced}}\n  %r =")
    relu_file.write_text(annotated)
    r = tool("xtvm-opt", relu_file, "--verify-diagnostics")
    fails_cleanly(r, f'{relu_file}:2:6: error: expected error "not produced" was not produced')


# --- xtvm-compile


def test_compile_relay_without_main(tmp_path):
    path = tmp_path / "forward.mlir"
    path.write_text(RELU.replace("@main", "@forward"))
    r = tool("xtvm-compile", path, "-o", tmp_path / "m.so")
    fails_cleanly(r, f"{path}: no graph function func.func @main (found: @forward)")
    assert "codegen" not in r.stderr.lower()


def test_compile_malformed_shape(mlp_path, tmp_path):
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1x784", "-o", tmp_path / "m.so")
    fails_cleanly(r, "--shape expects NAME=D0,D1,...", "(e.g. data=1,784), got 'data=1x784'")


def test_compile_dynamic_shape_suggests_the_flag(mlp_path, tmp_path):
    r = tool("xtvm-compile", mlp_path, "-o", tmp_path / "m.so")
    fails_cleanly(
        r,
        "input 'data' has symbolic dimension 'N' at axis 0: give its static shape, "
        "e.g. --shape data=1,784",
    )
    assert "shape={" not in r.stderr


def test_compile_invalid_mlir_reports_every_op(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @main(%x: tensor<1x8x4x4xf32>, %i: tensor<1x8x4x4xi32>) {\n"
        "  %y = relay.nn.lrn %x {size = 0 : i64} : tensor<1x8x4x4xf32>\n"
        "  %z = relay.nn.lrn %i : tensor<1x8x4x4xi32>\n"
        "  func.return\n}\n"
    )
    r = tool("xtvm-compile", path, "-o", tmp_path / "m.so")
    fails_cleanly(
        r,
        f"{path}:2:3: error: 'relay.nn.lrn' size must be >= 1, got 0",
        f"{path}:3:3: error: 'relay.nn.lrn' expects a floating-point tensor, got i32",
        "  %z = relay.nn.lrn %i : tensor<1x8x4x4xi32>\n  ^",
    )


def test_compile_parse_error_is_located(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(RELU.replace("%x : tensor<4xf32>\n", "%x, : tensor<4xf32>\n"))
    fails_cleanly(tool("xtvm-compile", path, "-o", tmp_path / "m.so"), f"{path}:2:", "error: ")


def test_compile_help_documents_every_flag():
    from xtvm.tools.compile import make_parser

    undocumented = [a.dest for a in make_parser()._actions if not a.help]
    assert undocumented == []
    r = tool("xtvm-compile", "--help")
    assert r.returncode == 0
    assert "compile a model to a shared library, or print the IR of one" in r.stdout
    assert "-num-cores" in r.stdout and "memory-alloc" in r.stdout and "opt_level" in r.stdout


# --- xtvm-run


@pytest.fixture(scope="module")
def mlp_so(tmp_path_factory, mlp_path):
    so = tmp_path_factory.mktemp("so") / "mlp.so"
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "-o", so)
    assert r.returncode == 0, r.stderr
    return so


def test_run_unknown_input_with_fill(mlp_so, tmp_path):
    np.save(tmp_path / "x.npy", np.ones((1, 784), "float32"))
    r = tool("xtvm-run", mlp_so, "--fill", "random", "--input", f"dta={tmp_path / 'x.npy'}")
    fails_cleanly(r, "unknown inputs ['dta']; the model takes ['data']")


def test_run_unknown_input_is_reported_before_reading_files(mlp_so):
    r = tool("xtvm-run", mlp_so, "--fill", "zeros", "--input", "dta=/no/such/file.npy")
    fails_cleanly(r, "unknown inputs ['dta']")


def test_run_output_is_named_after_the_model_outputs(mlp_so, tmp_path):
    out = tmp_path / "out.npz"
    r = tool("xtvm-run", mlp_so, "--fill", "random", "--repeat", "1", "--output", out)
    assert r.returncode == 0, r.stderr
    assert f"wrote {out} (probs)" in r.stdout
    assert list(np.load(out)) == ["probs"]


def test_compile_missing_external_data_file(tmp_path):
    import onnx
    from onnx import helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(np.eye(8, dtype=np.float32), "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "ext.onnx"
    onnx.save_model(model, path, save_as_external_data=True, location="w.bin", size_threshold=0)
    (tmp_path / "w.bin").unlink()
    r = tool("xtvm-compile", path, "-o", tmp_path / "m.so")
    fails_cleanly(
        r,
        f"xtvm-compile: error: tensor 'w' of '{path}' keeps its data in external file",
        "w.bin', which does not exist",
    )


def test_deeply_nested_ir_is_an_error_not_a_traceback(tmp_path):
    depth = 300  # beyond what xDSL's recursive parser can take
    path = tmp_path / "deep.mlir"
    path.write_text('"test.region"() ({\n' * depth + "}) : () -> ()\n" * depth)
    r = tool("xtvm-opt", path, "--allow-unregistered-dialect")
    fails_cleanly(r, f"{path}: error: the IR is nested too deeply")
