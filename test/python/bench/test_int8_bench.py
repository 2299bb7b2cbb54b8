"""The int8 benchmark's pieces that need no model compile: the output's
quantization step it measures differences in, and its command line."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from xtvm.bench import int8
from xtvm.bench.__main__ import main


def _model(scales):
    nodes, inits, prev = [], [], "x"
    for k, scale in enumerate(scales):
        inits += [
            numpy_helper.from_array(np.array(scale, np.float32), f"s{k}"),
            numpy_helper.from_array(np.array(0, np.uint8), f"z{k}"),
        ]
        nodes += [
            helper.make_node("QuantizeLinear", [prev, f"s{k}", f"z{k}"], [f"q{k}"]),
            helper.make_node("DequantizeLinear", [f"q{k}", f"s{k}", f"z{k}"], [f"d{k}"]),
        ]
        prev = f"d{k}"
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [4])],
        inits,
    )
    return helper.make_model(graph)


def test_output_step_is_the_last_dequantize_scale():
    assert int8.output_step(_model([0.5, 0.125])) == 0.125
    assert int8.output_step(_model([])) is None


def test_the_int8_flag_reaches_the_int8_benchmark(monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr(int8, "main", lambda *args: seen.setdefault("args", args))
    main(["--int8", "--models", "squeezenet", "--formats", "qop", "--threads", "1",
          "--model-dir", str(tmp_path)])  # fmt: skip
    assert seen["args"] == ("squeezenet", "qop", [1], 10, tmp_path)


def test_times_gives_wall_median_fastest_and_cpu_median():
    calls = []

    def run():
        calls.append(1)
        sum(range(20000))  # some CPU time

    median, fastest, cpu = int8.times(run, repeat=5)
    assert len(calls) == 6  # one warm-up
    assert 0 < fastest <= median
    assert cpu > 0
