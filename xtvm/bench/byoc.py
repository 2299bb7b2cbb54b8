"""External codegens against xtvm's own kernels: ``python -m xtvm.bench.byoc``.

For each model (default: ResNet-50 and SqueezeNet, the onnx package's light
models with seeded random weights) it prints one row per codegen: xtvm's
kernels alone, then ``byoc=["dnnl"]`` (oneDNN) and ``byoc=["ccompiler"]``
(plain C for elementwise ops and dense; conv2d stays with xtvm): compile
time, latency (median of ``--repeat`` runs after a warm-up, at the
default thread count) and the largest relative difference from
onnxruntime. Each row is measured in a process of its own. Absolute times
on a shared machine are noisy; compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CODEGENS = ("xtvm", "dnnl", "ccompiler")


def measure(name: str, codegen: str, repeat: int) -> dict:
    """Compile ``name`` with ``codegen`` (``xtvm``: no external codegen) and time it."""
    import xtvm
    from xtvm.bench.timing import light_model, max_relative_error, median_seconds, ort_session
    from xtvm.frontend import from_onnx

    model, input_name, x = light_model(name)
    start = time.perf_counter()
    mod, params = from_onnx(model)
    byoc = [] if codegen == "xtvm" else [codegen]
    lib = xtvm.build(mod, params=params, byoc=byoc)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    compile_s = time.perf_counter() - start
    seconds = median_seconds(gmod.run, repeat)
    (ref,) = ort_session(model, 1).run(None, {input_name: x})
    err = max_relative_error(gmod.get_output(0).numpy(), ref)
    return {"compile_s": compile_s, "seconds": seconds, "rel_err": err}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["resnet50", "squeezenet"])
    parser.add_argument("--codegens", nargs="+", default=list(CODEGENS), choices=CODEGENS)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child[0], args.child[1], args.repeat)))
        return
    print(f"{'model':<12} {'codegen':<10} {'compile s':>9} {'latency ms':>10} {'max rel err':>11}")
    for name in args.models:
        for codegen in args.codegens:
            command = [sys.executable, "-m", "xtvm.bench.byoc", "--child", name, codegen,
                       "--repeat", str(args.repeat)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                reason = (result.stderr.strip().splitlines() or ["failed"])[-1]
                print(f"{name:<12} {codegen:<10} error: {reason}")
                continue
            r = json.loads(result.stdout.strip().splitlines()[-1])
            print(f"{name:<12} {codegen:<10} {r['compile_s']:>9.1f} {r['seconds'] * 1e3:>10.2f} "
                  f"{r['rel_err']:>11.1e}")


if __name__ == "__main__":
    main()
