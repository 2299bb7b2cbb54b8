"""A stage file is the whole program: ``xtvm-compile --emit relay`` binds the
weights into ``@main`` as ``dense_resource`` blobs, so compiling the file
alone gives the model; ``--elide-large-constants`` prints a file for
reading, which ``xtvm-opt`` prints back and ``xtvm-compile`` refuses."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent


def tool(name, *args):
    return subprocess.run([str(BIN / name), *map(str, args)], capture_output=True, text=True)


def ir(text: str) -> str:
    """The IR of an --emit file: its text after the leading // comment lines."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "".join(lines)


def run_model(so: Path, x: np.ndarray) -> np.ndarray:
    from xtvm import cpu
    from xtvm.runtime import load_module

    gmod = load_module(str(so))["default"](cpu(0))
    gmod["set_input"]("data", x)
    gmod["run"]()
    return gmod["get_output"](0).numpy()


@pytest.fixture(scope="module")
def relay_file(mlp_path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("emit") / "mlp.relay.mlir"
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "relay", "-o", out)
    assert r.returncode == 0, r.stderr
    return out


def test_emit_relay_binds_the_weights_as_blobs(relay_file):
    text = relay_file.read_text()
    signature = re.search(r"func\.func @main\(([^)]*)\)", text)[1]
    assert signature == '%data: tensor<1x784xf32> {relay.name = "data"}'  # no weight arguments
    for name, ty in [("fc1.weight", "256x784"), ("fc2.weight", "256x128"), ("fc1.bias", "256")]:
        assert f"%{name} = relay.const dense_resource<{name}> : tensor<{ty}xf32>" in text
        assert re.search(rf'^      {re.escape(name)}: "0x04000000[0-9A-F]+",?$', text, re.M)
    assert "relay.const dense<[" in text  # fc3.bias, 10 elements, stays inline
    assert text.rstrip().endswith("#-}")


def test_the_relay_file_alone_compiles_to_the_same_model(mlp_path, relay_file, tmp_path):
    from_onnx, from_file = tmp_path / "onnx.so", tmp_path / "file.so"
    for model, so in [(mlp_path, from_onnx), (relay_file, from_file)]:
        r = tool("xtvm-compile", model, "--shape", "data=1,784", "-o", so)
        assert r.returncode == 0, r.stderr
    x = np.random.default_rng(0).random((1, 784), np.float32)
    expected = run_model(from_onnx, x)
    np.testing.assert_array_equal(run_model(from_file, x), expected)
    assert np.count_nonzero(expected > 1e-3) > 1  # not a one-hot softmax of unbound weights


def test_the_relay_files_weights_are_packed_at_compile_time(relay_file):
    # With the weights as @main arguments, the layout_transform packing
    # fc1.weight stayed a run-time kernel; bound, it folds into a constant.
    r = tool("xtvm-compile", relay_file, "--emit", "relay-opt")
    assert r.returncode == 0, r.stderr
    assert "layout_transform" not in r.stdout
    assert "= relay.const dense_resource<fc1.weight_packed> : tensor<16x784x16xf32>" in r.stdout


def test_xtvm_opt_prints_the_blobs_back_unchanged(relay_file):
    r = tool("xtvm-opt", relay_file)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ir(relay_file.read_text())


def test_an_elided_file_reads_and_round_trips_but_does_not_compile(mlp_path, tmp_path):
    elided = tmp_path / "elided.mlir"
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "relay",
             "--elide-large-constants", "-o", elided)
    assert r.returncode == 0, r.stderr
    text = elided.read_text()
    assert text.count("dense_resource<__elided__>") == 5 and "{-#" not in text
    r = tool("xtvm-opt", elided)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ir(text)
    r = tool("xtvm-compile", elided, "-o", tmp_path / "elided.so")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "'relay.const'" in r.stderr
    assert "(and 4 more) was elided when the file was printed" in r.stderr
    assert "print it again without that flag" in r.stderr


def test_elide_threshold_and_its_misuse(mlp_path, tmp_path):
    r = tool("xtvm-compile", mlp_path, "--shape", "data=1,784", "--emit", "relay",
             "--elide-large-constants=200")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("dense_resource<__elided__>") == 4  # all but the 128-element bias
    assert "dense_resource<fc2.bias>" in r.stdout
    r = tool("xtvm-compile", mlp_path, "--elide-large-constants", "-o", tmp_path / "m.so")
    assert r.returncode == 2 and "--elide-large-constants needs --emit" in r.stderr
