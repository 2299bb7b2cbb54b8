"""The VM against the graph executor on the same model: ``python -m xtvm.bench --vm``
(or ``python -m xtvm.bench.vm``).

Each model (the onnx package's light models with seeded random weights) is
compiled for both executors in one process (the second compile reuses the
kernel cache); then, per thread count, ``rounds`` rounds each time the
graph executor's ``run()`` and the VM's ``run()`` (inputs set once, median
of ``repeat`` runs after a warm-up), alternating so that both see the same
machine load. It prints the best round of each, their ratio and the
largest difference of the outputs (which must be 0: the same kernels).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def measure(name: str, threads: list[int], repeat: int, rounds: int) -> list[dict]:
    """Per thread count: the graph executor's and the VM's best median run time."""
    import xtvm
    from xtvm.bench.timing import light_model, median_seconds
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
        graph_s, vm_s = [], []
        for _ in range(rounds):
            graph_s.append(median_seconds(gmod.run, repeat))
            vm_s.append(median_seconds(vm.run, repeat))
        diff = float(np.max(np.abs(vm.get_output(0).numpy() - gmod.get_output(0).numpy())))
        rows.append({"threads": n, "graph": min(graph_s), "vm": min(vm_s), "diff": diff})
    return rows


def main(models: str, threads: list[int], repeat: int, rounds: int = 3) -> None:
    print(f"# VM vs graph executor, {time.strftime('%Y-%m-%d')}, best of {rounds} alternating "
          f"rounds of the median of {repeat} run() calls, random weights (seed 0)")
    print("| model | threads | graph ms | vm ms | vm/graph | max abs diff |")
    print("|---|---|---|---|---|---|")
    for name in models.split(","):
        for r in measure(name, threads, repeat, rounds):
            print(f"| {name} | {r['threads']} | {r['graph'] * 1e3:.2f} | {r['vm'] * 1e3:.2f} | "
                  f"{r['vm'] / r['graph']:.3f} | {r['diff']:.1e} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    a = parser.parse_args()
    main(a.models, [int(t) for t in a.threads.split(",")], a.repeat, a.rounds)
