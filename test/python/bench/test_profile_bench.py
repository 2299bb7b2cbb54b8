"""The per-kernel profiler (``python -m xtvm.bench.profile``): one minimum
time per kernel call of the executor, in graph order, and onnxruntime's
per-node kernel times from its profiler, on the example MLP."""

from __future__ import annotations

import time

import numpy as np
import onnx

import xtvm
from xtvm.bench.profile import kernel_times, ort_node_times
from xtvm.frontend import from_onnx


def test_kernel_and_node_times_of_the_example_mlp(mlp_path):
    model = onnx.load(mlp_path)
    graph_input = model.graph.input[0]
    input_name = graph_input.name
    shape = tuple(d.dim_value or 1 for d in graph_input.type.tensor_type.shape.dim)  # batch N = 1
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    mod, params = from_onnx(model, shape={input_name: shape})
    gmod = xtvm.build(mod, params=params)["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    ours = kernel_times(gmod, repeat=3, clock=time.perf_counter)
    calls = [n for n in gmod._graph.nodes if n.op == "tvm_op" and n.func_name != "__nop"]
    assert [name for name, _, _ in ours] == [n.func_name for n in calls]
    assert all(seconds > 0 for _, _, seconds in ours)
    assert ours[-1][1] == tuple(gmod.get_output(0).shape)
    theirs = ort_node_times(model, input_name, x, threads=1, repeat=2)
    ops = {op for op, _, _ in theirs}
    assert ops & {"Gemm", "MatMul", "FusedGemm", "FusedMatMul"}
    assert all(seconds >= 0 for _, _, seconds in theirs)


def test_profile_takes_an_onnx_path(mlp_path, capsys):
    """``python -m xtvm.bench.profile model.onnx`` profiles that file (a
    quantized model of ``python -m xtvm.bench --int8``), its symbolic batch
    fixed to 1."""
    from xtvm.bench.profile import main

    main([str(mlp_path), "--repeat", "2", "--top", "3"])
    out = capsys.readouterr().out
    assert out.startswith(f"# {mlp_path}, 1 thread(s)")
    assert "| xtvm kernel |" in out and "| onnxruntime kernel |" in out


def test_grouping_puts_blocked_outputs_next_to_onnxruntime_nodes():
    """A blocked ``[N, C/c, H, W, c]`` kernel output and an NCHW one of the
    same tensor sum under one ``[N, C, H, W]`` shape (channels padded to 16)."""
    from xtvm.bench.profile import _grouped

    rows = [("conv", (1, 4, 7, 7, 16), 1.0), ("add", (1, 64, 7, 7), 0.5), ("fc", (1, 1000), 0.25)]
    assert _grouped(rows) == {(1, 64, 7, 7): 1.5, (1, 1000): 0.25}
