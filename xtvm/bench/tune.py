"""Tuning benchmark: ``python -m xtvm.bench.tune [--model resnet50] [--first-conv]``.

Extracts the tasks of a light model (the onnx package's, seeded random
weights), tunes them with AutoTVM (``--trials`` per task, ``--tasks`` the
heaviest N, or only the first convolution, the 3-channel one, with
``--first-conv``), appending to ``--records``; then re-measures each tuned
task's hand-written and best configs side by side (interleaved, in one
runner) and prints their GFLOP/s. With ``--model-latency`` it also builds
the whole model with and without the records and times both at 1 thread
(median of ``--repeat`` runs each, alternating, on the calling thread's CPU
time); ``--measure-only`` skips the tuning. Absolute numbers on a shared machine are
noisy; the ratios, measured in one run, are the measure.
"""

from __future__ import annotations

import argparse
import math
import re
import time


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m xtvm.bench.tune",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--records", default="tune_records.json")
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument(
        "--tasks", type=int, default=None, help="tune the N heaviest tasks (default: all)"
    )
    parser.add_argument(
        "--first-conv", action="store_true", help="tune only the 3-input-channel convolution"
    )
    parser.add_argument(
        "--tuner", default="xgb", help="the AutoTVM tuner, or 'ansor' for the auto_scheduler"
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--model-latency", action="store_true")
    parser.add_argument(
        "--measure-only", action="store_true", help="no tuning: time the model with --records"
    )
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    from xtvm.autotvm.driver import format_table, tune_tasks
    from xtvm.bench.timing import light_model
    from xtvm.frontend import from_onnx
    from xtvm.tuning.measure import LocalBuilder, LocalRunner, MeasureInput
    from xtvm.tuning.record import best_records, load_records
    from xtvm.tuning.task import extract_tasks

    start = time.perf_counter()
    model, input_name, x = light_model(args.model)
    mod, params = from_onnx(model)
    if args.measure_only:
        model_latency(mod, params, input_name, x, args.records, args.repeat, args.model)
        return
    tasks = extract_tasks(mod, params)
    print(
        f"{args.model}: {len(tasks)} tunable tasks ({time.perf_counter() - start:.1f} s to extract)"
    )
    if args.first_conv:
        tasks = [
            t for t in tasks if "conv2d" in t.name and re.search(r"%p0: tensor<\d+x3x", t.func)
        ][:1]
    elif args.tasks:
        tasks = tasks[: args.tasks]
    if args.tuner == "ansor":
        from xtvm.auto_scheduler.search import tune_tasks as ansor_tune

        tuned = ansor_tune(
            tasks, args.records, trials=args.trials * len(tasks), jobs=args.jobs, resume=args.resume
        )
    else:
        tuned = tune_tasks(
            tasks,
            args.records,
            trials=args.trials,
            tuner=args.tuner,
            jobs=args.jobs,
            resume=args.resume,
        )
    print(format_table(tuned))
    print(f"tuning time: {time.perf_counter() - start:.0f} s")

    # side by side: hand-written vs best, interleaved in one runner
    best = best_records(load_records(args.records))
    from xtvm.autotvm.dispatch import config_from_json, target_key

    builder, runner = LocalBuilder(jobs=args.jobs), LocalRunner(repeat=5, min_repeat_ms=100)
    print("\ntask  hand-written GFLOP/s  tuned GFLOP/s  speedup")
    try:
        for task in tasks:
            record = best.get((target_key(task.target), task.key))
            if record is None:
                continue
            space = task.config_space
            pair = [
                MeasureInput(task, space.get(0)),
                MeasureInput(task, config_from_json(record.config)),
            ]
            builds = builder.build(pair)
            times = {0: [], 1: []}
            for _ in range(3):
                for k in (0, 1):
                    (r,) = runner.run([pair[k]], [builds[k]])
                    times[k].append(r.cost)
            hand, tuned_s = min(times[0]), min(times[1])
            gf = [task.flop / s / 1e9 if math.isfinite(s) else 0.0 for s in (hand, tuned_s)]
            print(f"{task.name}  {gf[0]:.1f}  {gf[1]:.1f}  {hand / tuned_s:.2f}x")
    finally:
        builder.close()
        runner.close()

    if args.model_latency:
        model_latency(mod, params, input_name, x, args.records, args.repeat, args.model)


def model_latency(mod, params, input_name, x, records, repeat: int, name: str) -> None:
    """Build the model with and without the records and time both at 1
    thread, alternating, on the CPU time of the calling thread (one
    thread runs in the caller; the wall clock of a loaded machine mostly
    measures the load): the median of ``repeat`` runs each."""
    import statistics

    import xtvm
    from xtvm.tuning.record import apply_history_best

    xtvm.runtime.set_num_threads(1)
    runs = {}
    context = apply_history_best(records)
    with xtvm.transform.PassContext(opt_level=3):  # the level extract_tasks fused at
        with context:
            tuned = xtvm.build(mod, params=params)
        hand = xtvm.build(mod, params=params)
    for label, lib in (("hand-written", hand), ("tuned", tuned)):
        gmod = lib["default"](xtvm.cpu(0))
        gmod.set_input(input_name, x)
        gmod.run()
        runs[label] = gmod
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(repeat):
        for label, gmod in runs.items():
            start = time.thread_time()
            gmod.run()
            times[label].append(time.thread_time() - start)
    hand, tuned_s = (statistics.median(times[k]) for k in ("hand-written", "tuned"))
    print(
        f"\n{name} at 1 thread ({len(context.applied)} kernels from the records): "
        f"hand-written {hand * 1e3:.2f} ms, tuned {tuned_s * 1e3:.2f} ms ({hand / tuned_s:.2f}x)"
    )


if __name__ == "__main__":
    main()
