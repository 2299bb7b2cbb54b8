"""External codegens against xtvm's own kernels: ``python -m xtvm.bench.byoc``.

For each model (default: ResNet-50 and SqueezeNet, the onnx package's light
models with seeded random weights) it prints one row per codegen: xtvm's
kernels alone, then ``byoc=["dnnl"]`` (oneDNN, on xtvm's plain layouts and,
``dnnl-blocked``, on oneDNN's blocked ones) and ``byoc=["ccompiler"]``
(plain C for elementwise ops and dense; conv2d stays with xtvm): compile
time, latency per thread count (median of ``--repeat`` runs after a
warm-up; xtvm's threads and oneDNN's OpenMP threads both set to it) and the
largest relative difference from onnxruntime. Each row is measured in a
process of its own. Absolute times on a shared machine are noisy (OpenMP's
barriers suffer most from a loaded machine); compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CODEGENS = ("xtvm", "dnnl", "dnnl-blocked", "ccompiler")
"""``dnnl-blocked``: dnnl with ``relay.ext.dnnl.blocked_layouts``."""


def _openmp_setter():
    """libgomp's ``omp_set_num_threads`` (oneDNN's team size is OpenMP's)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("gomp")
    if name is None:
        return lambda n: None
    return ctypes.CDLL(name).omp_set_num_threads


def measure(name: str, codegen: str, repeat: int, threads: list[int]) -> dict:
    """Compile ``name`` with ``codegen`` (``xtvm``: no external codegen) and
    time it at each thread count."""
    import xtvm
    from xtvm.bench.timing import light_model, max_relative_error, median_seconds, ort_session
    from xtvm.frontend import from_onnx

    model, input_name, x = light_model(name)
    start = time.perf_counter()
    mod, params = from_onnx(model)
    byoc = [] if codegen == "xtvm" else [codegen.removesuffix("-blocked")]
    config = {"relay.ext.dnnl.blocked_layouts": codegen == "dnnl-blocked"}
    with xtvm.transform.PassContext(config=config):
        lib = xtvm.build(mod, params=params, byoc=byoc)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    compile_s = time.perf_counter() - start
    omp_set_num_threads = _openmp_setter()
    seconds = {}
    for n in threads:
        xtvm.runtime.set_num_threads(n)  # xtvm's kernels
        omp_set_num_threads(n)  # oneDNN's OpenMP team (this thread runs the graph)
        seconds[n] = median_seconds(gmod.run, repeat)
    (ref,) = ort_session(model, 1).run(None, {input_name: x})
    err = max_relative_error(gmod.get_output(0).numpy(), ref)
    return {"compile_s": compile_s, "seconds": seconds, "rel_err": err}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["resnet50", "squeezenet"])
    parser.add_argument("--codegens", nargs="+", default=list(CODEGENS), choices=CODEGENS)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child[0], args.child[1], args.repeat, args.threads)))
        return
    times = " ".join(f"{f'{n} thr ms':>10}" for n in args.threads)
    print(f"{'model':<12} {'codegen':<12} {'compile s':>9} {times} {'max rel err':>11}")
    for name in args.models:
        for codegen in args.codegens:
            command = [sys.executable, "-m", "xtvm.bench.byoc", "--child", name, codegen,
                       "--repeat", str(args.repeat),
                       "--threads", *map(str, args.threads)]
            env = {**os.environ, "OMP_NUM_THREADS": str(max(args.threads))}
            result = subprocess.run(command, capture_output=True, text=True, env=env)
            if result.returncode != 0:
                reason = (result.stderr.strip().splitlines() or ["failed"])[-1]
                print(f"{name:<12} {codegen:<12} error: {reason}")
                continue
            r = json.loads(result.stdout.strip().splitlines()[-1])
            times = " ".join(f"{r['seconds'][str(n)] * 1e3:>10.1f}" for n in args.threads)
            print(f"{name:<12} {codegen:<12} {r['compile_s']:>9.1f} {times} {r['rel_err']:>11.1e}")


if __name__ == "__main__":
    main()
