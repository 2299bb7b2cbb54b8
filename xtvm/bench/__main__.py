"""xtvm against onnxruntime at 1 and 2 threads: ``python -m xtvm.bench``.

For the nine architectures of the onnx package's light models
(:data:`xtvm.bench.models.LIGHT_MODELS`, seeded random weights), each
compiled once in a fresh process, it prints per thread count: xtvm's
latency (median of ``--repeat`` runs after a warm-up), onnxruntime's with
the same number of intra-op threads (each engine in a process of its own,
so that neither's idle threads steal the other's cores, timed in
``--rounds`` alternating rounds, :mod:`xtvm.bench.interleave`: both see the
same stretches of a shared machine's load), their ratio,
the GFLOP/s both reach (2 × the MACs of Conv/Gemm per run), the largest
relative difference of the outputs, and the compile (ONNX file → exported
``.so``, :func:`xtvm.bench.compile.cold_and_warm`): CPU seconds with an
empty kernel cache and with the cache it filled (CPU time, the workers'
included: on a shared machine wall time is the others' load) and the peak
resident memory of the cold compile. Then a
GEMM micro-benchmark: ``1024 × 1024 × 1024`` float32 through xtvm's
``dense`` kernel against NumPy's BLAS, same thread counts. Absolute times on
a shared machine are noisy; the ratios, taken in the same run, are the
measure.

``--targets llvm,c`` adds a row per model and thread count for each target
(``c``: kernels as C source compiled by cc, docs/c-target.md), its ratio to
onnxruntime taken against the same onnxruntime run; ``--models mlp`` is the
example MLP, and ``--models path/to/model.onnx`` any ONNX file (its own
weights, symbolic input dimensions 1).

``--tuned`` tunes ResNet-50 and SqueezeNet (or ``--models``) within
``--budget`` minutes each and times them tuned, hand-written and in
onnxruntime at 1 thread (:mod:`xtvm.bench.tune`, docs/tuning.md);
``--int8`` runs the quantized models instead (:mod:`xtvm.bench.int8`);
``--vm`` times the VM against the graph executor (:mod:`xtvm.bench.vm`,
ResNet-50 by default).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from xtvm.bench.models import LIGHT_MODELS

MODELS = LIGHT_MODELS


def serve_xtvm(name: str, target: str = "llvm") -> None:
    """Child: compile ``name`` for ``target``, check it against onnxruntime
    (one single-threaded reference run), then serve timings
    (:func:`xtvm.bench.interleave.serve`)."""
    import xtvm
    from xtvm.bench.interleave import serve
    from xtvm.bench.timing import (
        compile_model,
        light_model,
        max_relative_error,
        model_flops,
        ort_session,
    )

    model, input_name, x = light_model(name)
    compile_s, gmod = compile_model(model, input_name, x, target)
    gmod.run()
    (ref,) = ort_session(model, 1).run(None, {input_name: x})
    err = max_relative_error(gmod.get_output(0).numpy(), ref)

    def runner(n: int):
        xtvm.runtime.set_num_threads(n)
        return gmod.run

    serve(runner, {"compile_s": compile_s, "flops": model_flops(model), "rel_err": err})


def serve_ort(name: str) -> None:
    """Child: serve onnxruntime's timings of ``name`` (a session with ``n``
    intra-op threads per thread count)."""
    from xtvm.bench.interleave import serve
    from xtvm.bench.timing import light_model, ort_session

    model, input_name, x = light_model(name)

    def runner(n: int):
        sess = ort_session(model, n)
        return lambda: sess.run(None, {input_name: x})

    serve(runner, {})


def measure_gemm(threads: int, repeat: int, size: int = 1024) -> dict:
    """xtvm's dense kernel and NumPy on ``size³`` float32 (run with
    ``OPENBLAS_NUM_THREADS`` already set for NumPy)."""
    import numpy as np
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, TensorType, f32
    from xdsl.ir import Block, Region

    import xtvm
    from xtvm.bench.timing import median_seconds
    from xtvm.dialects import relay
    from xtvm.driver.build_module import bind_params

    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = rng.standard_normal((size, size)).astype(np.float32)
    ty = TensorType(f32, [size, size])
    block = Block(arg_types=[ty, ty])
    block.args[1].name_hint = "b"
    dense = relay.DenseOp(block.args[0], block.args[1])
    block.add_ops([dense, func.ReturnOp(dense.result)])
    module = ModuleOp([func.FuncOp("main", ([ty, ty], [ty]), Region(block))])
    bind_params(module, {"b": b})
    gmod = xtvm.build(module)["default"](xtvm.cpu(0))
    gmod.set_input(0, a)
    xtvm.runtime.set_num_threads(threads)
    xtvm_s = median_seconds(gmod.run, repeat)
    numpy_s = median_seconds(lambda: a @ b.T, repeat)
    err = float(np.max(np.abs(gmod.get_output(0).numpy() - a @ b.T)))
    return {"threads": threads, "xtvm_s": xtvm_s, "numpy_s": numpy_s, "abs_err": err,
            "flops": 2.0 * size**3}


def _ms(seconds: float) -> str:
    """Milliseconds to one decimal, or three below 1 ms (the MLP runs in microseconds)."""
    return f"{seconds * 1e3:.1f}" if seconds >= 1e-3 else f"{seconds * 1e3:.3f}"


def _compile_cells(compiled: dict[str, list[dict]]) -> str:
    """The cold and warm compile CPU seconds and the cold compile's peak MB."""
    if not compiled:
        return "- | - | -"
    cold, warm = compiled["cold"][0], compiled["warm"][0]
    if "error" in cold or "error" in warm:
        return f"failed: {cold.get('error') or warm.get('error')} | - | -"
    return f"{cold['cpu_s']:.1f} | {warm['cpu_s']:.1f} | {max(cold['peak_mb'], warm['peak_mb']):.0f}"


