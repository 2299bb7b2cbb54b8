"""The int8 benchmark: the output's quantization step it measures
differences in, its command line, and a row of a small quantized model
timed in alternating rounds (no timing asserts)."""

import numpy as np
import onnx
from bench_rows import printed_ratio_fits
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
    assert seen["args"] == ("squeezenet", "qop", [1], 10, tmp_path, 5)


def _small_conv_net(model_dir):
    """``small.onnx`` (float: a padded 3×3 conv 8 → 16, relu, a 1×1 conv)
    and ``small_qop.onnx`` (onnxruntime's static QOperator quantization of
    it, as examples/make_quantized_models.py quantizes) in ``model_dir``."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )  # fmt: skip

    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((16, 8, 3, 3)).astype(np.float32), "w1"),
        numpy_helper.from_array(rng.standard_normal((16, 16, 1, 1)).astype(np.float32), "w2"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
        inits,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, model_dir / "small.onnx")

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter(
                [{"x": rng.standard_normal((1, 8, 8, 8)).astype(np.float32)} for _ in range(4)]
            )

        def get_next(self):
            return next(self.items, None)

    quantize_static(
        str(model_dir / "small.onnx"), str(model_dir / "small_qop.onnx"), Reader(),
        quant_format=QuantFormat.QOperator, per_channel=True,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
    )  # fmt: skip


def test_int8_rows_come_from_serving_children_in_alternating_rounds(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))  # the children's own
    _small_conv_net(tmp_path)
    int8.main("small", "qop", [1, 2], repeat=2, model_dir=tmp_path, rounds=2)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| small |")]
    assert len(rows) == 2, rows
    for threads, row in zip((1, 2), rows):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 14, row
        assert cells[1:3] == ["qop", str(threads)]
        xtvm_ms, ort_ms, ratio = float(cells[3]), float(cells[4]), float(cells[5])
        assert xtvm_ms > 0 and ort_ms > 0
        assert printed_ratio_fits(ratio, xtvm_ms, ort_ms), row
        f32_ms, speedup = float(cells[9]), float(cells[10])
        assert printed_ratio_fits(speedup, f32_ms, xtvm_ms), row
        assert float(cells[12]) <= 1.0  # xtvm's output within one step of onnxruntime's
        if threads == 1:
            cpu_x, cpu_o = (float(v) for v in cells[7].split(" / "))
            assert cpu_x > 0 and cpu_o > 0
        else:
            assert cells[7] == cells[8] == cells[11] == "-"  # CPU time at one thread only


def test_a_failing_engine_is_a_failed_row(capsys, tmp_path):
    (tmp_path / "bad_qop.onnx").write_bytes(b"not an onnx model")
    int8.main("bad", "qop", [1], repeat=1, model_dir=tmp_path, rounds=1)
    assert "| bad | qop | failed: " in capsys.readouterr().out
