"""The VM against the graph executor on the same model: ``python -m xtvm.bench --vm``
(or ``python -m xtvm.bench.vm``).

Each model (the onnx package's light models with seeded random weights) is
compiled for both executors in one process (the second compile reuses the
kernel cache); then, per thread count, it times ``repeat`` pairs of calls,
the graph executor's ``run()`` then the VM's (inputs set once, after a
warm-up), one call of each in turn so that both see the same machine load,
and prints the median of each, the median of the per-pair ratios, and the
largest difference of the outputs (which must be 0: the same kernels).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def measure(name: str, threads: list[int], repeat: int) -> list[dict]:
    """Per thread count: the graph executor's and the VM's median run time
    and the median ratio of paired calls."""
    import xtvm
    from xtvm.bench.timing import light_model
    from xtvm.frontend import from_onnx
    from xtvm.runtime.vm import VirtualMachine

    model, input_name, x = light_model(name)
    mod, params = from_onnx(model)
    with xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, params=params)
        exe = xtvm.build(mod, params=params, executor="vm")
    gmod = lib["default"](xtvm.cpu(0))
    vm = VirtualMachine(exe, xtvm.cpu(0))
    gmod.set_input(input_name, x)
    vm.set_input(input_name, x)
    rows = []
    for n in threads:
        xtvm.runtime.set_num_threads(n)
        gmod.run()
        vm.run()
        graph_s, vm_s = [], []
        for _ in range(repeat):
            graph_s.append(_seconds(gmod.run))
            vm_s.append(_seconds(vm.run))
        diff = float(np.max(np.abs(vm.get_output(0).numpy() - gmod.get_output(0).numpy())))
        ratio = statistics.median(v / g for v, g in zip(vm_s, graph_s))
        rows.append({"threads": n, "graph": statistics.median(graph_s), "vm": statistics.median(vm_s),
                     "ratio": ratio, "diff": diff})
    return rows


def _seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(models: str, threads: list[int], repeat: int) -> None:
    print(f"# VM vs graph executor, {time.strftime('%Y-%m-%d')}, {repeat} pairs of run() calls "
          "(graph, then VM), medians, random weights (seed 0)")
    print("| model | threads | graph ms | vm ms | vm/graph (median of pairs) | max abs diff |")
    print("|---|---|---|---|---|---|")
    for name in models.split(","):
        for r in measure(name, threads, repeat):
            print(f"| {name} | {r['threads']} | {r['graph'] * 1e3:.2f} | {r['vm'] * 1e3:.2f} | "
                  f"{r['ratio']:.3f} | {r['diff']:.1e} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=30)
    a = parser.parse_args()
    main(a.models, [int(t) for t in a.threads.split(",")], a.repeat)
