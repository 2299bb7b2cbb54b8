"""Per-kernel profile of a model against onnxruntime's per-node profile:
``python -m xtvm.bench.profile squeezenet [--threads 1] [--repeat 20] [--top 25]``
(or the path of an ``.onnx`` file, e.g. a quantized model of
``python -m xtvm.bench --int8``).

Which kernels make a model slower than onnxruntime: each graph node of
xtvm's executor is timed on its own (the nodes run in graph order, so every
kernel sees the inputs and caches of a real run) and onnxruntime's
per-node kernel times come from its profiler
(``SessionOptions.enable_profiling``). Both report the *minimum* over
``--repeat`` runs, and at one thread xtvm's times are the calling thread's
CPU time (``time.thread_time``): on a shared machine the minimum and the
CPU time approximate what an idle machine gives, where wall-clock medians
mostly measure the other processes. ``--group`` sums kernels of the same
output shape (xtvm's fused kernels against onnxruntime's nodes).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from xtvm.bench.timing import light_model


def kernel_times(gmod, repeat: int, clock: Callable[[], float]) -> list[tuple[str, tuple, float]]:
    """``(kernel, output shape, minimum seconds)`` of each kernel call of a
    graph executor, in graph order (its private node list: the same calls
    ``run`` makes)."""
    graph = gmod._graph
    nodes = [node for node in graph.nodes if node.op == "tvm_op"]
    calls = [(node, gmod._make_op(node)) for node in nodes]
    calls = [(node, call) for node, call in calls if call is not None]
    gmod.run()
    best = [float("inf")] * len(calls)
    for _ in range(repeat):
        for k, (_, call) in enumerate(calls):
            start = clock()
            call()
            best[k] = min(best[k], clock() - start)
    return [
        (node.func_name, tuple(graph.shapes[node.outputs[0]]), seconds)
        for (node, _), seconds in zip(calls, best)
    ]


def ort_node_times(model, input_name: str, x, threads: int, repeat: int) -> list[tuple[str, tuple, float]]:
    """``(op type, output shape, minimum seconds)`` of each onnxruntime node
    kernel, from its profiler's trace of ``repeat`` runs."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.enable_profiling = True
    with tempfile.TemporaryDirectory() as tmp:
        opts.profile_file_prefix = os.path.join(tmp, "ort")
        sess = ort.InferenceSession(
            model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
        )
        for _ in range(repeat + 1):
            sess.run(None, {input_name: x})
        with open(sess.end_profiling()) as f:
            events = json.load(f)
    best: dict[tuple[str, str], tuple[tuple, float]] = {}
    for event in events:
        if event.get("cat") != "Node" or not event["name"].endswith("_kernel_time"):
            continue
        args = event["args"]
        shapes = args.get("output_type_shape") or [{}]
        shape = tuple(next(iter(shapes[0].values()), ()))
        key = (event["name"], args["op_name"])
        seconds = event["dur"] * 1e-6
        if key not in best or seconds < best[key][1]:
            best[key] = (shape, seconds)
    return [(op, shape, seconds) for (_, op), (shape, seconds) in best.items()]


def _grouped(rows: list[tuple[str, tuple, float]]) -> dict[tuple, float]:
    """Seconds per output shape with the channel count padded to 16 (onnxruntime's
    NCHWc nodes report padded channels); a blocked ``[N, C/c, H, W, c]``
    output (``relay-convert-layout``'s) counts as ``[N, C, H, W]``."""
    total: dict[tuple, float] = collections.defaultdict(float)
    for _, shape, seconds in rows:
        if len(shape) == 5:
            n, blocks, h, w, c = shape
            shape = (n, blocks * c, h, w)
        if len(shape) == 4:
            shape = (shape[0], -(-shape[1] // 16) * 16, *shape[2:])
        total[shape] += seconds
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "model", help="a light model name (xtvm.bench.models.LIGHT_MODELS) or an .onnx file"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--group", action="store_true", help="sum both sides by output shape")
    args = parser.parse_args(argv)

    import xtvm
    from xtvm.frontend import from_onnx

    if args.model.endswith(".onnx"):
        from xtvm.bench.int8 import load_model

        model, input_name, x = load_model(Path(args.model))
    else:
        model, input_name, x = light_model(args.model)
    mod, params = from_onnx(model)
    gmod = xtvm.build(mod, params=params)["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    xtvm.runtime.set_num_threads(args.threads)
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    ours = kernel_times(gmod, args.repeat, clock)
    theirs = ort_node_times(model, input_name, x, args.threads, args.repeat)
    total_x, total_o = sum(r[2] for r in ours), sum(r[2] for r in theirs)
    what = "thread CPU" if args.threads == 1 else "wall"
    print(f"# {args.model}, {args.threads} thread(s), minimum of {args.repeat} runs ({what} time)")
    print(f"# xtvm: {len(ours)} kernel calls, {total_x * 1e3:.2f} ms; onnxruntime: "
          f"{len(theirs)} nodes, {total_o * 1e3:.2f} ms; ratio {total_x / total_o:.2f}")
    if args.group:
        mine, other = _grouped(ours), _grouped(theirs)
        print("| output shape | xtvm ms | onnxruntime ms | ratio |\n|---|---|---|---|")
        for shape in sorted(mine, key=lambda s: -mine[s])[: args.top]:
            o = other.get(shape, 0.0)
            ratio = f"{mine[shape] / o:.2f}" if o else "-"
            print(f"| {list(shape)} | {mine[shape] * 1e3:.3f} | {o * 1e3:.3f} | {ratio} |")
        return
    for title, rows in (("xtvm", ours), ("onnxruntime", theirs)):
        print(f"\n| {title} kernel | output shape | ms |\n|---|---|---|")
        for name, shape, seconds in sorted(rows, key=lambda r: -r[2])[: args.top]:
            print(f"| {name} | {list(shape)} | {seconds * 1e3:.3f} |")


if __name__ == "__main__":
    main()