def timed_pair(
    name: str, target: str, threads: list[int], repeat: int, rounds: int
) -> tuple[dict, list[dict[int, float]]]:
    """xtvm (for ``target``) and onnxruntime on ``name``, each in a child
    process, timed in alternating rounds: (xtvm's facts, [xtvm's, ort's]
    median seconds per thread count)."""
    from xtvm.bench.interleave import Engine, alternate

    engines: list[Engine] = []
    try:
        engines.append(Engine(["--model", name, "--engine", "xtvm", "--target", target]))
        engines.append(Engine(["--model", name, "--engine", "ort"]))
        return engines[0].info, alternate(engines, threads, repeat, rounds)
    finally:
        for engine in engines:
            engine.close()


def _child(args: list[str], env: dict[str, str] | None = None) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "xtvm.bench", *args],
        capture_output=True, text=True, check=False, env={**os.environ, **(env or {})},
    )
    if proc.returncode:
        lines = proc.stderr.strip().splitlines() or ["(no output)"]
        return {"error": lines[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument(
        "--rounds", type=int, default=5, help="alternating rounds the repeats are split into"
    )
    parser.add_argument("--no-gemm", action="store_true")
    parser.add_argument(
        "--no-compile", action="store_true", help="skip the cold/warm compile measurements"
    )
    parser.add_argument(
        "--targets", default="llvm", help="xtvm targets, one row each: e.g. llvm,c"
    )
    parser.add_argument(
        "--int8", action="store_true", help="the quantized models instead (xtvm.bench.int8)"
    )
    parser.add_argument("--formats", default="qdq,qop,dynamic", help="with --int8")
    parser.add_argument(
        "--vm", action="store_true", help="the VM against the graph executor (xtvm.bench.vm)"
    )
    parser.add_argument(
        "--tuned", action="store_true", help="tuned vs hand-written vs onnxruntime (xtvm.bench.tune)"
    )
    parser.add_argument("--budget", type=float, default=30.0, help="with --tuned: minutes a model")
    parser.add_argument(
        "--model-dir", help="with --int8: where the quantized models are (made when missing)"
    )
    parser.add_argument("--model", help=argparse.SUPPRESS)  # child: one model, JSON out
    parser.add_argument("--engine", help=argparse.SUPPRESS)  # child: xtvm or ort
    parser.add_argument("--target", default="llvm", help=argparse.SUPPRESS)  # child: xtvm's
    parser.add_argument("--gemm", type=int, help=argparse.SUPPRESS)  # child: one GEMM run
    args = parser.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    if args.tuned:
        from xtvm.bench import tune

        models = args.models if args.models != ",".join(MODELS) else "resnet50,squeezenet"
        tune.main(["--models", models, "--budget", str(args.budget), "--repeat", str(args.repeat)])
        return
    if args.vm:
        from xtvm.bench import vm

        vm.main(args.models if args.models != ",".join(MODELS) else "resnet50", threads, args.repeat)
        return
    if args.int8:
        from xtvm.bench import int8

        if args.model:
            int8.serve_child(args.engine, args.model)
        else:
            models = args.models if args.models != ",".join(MODELS) else ",".join(int8.MODELS)
            model_dir = Path(args.model_dir) if args.model_dir else int8.DEFAULT_DIR
            int8.main(models, args.formats, threads, args.repeat, model_dir, args.rounds)
        return
    if args.model:
        if args.engine == "xtvm":
            serve_xtvm(args.model, args.target)
        else:
            serve_ort(args.model)
        return
    if args.gemm:
        print(json.dumps(measure_gemm(args.gemm, args.repeat)))
        return

    print(f"# xtvm vs onnxruntime, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
          f"median of {args.repeat} runs, random weights (seed 0)")
    header = ("model", "threads", "xtvm ms", "ort ms", "xtvm/ort", "xtvm GFLOP/s",
              "ort GFLOP/s", "max rel diff", "compile cpu s cold", "compile cpu s warm",
              "compile peak MB")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    from xtvm.bench.compile import cold_and_warm

    for name in args.models.split(","):
        compiled = cold_and_warm(name) if not args.no_compile else {}
        for target in args.targets.split(","):
            label = name if target == "llvm" else f"{name} [{target}]"
            try:
                pair = timed_pair(name, target, threads, args.repeat, args.rounds)
            except RuntimeError as err:
                print(f"| {label} | failed: {err} |", flush=True)
                continue
            x, (x_times, o_times) = pair
            figures = _compile_cells(compiled) if target == "llvm" else "- | - | -"
            for n in threads:
                x_s, o_s = x_times[n], o_times[n]
                print(f"| {label} | {n} | {_ms(x_s)} | {_ms(o_s)} | {x_s / o_s:.2f} | "
                      f"{x['flops'] / x_s / 1e9:.0f} | {x['flops'] / o_s / 1e9:.0f} | "
                      f"{x['rel_err']:.1e} | {figures} |", flush=True)
    if args.no_gemm:
        return
    print()
    print("| GEMM 1024³ | threads | xtvm ms | numpy ms | xtvm/numpy | xtvm GFLOP/s | numpy GFLOP/s |")
    print("|---|---|---|---|---|---|---|")
    for n in threads:
        r = _child(["--gemm", str(n), "--repeat", str(args.repeat)],
                   env={"OPENBLAS_NUM_THREADS": str(n), "OMP_NUM_THREADS": str(n)})
        if "error" in r:
            print(f"| dense | {n} | failed: {r['error']} |", flush=True)
            continue
        x_ms, np_ms = r["xtvm_s"] * 1e3, r["numpy_s"] * 1e3
        print(f"| dense | {n} | {x_ms:.1f} | {np_ms:.1f} | {x_ms / np_ms:.2f} | "
              f"{r['flops'] / r['xtvm_s'] / 1e9:.0f} | {r['flops'] / r['numpy_s'] / 1e9:.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
