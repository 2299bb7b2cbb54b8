"""The real-architecture models of the onnx package, compiled by xtvm and
compared with onnxruntime: ``python -m xtvm.bench.models [--models resnet50,...]``.

For each light model, with seeded random weights (the shipped ones are all
0.02), it prints compile time, peak compile memory, the planned arena of the
intermediate tensors against the sum of their sizes (and the same for the
whole arena, weights and inputs included), the largest relative error against
onnxruntime on one input, and both latencies (median of ``--repeat`` runs
after a warm-up, same thread count). Each model compiles in a fresh process,
so peak memory is that compile's alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

LIGHT_MODELS = (
    "resnet50",
    "squeezenet",
    "vgg19",
    "bvlc_alexnet",
    "densenet121",
    "inception_v1",
    "inception_v2",
    "shufflenet",
    "zfnet512",
)
"""The nine real architectures of the onnx package's light models
(``onnx/backend/test/data/light``), which the benchmarks run with seeded
random weights."""


def memory_report(module) -> dict[str, int]:
    """Bytes of the plan ``memory-plan`` wrote on ``@main`` (intermediates:
    planned arena and one buffer each) and of everything the model holds
    (plus its inputs and weights), read off the IR of the ``memory`` stage."""
    from xdsl.dialects import func

    from xtvm.dialects.memory import tensor_nbytes
    from xtvm.dialects.relay import ConstOp

    fn = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    planned = fn.attributes["memory.planned_bytes"].value.data
    naive = fn.attributes["memory.naive_bytes"].value.data
    held = [a.type for a in fn.args] + [o.result.type for o in fn.walk() if isinstance(o, ConstOp)]
    extra = sum(-(-tensor_nbytes(t) // 64) * 64 for t in held)
    return {
        "inter_arena_mb": planned,
        "inter_mb": naive,
        "arena_mb": planned + extra,
        "naive_mb": naive + extra,
    }


def measure(name: str, repeat: int, threads: int) -> dict:
    """Compile and time one model (run in its own process)."""
    import xtvm
    from xtvm import codegen
    from xtvm.bench.compile import own_peak_kb
    from xtvm.bench.timing import light_model, max_relative_error, median_seconds, ort_session
    from xtvm.driver.build_module import lower
    from xtvm.frontend import from_onnx

    model, input_name, x = light_model(name)
    start = time.perf_counter()
    mod, params = from_onnx(model)
    planned = lower(mod, params, stage="memory")
    memory = memory_report(planned)
    lib = codegen.jit(lower(planned))
    compile_s = time.perf_counter() - start
    peak_mb = own_peak_kb() / 1024

    sess = ort_session(model, threads)
    xtvm.runtime.set_num_threads(threads)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)

    xtvm_s = median_seconds(gmod.run, repeat)
    ort_s = median_seconds(lambda: sess.run(None, {input_name: x}), repeat)
    (ref,) = sess.run(None, {input_name: x})
    rel = max_relative_error(gmod.get_output(0).numpy(), ref)
    return {
        "model": name,
        "compile_s": compile_s,
        "peak_mb": peak_mb,
        **{key: value / 2**20 for key, value in memory.items()},
        "max_rel_err": rel,
        "xtvm_ms": xtvm_s * 1e3,
        "ort_ms": ort_s * 1e3,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="squeezenet,resnet50,bvlc_alexnet,vgg19")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: one model, JSON out
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.repeat, args.threads)))
        return
    print(f"# xtvm vs onnxruntime, {args.threads} thread(s), {time.strftime('%Y-%m-%d')}, "
          f"{os.cpu_count()} cores, random weights (seed 0)")
    header = ("model", "compile s", "peak MB", "intermediates planned MB",
              "intermediates sum MB", "arena MB (all)", "naive MB (all)", "max rel err",
              "xtvm ms", "ort ms", "xtvm/ort")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in args.models.split(","):
        child = subprocess.run(
            [sys.executable, "-m", "xtvm.bench.models", "--one", name,
             "--repeat", str(args.repeat), "--threads", str(args.threads)],
            capture_output=True, text=True,
        )
        if child.returncode:
            print(f"| {name} | failed: {child.stderr.strip().splitlines()[-1]} |")
            continue
        r = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"| {name} | {r['compile_s']:.1f} | {r['peak_mb']:.0f} | "
              f"{r['inter_arena_mb']:.1f} | {r['inter_mb']:.1f} | {r['arena_mb']:.1f} | "
              f"{r['naive_mb']:.1f} | {r['max_rel_err']:.1e} | {r['xtvm_ms']:.1f} | "
              f"{r['ort_ms']:.1f} | {r['xtvm_ms'] / r['ort_ms']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
