"""Quantized models, xtvm against onnxruntime at 1 and 2 threads:
``python -m xtvm.bench --int8``.

The models are those ``examples/make_quantized_models.py`` makes (the light
ResNet-50 and SqueezeNet with seeded random weights, quantized by
onnxruntime's quantizer as QDQ, QOperator and dynamic), written once into
``--model-dir``. Each engine runs in a process of its own (as the float
benchmark): xtvm compiles the model and times it per thread count (and,
once per network, its own float model: the int8 speed-up);
onnxruntime times the quantized model with the same intra-op threads
(medians, and each engine's fastest run: the machine may be shared). The
outputs are compared in quantization steps: the largest difference divided
by the scale of the graph's last ``DequantizeLinear`` (for a dequantized
u8 output, 1.0 is one step of the output's grid).
"""

from __future__ import annotations

import json
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


def times(run, repeat: int) -> tuple[float, float, float]:
    """The median and the fastest wall time of ``repeat`` calls of ``run``
    after one warm-up call, and the median of their process CPU time, in
    seconds. On a shared machine the fastest and the CPU time approximate
    an idle machine (CPU time leaves preemption out; it is latency at one
    thread only: at more it sums the threads)."""
    import statistics

    run()
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(wall), min(wall), statistics.median(cpu)


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


def measure_xtvm(path: str, threads: list[int], repeat: int) -> dict:
    """Compile the quantized model at ``path`` and time it per thread count;
    its output (for the comparison)."""
    from xtvm.bench.timing import compile_and_time

    model, input_name, x = load_model(Path(path))
    compile_s, seconds, gmod = compile_and_time(model, input_name, x, threads, repeat, times)
    out = gmod.get_output(0).numpy().tolist()
    return {"compile_s": compile_s, "seconds": seconds, "output": out}


def measure_xtvm_float(name: str, threads: list[int], repeat: int) -> dict:
    """xtvm's time for the float model ``name`` (the same network, light
    model with random weights) per thread count."""
    from xtvm.bench.timing import compile_and_time, light_model

    model, input_name, x = light_model(name)
    _, seconds, _ = compile_and_time(model, input_name, x, threads, repeat, times)
    return {"seconds": seconds}


def measure_ort(path: str, threads: list[int], repeat: int) -> dict:
    """onnxruntime's time for the model at ``path`` per thread count, and its output."""
    from xtvm.bench.timing import ort_session

    model, input_name, x = load_model(Path(path))
    seconds = {}
    for n in threads:
        sess = ort_session(model, n)
        seconds[n] = times(lambda s=sess: s.run(None, {input_name: x}), repeat)
    (out,) = ort_session(model, 1).run(None, {input_name: x})
    return {"seconds": seconds, "output": out.tolist(), "step": output_step(model)}


def _child(args: list[str]) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "xtvm.bench", "--int8", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        lines = proc.stderr.strip().splitlines() or ["(no output)"]
        return {"error": lines[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def child_main(engine: str, path: str, threads: list[int], repeat: int) -> None:
    """One engine on one model, JSON on stdout."""
    measure = {"xtvm": measure_xtvm, "xtvm-float": measure_xtvm_float, "ort": measure_ort}
    print(json.dumps(measure[engine](path, threads, repeat)))


def main(models: str, formats: str, threads: list[int], repeat: int, model_dir: Path) -> None:
    """Print the table (see the module)."""
    import numpy as np

    print(
        f"# int8: xtvm vs onnxruntime, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        f"median of {repeat} runs, random weights (seed 0)"
    )
    header = (
        "model", "format", "threads", "xtvm ms", "ort ms", "xtvm/ort", "fastest xtvm/ort ms",
        "CPU xtvm/ort ms (1 thread)", "CPU xtvm/ort", "xtvm f32 ms", "f32/int8",
        "CPU f32/int8", "max diff (steps)", "compile s",
    )  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    thread_arg = ",".join(map(str, threads))
    for name in models.split(","):
        f = _child(["--model", name, "--engine", "xtvm-float", "--threads", thread_arg,
                    "--repeat", str(repeat)])  # fmt: skip
        for fmt in formats.split(","):
            try:
                path = model_path(model_dir, name, fmt)
            except subprocess.CalledProcessError as err:
                print(f"| {name} | {fmt} | could not make the model: {err} |", flush=True)
                continue
            common = ["--model", str(path), "--threads", thread_arg, "--repeat", str(repeat)]
            x = _child([*common, "--engine", "xtvm"])
            o = _child([*common, "--engine", "ort"])
            if "error" in x or "error" in o:
                print(f"| {name} | {fmt} | failed: {x.get('error') or o.get('error')} |")
                continue
            float_s = f.get("seconds", {})
            diff = float(np.max(np.abs(np.asarray(x["output"]) - np.asarray(o["output"]))))
            steps = f"{diff / o['step']:.1f}" if o.get("step") else f"{diff:.1e} (abs)"
            for n in threads:
                (x_s, x_min, x_cpu), (o_s, o_min, o_cpu) = x["seconds"][str(n)], o["seconds"][str(n)]
                f_s, _, f_cpu = float_s.get(str(n), [None, None, None])
                f_ms, speedup = (f"{f_s * 1e3:.1f}", f"{f_s / x_s:.2f}") if f_s else ("-", "-")
                cpu = (
                    (f"{x_cpu * 1e3:.1f} / {o_cpu * 1e3:.1f}", f"{x_cpu / o_cpu:.2f}",
                     f"{f_cpu / x_cpu:.2f}" if f_cpu else "-")
                    if n == 1 else ("-", "-", "-")
                )  # fmt: skip
                print(
                    f"| {name} | {fmt} | {n} | {x_s * 1e3:.1f} | {o_s * 1e3:.1f} | "
                    f"{x_s / o_s:.2f} | {x_min * 1e3:.1f} / {o_min * 1e3:.1f} | "
                    f"{cpu[0]} | {cpu[1]} | {f_ms} | {speedup} | {cpu[2]} | {steps} | "
                    f"{x['compile_s']:.1f} |",
                    flush=True,
                )
