"""Make the quantized test models: the onnx package's light ResNet-50 and
SqueezeNet (seeded random weights), quantized by onnxruntime's quantizer in
three formats each.

``python examples/make_quantized_models.py OUT_DIR [--models resnet50,squeezenet]
[--compare]`` writes ``OUT_DIR/<model>_<format>.onnx`` (``--compare`` also
compiles each with xtvm and prints the compile time, both latencies and the
largest difference from onnxruntime's output) for the formats

* ``qdq``: ``quantize_static`` with ``QuantFormat.QDQ`` (float ops between
  ``DequantizeLinear`` and ``QuantizeLinear`` pairs);
* ``qop``: ``quantize_static`` with ``QuantFormat.QOperator`` (``QLinearConv``
  and the ``com.microsoft`` ``QLinear*`` ops);
* ``dynamic``: ``quantize_dynamic`` (``DynamicQuantizeLinear`` +
  ``ConvInteger``/``MatMulInteger``, u8 weights).

Static quantization is per-channel, u8 activations and s8 weights,
calibrated on 8 seeded random inputs. Before quantizing, the model is
converted to opset 13, pre-processed by ``quant_pre_process`` (without
symbolic shape inference) and ResNet-50's two-input ``Sum`` nodes become
``Add`` (the quantizer has no rule for ``Sum``); the IR version becomes 7
with the weights initializers only (see :func:`float_model`).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import version_converter

from xtvm.frontend.onnx.testing import light_model_path, randomize_weights

MODELS = ("resnet50", "squeezenet")
FORMATS = ("qdq", "qop", "dynamic")
CALIBRATION_INPUTS = 8


def _input_shape(model: onnx.ModelProto) -> tuple[str, list[int]]:
    """The name and static shape of the model's single data input."""
    inits = {t.name for t in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in inits]
    return inp.name, [d.dim_value for d in inp.type.tensor_type.shape.dim]


def float_model(name: str, seed: int = 0) -> onnx.ModelProto:
    """The light model with random weights, at opset 13, ``Sum`` of two
    inputs renamed ``Add``."""
    model = randomize_weights(onnx.load(light_model_path(name)), seed=seed)
    model = version_converter.convert_version(model, 13)
    for node in model.graph.node:
        if node.op_type == "Sum" and len(node.input) == 2:
            node.op_type = "Add"
    # IR version 3 lists every initializer as a graph input too, which the
    # quantizer's new initializers break (onnx.checker rejects the result):
    # IR 7 keeps the weights as initializers only.
    model.ir_version = max(model.ir_version, 7)
    inits = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    del model.graph.input[:]
    model.graph.input.extend(inputs)
    return model


class _RandomReader:
    """``CalibrationDataReader`` of seeded random inputs."""

    def __init__(self, name: str, shape: list[int], count: int, seed: int):
        rng = np.random.default_rng(seed)
        self._items = iter(
            [{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(count)]
        )

    def get_next(self):
        return next(self._items, None)


def make(name: str, out_dir: Path, formats: tuple[str, ...] = FORMATS) -> dict[str, Path]:
    """Write ``<name>_<format>.onnx`` into ``out_dir``; the paths by format."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quant_pre_process,
        quantize_dynamic,
        quantize_static,
    )

    out_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / f"{name}.onnx"
        onnx.save(float_model(name), raw)
        pre = Path(tmp) / f"{name}_pre.onnx"
        quant_pre_process(str(raw), str(pre), skip_symbolic_shape=True)
        input_name, shape = _input_shape(onnx.load(pre))
        reader_class = type("Reader", (_RandomReader, CalibrationDataReader), {})
        for fmt in formats:
            path = out_dir / f"{name}_{fmt}.onnx"
            if fmt == "dynamic":
                quantize_dynamic(str(pre), str(path), weight_type=QuantType.QUInt8)
            else:
                quantize_static(
                    str(pre),
                    str(path),
                    reader_class(input_name, shape, CALIBRATION_INPUTS, seed=1),
                    quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
                    per_channel=True,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8,
                )
            paths[fmt] = path
    return paths


def compare(path: Path, seed: int = 7, repeat: int = 5) -> dict[str, float]:
    """Compile ``path`` with xtvm and run it and onnxruntime (one thread
    each) on one seeded random input: compile seconds, median latencies (ms)
    and the largest absolute difference of the outputs."""
    import time

    import onnxruntime as ort

    import xtvm
    from xtvm.frontend import from_onnx

    model = onnx.load(path)
    name, shape = _input_shape(model)
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    start = time.perf_counter()
    mod, params = from_onnx(model)
    gmod = xtvm.build(mod, params=params)["default"](xtvm.cpu(0))
    compile_s = time.perf_counter() - start
    gmod.set_input(0, x)

    def median_ms(run) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            run()
            times.append((time.perf_counter() - t) * 1e3)
        return float(np.median(times))

    ours_ms = median_ms(gmod.run)
    ours = gmod.get_output(0).numpy()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    theirs = session.run(None, {name: x})[0]
    ort_ms = median_ms(lambda: session.run(None, {name: x}))
    diff = float(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)).max())
    return {"compile_s": compile_s, "xtvm_ms": ours_ms, "ort_ms": ort_ms, "max_abs_diff": diff}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also compile each model and compare with onnxruntime",
    )
    args = parser.parse_args(argv)
    for name in args.models.split(","):
        for fmt, path in make(name, args.out_dir, tuple(args.formats.split(","))).items():
            print(f"{name} {fmt}: {path}")
            if args.compare:
                print("  " + "  ".join(f"{k} {v:.4g}" for k, v in compare(path).items()))


if __name__ == "__main__":
    main()
