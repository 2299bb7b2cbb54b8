"""xtvm-compile and xtvm-run as a user runs them: every --emit stage parses
again with xtvm-opt, a compiled model runs, bad input is a one-line error."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

BIN = Path(sys.executable).parent


def tool(name, *args, cwd=None):
    return subprocess.run([str(BIN / name), *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    "stage", ["relay", "relay-opt", "tir", "memory-alloc", "memory", "llvm-dialect"]
)
def test_emit_stage_parses_again(mlp_path, tmp_path, stage):
    out = tmp_path / f"{stage}.mlir"
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", stage, "-o", out)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.startswith("// xtvm-compile")
    expected = {"relay": "relay.nn.dense", "relay-opt": "relay.primitive",
                "tir": "tir.prim_func", "memory-alloc": "memory.alloc_tensor",
                "memory": "memory.alloc_tensor",
                "llvm-dialect": "llvm.func"}[stage]
    assert expected in text
    r = tool("xtvm-opt", out)
    assert r.returncode == 0, r.stderr


def test_emit_shows_memory_before_and_after_planning(mlp_path):
    before = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "memory-alloc")
    after = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "memory")
    assert before.returncode == 0 and after.returncode == 0, before.stderr + after.stderr
    # before: one storage per intermediate tensor; after: one arena, shared offsets
    assert before.stdout.count("= memory.alloc_storage") == 4
    assert "memory.planned_bytes" not in before.stdout
    assert after.stdout.count("= memory.alloc_storage") == 1
    assert "%arena = memory.alloc_storage" in after.stdout
    assert "memory.planned_bytes = 1536" in after.stdout


def test_emit_llvm_ir(mlp_path):
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "llvm-ir")
    assert r.returncode == 0, r.stderr
    assert "define" in r.stdout and "fused_nn_contrib_dense_pack" in r.stdout


def test_compile_and_run(mlp_path, tmp_path):
    so = tmp_path / "mlp.so"
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "-o", so)
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "x.npy", np.ones((1, 784), "float32"))
    r = tool("xtvm-run", so, "--input", f"data={tmp_path / 'x.npy'}", "--output", tmp_path / "o.npz", "--repeat", "3")
    assert r.returncode == 0, r.stderr
    assert "output 0 'probs': shape (1, 10) float32" in r.stdout
    assert "latency: median" in r.stdout
    assert list(np.load(tmp_path / "o.npz")) == ["probs"]  # named as the model's output
    assert np.load(tmp_path / "o.npz")["probs"].shape == (1, 10)
    r = tool("xtvm-run", so, "--input", f"data={tmp_path / 'x.npy'}", "--input", "zzz=1.npy")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "unknown inputs ['zzz']; the model takes ['data']" in r.stderr


def test_run_wrong_input_shape(mlp_path, tmp_path):
    so = tmp_path / "mlp.so"
    assert tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "-o", so).returncode == 0
    np.save(tmp_path / "x.npy", np.ones((2, 784), "float32"))
    r = tool("xtvm-run", so, "--input", f"data={tmp_path / 'x.npy'}")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "'data'" in r.stderr and "(1, 784)" in r.stderr and "(2, 784)" in r.stderr


def test_unsupported_onnx_lists_every_node(tmp_path):
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok"),
        helper.make_node("GlobalLpPool", ["a"], ["b"], name="pool"),
        helper.make_node("Foo", ["b"], ["y"], name="foo", domain="com.example"),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    path = tmp_path / "bad.onnx"
    opsets = [helper.make_opsetid("", 15), helper.make_opsetid("com.example", 1)]
    onnx.save(helper.make_model(graph, opset_imports=opsets), path)
    r = tool("xtvm-compile", path, "-o", tmp_path / "bad.so")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "'pool' (GlobalLpPool" in r.stderr and "'foo' (com.example.Foo" in r.stderr


def test_invalid_relay_module_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        "func.func @main(%x: tensor<1x8xf32>, %w: tensor<4x7xf32>) -> tensor<1x4xf32> {\n"
        "  %y = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<4x7xf32>) -> tensor<1x4xf32>\n"
        "  func.return %y : tensor<1x4xf32>\n}\n"
    )
    r = tool("xtvm-compile", bad, "-o", tmp_path / "bad.so")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "'relay.nn.dense' reduction sizes differ" in r.stderr


def test_compile_and_run_batch_0(mlp_path, tmp_path):
    # Batch 0 used to fail inside the packed dense schedule (a split by 0).
    so = tmp_path / "mlp0.so"
    r = tool("xtvm-compile", mlp_path, "--shape", "data=0,784", "-o", so, "--header", tmp_path / "m.h")
    assert r.returncode == 0, r.stderr
    r = tool("xtvm-run", so, "--fill", "random", "--output", tmp_path / "o.npz")
    assert r.returncode == 0, r.stderr
    assert "output 0 'probs': shape (0, 10) float32" in r.stdout
    assert np.load(tmp_path / "o.npz")["probs"].shape == (0, 10)
