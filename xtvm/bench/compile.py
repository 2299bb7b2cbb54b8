"""Compile time, ONNX → exported ``.so``: ``python -m xtvm.bench.compile``.

For each light model (seeded random weights, written once to an ``.onnx``
file by this process) it runs, each in a fresh process, ``from_onnx(path)``
+ ``xtvm.build`` + ``export_library`` as ``xtvm-compile`` does them (the
``ModelProto`` is dropped once imported, the imported module and its
parameters once built) with an empty kernel
cache (cold), then again with the cache the first run filled (warm),
``--repeat`` times each, and prints the median wall time, the median CPU
time (user + system, the compile's worker processes included: on a shared
machine the wall time is mostly the other processes' load), the peak memory
of the process and its workers together (:class:`TreeMemory`: summed
proportional set sizes; the parameters the caller holds included), the
largest resident size of any one of them (``max rss``: it counts the pages
a forked worker shares with the parent again) and the load average. The
cache is a temporary ``XTVM_CACHE_DIR``, removed after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from xtvm.bench import tree_memory

MODELS = ("resnet50", "vgg19", "squeezenet", "bvlc_alexnet")


def measure(model_path: str, path: str) -> dict:
    """Compile the ONNX file ``model_path`` to ``path`` once in this process
    (the child's job), as ``xtvm-compile`` does: load and import, build,
    export."""
    import xtvm
    from xtvm.frontend import from_onnx

    with TreeMemory() as tree:
        t0, c0 = time.perf_counter(), os.times()
        mod, params = from_onnx(model_path)  # as xtvm-compile: the ModelProto goes once imported
        lib = xtvm.build(mod, params=params)
        del mod, params  # as xtvm-compile: the imported weights go before the link
        lib.export_library(path)
        t1 = time.perf_counter()
    c1 = os.times()
    # user, system, children's user, children's system; not the sampler's
    cpu = sum(c1[:4]) - sum(c0[:4]) - tree.cpu_s
    rss = max(own_peak_kb(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {"wall_s": t1 - t0, "cpu_s": cpu, "peak_mb": tree.peak_kb / 1024, "rss_mb": rss / 1024}


class TreeMemory:
    """The peak memory of this process and its descendants together
    (summed proportional set sizes, see :mod:`xtvm.bench.tree_memory`),
    sampled every ``interval`` seconds by a process of its own; ``cpu_s`` is
    that sampler's CPU time, which the caller's children's times include."""

    def __init__(self, interval: float = 0.05):
        self.interval, self.peak_kb, self.cpu_s = interval, 0, 0.0

    def __enter__(self) -> TreeMemory:
        self._proc = subprocess.Popen(
            [sys.executable, tree_memory.__file__, str(os.getpid()), str(self.interval)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self._proc.stdout.readline()  # "ready": the first sample is taken
        return self

    def __exit__(self, *exc: object) -> None:
        out, _ = self._proc.communicate(input="")
        peak, cpu = out.split()
        self.peak_kb, self.cpu_s = int(peak), float(cpu)


def own_peak_kb() -> int:
    """This process's peak resident memory in KiB since it started its
    program (``VmHWM``): ``ru_maxrss`` keeps the high-water mark of the
    process image before ``exec``, i.e. the benchmark parent's size when it
    forked this child (GBs after it randomized VGG-19's weights)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _stem(name: str) -> str:
    """A light model's name, or an ``.onnx`` path's file name without the suffix."""
    return os.path.basename(name).removesuffix(".onnx")


def save_light_model(name: str, directory: str) -> str:
    """``name`` with its seeded random weights as an ``.onnx`` file in
    ``directory`` (randomizing is not compiling: it happens here, once)."""
    import onnx

    from xtvm.bench.timing import light_model

    model, _, _ = light_model(name)
    path = os.path.join(directory, f"{_stem(name)}.onnx")
    onnx.save(model, path)
    return path


def cold_and_warm(name: str, repeat: int = 1) -> dict[str, list[dict]]:
    """``repeat`` cold and warm compiles of ``name`` (each in a fresh process,
    each cold one with a new empty cache): ``{"cold": [...], "warm": [...]}``."""
    with tempfile.TemporaryDirectory(prefix="xtvm-bench-compile-") as tmp:
        model_path = save_light_model(name, tmp)
        path = os.path.join(tmp, f"{_stem(name)}.so")
        rows: dict[str, list[dict]] = {"cold": [], "warm": []}
        for i in range(repeat):
            cache = os.path.join(tmp, f"cache{i}")
            rows["cold"].append(_child(model_path, cache, path))
            rows["warm"].append(_child(model_path, cache, path))
    return rows


def _child(model_path: str, cache: str, path: str) -> dict:
    env = {**os.environ, "XTVM_CACHE_DIR": cache}
    # As an installed xtvm runs: Python's bytecode cache on. With
    # PYTHONDONTWRITEBYTECODE set, every child compiled the modules the build
    # imports lazily from source inside the clock (~0.3 s of a warm ResNet-50).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "xtvm.bench.compile", "--one", model_path, "--out", path],
        capture_output=True, text=True, env=env,
    )
    if proc.returncode:
        lines = proc.stderr.strip().splitlines() or ["(no output)"]
        return {"error": lines[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet50,vgg19")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child: one compile, JSON out
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.out)))
        return
    print(f"# xtvm compile time, ONNX → exported .so, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{os.cpu_count()} cores, median of {args.repeat}, load average at start "
          f"{os.getloadavg()[0]:.1f}")
    header = ("model", "cache", "wall s", "cpu s", "peak MB", "max rss MB", "load")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in args.models.split(","):
        for kind, runs in cold_and_warm(name, args.repeat).items():
            failed = [r["error"] for r in runs if "error" in r]
            if failed:
                print(f"| {name} | {kind} | failed: {failed[0]} |", flush=True)
                continue
            print(f"| {name} | {kind} | {_median(runs, 'wall_s'):.1f} | "
                  f"{_median(runs, 'cpu_s'):.1f} | {max(r['peak_mb'] for r in runs):.0f} | "
                  f"{max(r['rss_mb'] for r in runs):.0f} | "
                  f"{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
