"""The VM against the graph executor on the same model: ``python -m xtvm.bench --vm``
(or ``python -m xtvm.bench.vm``).

Each model (the onnx package's light models with seeded random weights) is
compiled for both executors in one process (the second compile reuses the
kernel cache), and a third time for the VM with a dynamic batch
(:func:`dynamic_batch`: ``?x...``, run at the model's batch); then, per
thread count, it times ``repeat`` rounds of calls, the graph executor's
``run()``, the VM's and the dynamic VM's (inputs set once, after a
warm-up), one call of each in turn so that all see the same machine load,
and prints the medians, the median of the per-round ratios to the graph
executor, and the largest difference of the outputs (0: the same kernels).

``--models transformer`` times instead the 2-layer encoder of
``examples/make_transformer.py`` compiled once with a ``?`` sequence length
(the VM) against onnxruntime at lengths 7, 64 and 128 (``--lengths``): per
thread count and length, rounds of one VM call and one onnxruntime call in
turn, the medians, the median of the per-round ratios and the largest
difference relative to onnxruntime's largest output.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np


def dynamic_batch(model, input_name: str):
    """``model`` (ONNX) with a symbolic batch ``N``: the input's and the
    outputs' first dimension, and each Reshape's constant first dimension
    (the light models' ``[1, 2048]``) made ``-1``."""
    import onnx
    from onnx import numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())
    reshapes = {n.input[1] for n in model.graph.node if n.op_type == "Reshape"}
    for k, init in enumerate(model.graph.initializer):
        if init.name in reshapes:
            shape = numpy_helper.to_array(init).copy()
            shape[0] = -1
            model.graph.initializer[k].CopyFrom(numpy_helper.from_array(shape, init.name))
    data = [v for v in model.graph.input if v.name == input_name]
    for value in [*data, *model.graph.output]:
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    return model


def measure(name: str, threads: list[int], repeat: int) -> list[dict]:
    """Per thread count: the graph executor's and the VM's median run time
    and the median ratio of paired calls."""
    import xtvm
    from xtvm.bench.timing import light_model
    from xtvm.frontend import from_onnx
    from xtvm.runtime.vm import VirtualMachine

    model, input_name, x = light_model(name)
    mod, params = from_onnx(model)
    dyn_mod, dyn_params = from_onnx(
        dynamic_batch(model, input_name), shape={input_name: (None, *x.shape[1:])}
    )
    with xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, params=params)
        exe = xtvm.build(mod, params=params, executor="vm")
        dyn_exe = xtvm.build(dyn_mod, params=dyn_params)
    gmod = lib["default"](xtvm.cpu(0))
    executors = {"graph": gmod, "vm": VirtualMachine(exe, xtvm.cpu(0)),
                 "vm ?": VirtualMachine(dyn_exe, xtvm.cpu(0))}
    for executor in executors.values():
        executor.set_input(input_name, x)
    rows = []
    for n in threads:
        xtvm.runtime.set_num_threads(n)
        times: dict[str, list[float]] = {k: [] for k in executors}
        for _ in range(repeat + 1):  # the first round warms up
            for key, executor in executors.items():
                times[key].append(_seconds(executor.run))
        want = gmod.get_output(0).numpy()
        row = {"threads": n, "diff": max(
            float(np.max(np.abs(executors[k].get_output(0).numpy() - want))) for k in ("vm", "vm ?")
        )}
        for key, seconds in times.items():
            row[key] = statistics.median(seconds[1:])
            row[f"{key} ratio"] = statistics.median(
                s / g for s, g in zip(seconds[1:], times["graph"][1:])
            )
        rows.append(row)
    return rows


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LENGTHS = (7, 64, 128)


def measure_transformer(threads: list[int], repeat: int, lengths=LENGTHS) -> list[dict]:
    """Per thread count and sequence length: the dynamic transformer on the
    VM (compiled once) and onnxruntime, medians and the median ratio of
    paired calls."""
    import xtvm
    from xtvm.bench.timing import max_relative_error, ort_session
    from xtvm.frontend import from_onnx
    from xtvm.runtime.vm import VirtualMachine

    sys.path.insert(0, str(EXAMPLES))
    from make_transformer import make_transformer  # examples/make_transformer.py

    model = make_transformer()
    mod, params = from_onnx(model, shape={"ids": (1, None)})
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, params=params)
    vm = VirtualMachine(exe, xtvm.cpu(0))
    rows = []
    for n in threads:
        xtvm.runtime.set_num_threads(n)
        sess = ort_session(model, n)
        for length in lengths:
            ids = np.random.default_rng(length).integers(0, 1000, (1, length)).astype(np.int64)
            calls = {"vm": partial(vm.invoke, "main", ids), "ort": partial(sess.run, None, {"ids": ids})}
            times: dict[str, list[float]] = {"vm": [], "ort": []}
            for _ in range(repeat + 1):  # the first round warms up
                for key, call in calls.items():
                    times[key].append(_seconds(call))
            out = vm.invoke("main", ids).numpy()
            (ref,) = sess.run(None, {"ids": ids})
            rows.append({
                "threads": n, "length": length, "diff": max_relative_error(out, ref),
                "vm": statistics.median(times["vm"][1:]),
                "ort": statistics.median(times["ort"][1:]),
                "ratio": statistics.median(v / o for v, o in zip(times["vm"][1:], times["ort"][1:])),
            })
    return rows


def main_transformer(threads: list[int], repeat: int) -> None:
    print(f"# the dynamic transformer on the VM vs onnxruntime, {time.strftime('%Y-%m-%d')}, "
          f"{repeat} rounds of invoke / session.run, medians, random weights (seed 0)")
    print("| model | threads | length | vm ms | ort ms | vm/ort | max rel diff |")
    print("|---|---|---|---|---|---|---|")
    for r in measure_transformer(threads, repeat):
        print(f"| transformer | {r['threads']} | {r['length']} | {r['vm'] * 1e3:.3f} | "
              f"{r['ort'] * 1e3:.3f} | {r['ratio']:.2f} | {r['diff']:.1e} |", flush=True)


def _seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(models: str, threads: list[int], repeat: int) -> None:
    names = models.split(",")
    if "transformer" in names:
        main_transformer(threads, repeat)
        names.remove("transformer")
    if not names:
        return
    print(f"# VM vs graph executor, {time.strftime('%Y-%m-%d')}, {repeat} rounds of run() calls "
          "(graph, VM, VM with a ? batch run at the model's batch), medians, random weights (seed 0)")
    print("| model | threads | graph ms | vm ms | vm/graph | vm ? ms | vm ?/graph | max abs diff |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        for r in measure(name, threads, repeat):
            print(f"| {name} | {r['threads']} | {r['graph'] * 1e3:.2f} | {r['vm'] * 1e3:.2f} | "
                  f"{r['vm ratio']:.3f} | {r['vm ?'] * 1e3:.2f} | {r['vm ? ratio']:.3f} | "
                  f"{r['diff']:.1e} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=30)
    a = parser.parse_args()
    main(a.models, [int(t) for t in a.threads.split(",")], a.repeat)
