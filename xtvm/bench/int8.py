"""Quantized models, xtvm against onnxruntime at 1 and 2 threads:
``python -m xtvm.bench --int8``.

The models are those ``examples/make_quantized_models.py`` makes (the light
ResNet-50 and SqueezeNet with seeded random weights, quantized by
onnxruntime's quantizer as QDQ, QOperator and dynamic), written once into
``--model-dir``. Each engine runs in a long-lived process of its own,
timed in ``--rounds`` alternating rounds as in the float benchmark
(:mod:`xtvm.bench.interleave`: both engines see the same stretches of a
shared machine's load): xtvm on the quantized model, onnxruntime on it with
the same intra-op threads, and, with a network's first format, xtvm on its
float model (the int8 speed-up). Per engine: the median and the fastest
wall time, and at one thread the median process CPU time (preemption left
out). The outputs are compared in quantization steps: the largest
difference divided by the scale of the graph's last ``DequantizeLinear``
(for a dequantized u8 output, 1.0 is one step of the output's grid).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

MODELS = ("resnet50", "squeezenet")
FORMATS = ("qdq", "qop", "dynamic")
DEFAULT_DIR = Path(os.environ.get("XTVM_QUANTIZED_MODELS", "build/quantized-models"))


def model_path(model_dir: Path, name: str, fmt: str) -> Path:
    """The quantized model's file, made by ``examples/make_quantized_models.py``
    when it is missing."""
    path = model_dir / f"{name}_{fmt}.onnx"
    if not path.exists():
        script = Path(__file__).resolve().parents[2] / "examples" / "make_quantized_models.py"
        subprocess.run(
            [sys.executable, str(script), str(model_dir), "--models", name],
            check=True,
            capture_output=True,
        )
    return path


def load_model(path: Path):
    """The model, its data input's name and a seeded random input for it (a
    symbolic dimension, e.g. the batch, is fixed to 1)."""
    import numpy as np
    import onnx

    model = onnx.load(str(path))
    weights = {i.name for i in model.graph.initializer}
    (data,) = [i for i in model.graph.input if i.name not in weights]
    for dim in data.type.tensor_type.shape.dim:
        if not dim.dim_value:
            dim.dim_value = 1
    shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    return model, data.name, x


def output_step(model) -> float | None:
    """The scale of the last ``DequantizeLinear`` of the graph (the output's
    quantization step when it produces the output), or None."""
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for node in reversed(model.graph.node):
        if node.op_type == "DequantizeLinear" and node.input[1] in inits:
            return float(inits[node.input[1]].reshape(-1).max())
    return None


def serve_child(engine: str, model: str) -> None:
    """A child serving timings (:func:`xtvm.bench.interleave.serve`) of one
    engine on one model: ``xtvm`` (compiles the quantized model at path
    ``model``; announces its compile time and output), ``ort`` (the same
    model in onnxruntime; its output and the output's quantization step)
    or ``xtvm-float`` (xtvm on the float model: a light model name or an
    ``.onnx`` path)."""
    import xtvm
    from xtvm.bench.interleave import serve
    from xtvm.bench.timing import compile_model, light_model, ort_session

    if engine == "ort":
        onnx_model, input_name, x = load_model(Path(model))
        (out,) = ort_session(onnx_model, 1).run(None, {input_name: x})

        def ort_runner(n: int):
            sess = ort_session(onnx_model, n)
            return lambda: sess.run(None, {input_name: x})

        serve(ort_runner, {"output": out.tolist(), "step": output_step(onnx_model)})
        return
    if engine not in ("xtvm", "xtvm-float"):
        raise ValueError(f"--int8 --engine {engine!r}: expected xtvm, xtvm-float or ort")
    if engine == "xtvm":
        onnx_model, input_name, x = load_model(Path(model))
    else:
        onnx_model, input_name, x = light_model(model)
    compile_s, gmod = compile_model(onnx_model, input_name, x)
    gmod.run()

    def runner(n: int):
        xtvm.runtime.set_num_threads(n)
        return gmod.run

    serve(runner, {"compile_s": compile_s, "output": gmod.get_output(0).numpy().tolist()})


def float_source(model_dir: Path, name: str) -> str:
    """The float model the int8 speed-up is measured against:
    ``<model_dir>/<name>.onnx`` when there is one (a model of one's own),
    else the light model ``name`` with the weights the quantized models
    were made from (seed 0)."""
    path = model_dir / f"{name}.onnx"
    return str(path) if path.exists() else name


def _timed(
    engines: list, threads: list[int], repeat: int, rounds: int
) -> list[dict[int, tuple[float, float, float | None]]]:
    """The engines timed in alternating rounds: per engine and thread count
    (median wall, fastest wall, median process CPU seconds), the CPU time
    at one thread only (at more it sums the threads)."""
    import statistics

    from xtvm.bench.interleave import alternate

    samples = alternate(engines, threads, repeat, rounds, summarize=lambda s: s)
    return [
        {
            n: (statistics.median(s[n]), min(s[n]),
                statistics.median(e.cpu[n]) if n == 1 and e.cpu.get(n) else None)
            for n in threads
        }
        for e, s in zip(engines, samples)
    ]  # fmt: skip


def main(
    models: str, formats: str, threads: list[int], repeat: int, model_dir: Path, rounds: int = 5
) -> None:
    """Print the table (see the module)."""
    import numpy as np

    from xtvm.bench.__main__ import _ms
    from xtvm.bench.interleave import Engine

    print(
        f"# int8: xtvm vs onnxruntime, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        f"median of {repeat} runs in {rounds} alternating rounds, random weights (seed 0)"
    )
    header = (
        "model", "format", "threads", "xtvm ms", "ort ms", "xtvm/ort", "fastest xtvm/ort ms",
        "CPU xtvm/ort ms (1 thread)", "CPU xtvm/ort", "xtvm f32 ms", "f32/int8",
        "CPU f32/int8", "max diff (steps)", "compile s",
    )  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in models.split(","):
        float_times: dict[int, tuple] = {}  # the float model, timed with the first format
        for fmt in formats.split(","):
            try:
                path = model_path(model_dir, name, fmt)
            except subprocess.CalledProcessError as err:
                print(f"| {name} | {fmt} | could not make the model: {err} |", flush=True)
                continue
            engines: list[Engine] = []
            try:
                for engine in ("xtvm", "ort"):
                    engines.append(Engine(["--int8", "--model", str(path), "--engine", engine]))
                if not float_times:
                    source = float_source(model_dir, name)
                    engines.append(Engine(["--int8", "--model", source, "--engine", "xtvm-float"]))
                timed = _timed(engines, threads, repeat, rounds)
            except RuntimeError as err:
                print(f"| {name} | {fmt} | failed: {err} |", flush=True)
                continue
            finally:
                for engine in engines:
                    engine.close()
            x, o = engines[0].info, engines[1].info
            x_times, o_times = timed[0], timed[1]
            float_times = float_times or timed[2]
            diff = float(np.max(np.abs(np.asarray(x["output"]) - np.asarray(o["output"]))))
            steps = f"{diff / o['step']:.1f}" if o.get("step") else f"{diff:.1e} (abs)"
            for n in threads:
                (x_s, x_min, x_cpu), (o_s, o_min, o_cpu) = x_times[n], o_times[n]
                f_s, _, f_cpu = float_times[n]
                cpu = (
                    (f"{_ms(x_cpu)} / {_ms(o_cpu)}", f"{x_cpu / o_cpu:.2f}",
                     f"{f_cpu / x_cpu:.2f}")
                    if x_cpu and o_cpu and f_cpu else ("-", "-", "-")
                )  # fmt: skip
                print(
                    f"| {name} | {fmt} | {n} | {_ms(x_s)} | {_ms(o_s)} | "
                    f"{x_s / o_s:.2f} | {_ms(x_min)} / {_ms(o_min)} | "
                    f"{cpu[0]} | {cpu[1]} | {_ms(f_s)} | {f_s / x_s:.2f} | {cpu[2]} | "
                    f"{steps} | {x['compile_s']:.1f} |",
                    flush=True,
                )
