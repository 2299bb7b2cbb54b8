"""Tuning benchmark: ``python -m xtvm.bench.tune`` (``python -m xtvm.bench
--tuned`` runs it).

For each model (``--models``, the onnx package's light models with seeded
random weights), in one run:

1. extract its tasks and search them within ``--budget`` minutes: the
   first ``--autotvm-share`` of it with AutoTVM (the ``xgb`` tuner; each
   task, most FLOPs × calls first, gets a slice of the time in proportion
   to its share of the model's FLOPs, at least an equal share's quarter),
   the rest with the auto_scheduler on the same number of trials (its task
   scheduler spreads them). Every search measures the hand-written schedule
   first (config 0: the baseline record); records go to
   ``--records-dir/MODEL.autotvm.json`` and ``MODEL.ansor.json``;
2. build the model with and without both records files
   (``apply_history_best``: a task gets its fastest record only when that
   beat its hand-written baseline by 2%), time every kernel call of both
   builds inside the model (interleaved, the median of ``--repeat``
   runs) and keep a task's record only when its kernel's calls are
   faster in the model too (by 2%): a kernel timed alone keeps its
   weights and input in the caches, in the model it does not, and the
   two rankings can differ (a conv whose records choose another
   implementation, Winograd or direct, is one unit: all its kernels'
   calls, its records kept or dropped together). Then rebuild with the
   kept records and time
   the hand-written and tuned models and onnxruntime at 1 thread,
   interleaved, on the calling thread's CPU time (onnxruntime at one
   intra-op thread runs in the caller too): the median of ``--repeat``
   runs each;
3. print the model row (hand-written, tuned and onnxruntime ms, the
   ratios, the tuned kernels and the convs whose implementation the
   records changed, the search time spent); the roof (the hand-written
   build's direct kernels in the model: GFLOP/s and share of one core's
   FMA peak, and the model's time were they all at the peak: the most
   schedules of the same implementations can gain); the per-task table:
   the hand-written time, AutoTVM's and the auto_scheduler's best programs
   of their own (the baseline excluded) with their trial counts, which is
   better, the kernel's calls in the model (hand-written and with the
   record) and what the final build applied.

``--resume`` continues from the records files (their trials count as
spent); ``--measure-only`` skips the search and times the model with the
records there.

``--compare TRIALS`` runs instead the per-task comparison of the two
searches on equal budgets (:func:`compare_searches`): for each task (the
``--tasks`` heaviest by FLOPs × calls, default all), AutoTVM (``xgb``) and
the auto_scheduler get ``TRIALS`` measurements each (the hand-written
baseline included), one after the other; then the hand-written schedule
and each search's best program are measured again side by side
(interleaved rounds, the fastest of each), and a table per task is
printed: calls, hand-written, AutoTVM and auto_scheduler µs, the trials
of each, and whether the auto_scheduler matched (within 2%) or beat
AutoTVM. Records go to ``MODEL.compare.autotvm.json`` and
``MODEL.compare.ansor.json``. Absolute numbers on a shared machine are noisy; the
ratios, measured side by side in one run, are the measure.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from xtvm.bench.models import LIGHT_MODELS


@dataclass
class SearchTime:
    """What one search spent: trials measured and seconds."""

    trials: int = 0
    seconds: float = 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m xtvm.bench.tune",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", default="resnet50,squeezenet")
    parser.add_argument(
        "--budget", type=float, default=30.0, help="minutes of search per model (default 30)"
    )
    parser.add_argument("--autotvm-share", type=float, default=0.5)
    parser.add_argument("--records-dir", default="tune_records")
    parser.add_argument("--jobs", type=int, default=2, help="build workers")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--measure-only", action="store_true")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--compare",
        type=int,
        metavar="TRIALS",
        help="per task, AutoTVM and the auto_scheduler on TRIALS trials each (no model timing)",
    )
    parser.add_argument(
        "--tasks", type=int, help="with --compare: only the N heaviest tasks (FLOPs x calls)"
    )
    args = parser.parse_args(argv)
    for name in args.models.split(","):
        if name not in LIGHT_MODELS:
            parser.error(f"unknown model '{name}' (models: {', '.join(LIGHT_MODELS)})")
    records_dir = Path(args.records_dir)
    records_dir.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    print(
        f"# xtvm tuning, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
        f"1 thread, CPU time of the measuring thread, median of {args.repeat} runs"
    )
    for name in args.models.split(","):
        if args.compare:
            compare_model(name, args, records_dir)
        else:
            run_model(name, args, records_dir)


def run_model(name: str, args, records_dir: Path) -> None:
    """Search one model's tasks, then time it (see the module)."""
    from xtvm.bench.timing import light_model
    from xtvm.frontend import from_onnx
    from xtvm.tuning.task import extract_tasks

    model, input_name, x = light_model(name)
    mod, params = from_onnx(model)
    tasks = extract_tasks(mod, params)
    paths = {s: records_dir / f"{name}.{s}.json" for s in ("autotvm", "ansor")}
    spent = {"autotvm": SearchTime(), "ansor": SearchTime()}
    if not args.measure_only:
        if not args.resume:
            for path in paths.values():
                path.unlink(missing_ok=True)
        budget = args.budget * 60
        spent["autotvm"] = search_autotvm(
            tasks, paths["autotvm"], budget * args.autotvm_share, args.jobs, args.resume
        )
        spent["ansor"] = search_ansor(
            tasks,
            paths,
            budget - spent["autotvm"].seconds,
            spent["autotvm"].trials,
            args.jobs,
        )
    existing = [str(p) for p in paths.values() if p.exists()]
    times, applied, in_model, chosen, hand_calls = model_latency(
        model, mod, params, input_name, x, existing, args.repeat
    )
    hand, tuned, ort = times["hand-written"], times["tuned"], times["onnxruntime"]
    print(f"\n## {name}: {len(tasks)} tasks, budget {args.budget:g} min")
    print(
        "\n| model | hand-written ms | tuned ms | ort ms | hand-written / tuned | tuned / ort "
        "| tuned kernels | convs' implementation changed | AutoTVM trials, s "
        "| auto_scheduler trials, s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    changed = {
        t.conv2d
        for t in tasks
        if t.conv2d in chosen and t.hand_written and t.tile_size != chosen[t.conv2d]
    }
    print(
        f"| {name} | {hand * 1e3:.2f} | {tuned * 1e3:.2f} | {ort * 1e3:.2f} | "
        f"{hand / tuned:.2f}x | {tuned / ort:.2f} | {len(applied)} of {len(tasks)} | "
        f"{len(changed)} of {len({t.conv2d for t in tasks if t.conv2d})} | "
        f"{spent['autotvm'].trials}, {spent['autotvm'].seconds:.0f} | "
        f"{spent['ansor'].trials}, {spent['ansor'].seconds:.0f} |"
    )
    from xtvm.bench.peak import fma_peak_gflops

    peak = fma_peak_gflops()
    print()
    print(roof_table(tasks, hand_calls, peak))
    print()
    print(task_table(tasks, paths, applied, in_model, chosen))
    first = first_conv_tasks(mod, tasks)
    if first:
        print()
        print(first_conv_table(first, paths, peak))


MATCH = 0.02
"""The auto_scheduler matches AutoTVM on a task when its best program is
at most this much slower."""


def compare_model(name: str, args, records_dir: Path) -> None:
    """``--compare``: the per-task table of one model (see the module)."""
    from xtvm.bench.timing import light_model
    from xtvm.frontend import from_onnx
    from xtvm.tuning.task import extract_tasks

    model, _, _ = light_model(name)
    mod, params = from_onnx(model)
    tasks = sorted(extract_tasks(mod, params), key=lambda t: -t.flop * t.weight)
    tasks = tasks[: args.tasks] if args.tasks else tasks
    paths = {s: records_dir / f"{name}.compare.{s}.json" for s in ("autotvm", "ansor")}
    if not args.resume:
        for path in paths.values():
            path.unlink(missing_ok=True)
    start = time.monotonic()
    rows = compare_searches(tasks, paths, args.compare, args.jobs)
    print(
        f"\n## {name}: AutoTVM vs auto_scheduler, {args.compare} trials a task each "
        f"({len(tasks)} tasks, {time.monotonic() - start:.0f} s)\n"
    )
    print(compare_table(rows))


@dataclass
class Comparison:
    """One task of ``--compare``: the re-measured seconds of the
    hand-written schedule and of each search's best program (AutoTVM's
    may be its config 0, the hand-written schedule; the auto_scheduler's
    is one of its own programs), and each search's trials (measurements,
    the baseline included)."""

    task: object
    hand: float
    autotvm: float
    ansor: float
    autotvm_trials: int
    ansor_trials: int


def compare_searches(tasks, paths: dict[str, Path], trials: int, jobs: int) -> list[Comparison]:
    """For each task: AutoTVM (xgb) then the auto_scheduler on ``trials``
    measurements each (the baseline included; earlier records in
    ``paths`` count), then the hand-written schedule and both best
    programs re-measured side by side (:func:`remeasure`)."""
    from xtvm.auto_scheduler.search import CostModel
    from xtvm.auto_scheduler.search import tune_tasks as ansor_tune
    from xtvm.autotvm.driver import tune_tasks as autotvm_tune
    from xtvm.tuning.measure import LocalBuilder, LocalRunner

    builder, runner = LocalBuilder(jobs=jobs), LocalRunner()
    cost_model = CostModel()  # the auto_scheduler's, shared by the tasks as in tune_tasks
    rows = []
    try:
        for k, task in enumerate(tasks):
            kept = {"builder": _Kept(builder), "runner": _Kept(runner), "resume": True}
            (a,) = autotvm_tune([task], paths["autotvm"], trials=trials, jobs=jobs, **kept)
            (b,) = ansor_tune(
                [task], paths["ansor"], trials=trials, jobs=jobs, cost_model=cost_model, **kept
            )
            configs = [task.config_space.get(0), _best_config(paths["autotvm"], task, True)]
            configs.append(_best_config(paths["ansor"], task, False))
            hand, auto, ansor = remeasure(task, configs, builder, runner)
            rows.append(Comparison(task, hand, auto, ansor, a.trials, b.trials + 1))
            print(
                f"compare {k + 1}/{len(tasks)} {task.name}: hand-written {_us(hand)} µs, "
                f"AutoTVM {_us(auto)} µs ({a.trials}), auto_scheduler {_us(ansor)} µs "
                f"({b.trials + 1})",
                flush=True,
            )
    finally:
        builder.close()
        runner.close()
    return rows


def _best_config(path: Path, task, baseline: bool):
    """The fastest successful config of ``task`` in ``path`` (the
    hand-written baseline counted only when ``baseline``), or None."""
    from xtvm.autotvm.dispatch import config_from_json
    from xtvm.tuning.record import is_baseline, load_records

    records = [
        r
        for r in load_records(path)
        if r.key == task.key and r.error_no == 0 and (baseline or not is_baseline(r))
    ]
    if not records:
        return None
    best = min(records, key=lambda r: r.cost)
    return (
        config_from_json(best.config)
        if "trace" in best.config
        else task.config_space.get(best.config["index"])
    )


def remeasure(task, configs, builder, runner, rounds: int = 3) -> list[float]:
    """Seconds per call of each config (None: inf), measured in
    ``rounds`` interleaved rounds, the fastest of each: the searches ran
    at different times on a shared machine, so their own records are
    not measured under the same load."""
    from xtvm.tuning.measure import MeasureInput

    inputs = [MeasureInput(task, c) for c in configs if c is not None]
    builds = builder.build(inputs)
    best = [math.inf] * len(inputs)
    for _ in range(rounds):
        for k, result in enumerate(runner.run(inputs, builds)):
            if not result.error_no:
                best[k] = min(best[k], result.cost)
    it = iter(best)
    return [next(it) if c is not None else math.inf for c in configs]


def compare_table(rows: list[Comparison]) -> str:
    """The ``--compare`` table and the count of tasks the auto_scheduler
    matched (within :data:`MATCH`) or beat AutoTVM on."""
    out = [
        (
            "| task | calls | GFLOP | hand-written µs | AutoTVM µs (trials) "
            "| auto_scheduler µs (trials) | auto_scheduler / AutoTVM | matched or beat |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    wins = 0
    for r in rows:
        ratio = r.ansor / r.autotvm if math.isfinite(r.autotvm) else math.inf
        win = ratio <= 1 + MATCH
        wins += win
        out.append(
            f"| {r.task.name.removeprefix('fused_nn_contrib_')} | {r.task.weight} | "
            f"{r.task.flop / 1e9:.3f} | {_us(r.hand)} | {_us(r.autotvm)} ({r.autotvm_trials}) | "
            f"{_us(r.ansor)} ({r.ansor_trials}) | {ratio:.3f} | {'yes' if win else 'no'} |"
        )
    weighted = {
        s: sum(r.task.weight * getattr(r, s) for r in rows) for s in ("hand", "autotvm", "ansor")
    }
    out.append(
        f"\nThe auto_scheduler matched (within {MATCH:.0%}) or beat AutoTVM on {wins} of "
        f"{len(rows)} tasks. Weighted by calls: hand-written {_us(weighted['hand'])} µs, "
        f"AutoTVM {_us(weighted['autotvm'])} µs, auto_scheduler {_us(weighted['ansor'])} µs."
    )
    return "\n".join(out)


def task_seconds(tasks, budget: float) -> list[float]:
    """Each task's slice of ``budget``: in proportion to its share of the
    model's FLOPs (× calls), at least a quarter of an equal share, scaled
    to sum to ``budget``."""
    work = [t.flop * t.weight for t in tasks]
    total = sum(work) or 1.0
    floor = 0.25 / len(tasks)
    shares = [max(w / total, floor) for w in work]
    return [budget * s / sum(shares) for s in shares]


def search_autotvm(tasks, path: Path, budget: float, jobs: int, resume: bool) -> SearchTime:
    """AutoTVM (xgb) on every task, each within its slice of ``budget``
    seconds (time left over by one task passes to the next)."""
    from xtvm.autotvm.driver import tune_tasks
    from xtvm.tuning.measure import LocalBuilder, LocalRunner

    start = time.monotonic()
    trials, builder, runner = 0, LocalBuilder(jobs=jobs), LocalRunner()
    end = start + budget
    slices = task_seconds(tasks, budget)
    try:
        for k, task in enumerate(tasks):
            left = end - time.monotonic()
            if left <= 0:
                break
            share = left * slices[k] / sum(slices[k:])
            (summary,) = tune_tasks(
                [task],
                path,
                trials=10_000,
                jobs=jobs,
                resume=resume,
                builder=_Kept(builder),
                runner=_Kept(runner),
                deadline=time.monotonic() + share,
            ) or [None]
            trials += summary.trials if summary else 0
            print(
                f"autotvm {k + 1}/{len(tasks)} {task.name}: {summary.trials if summary else 0} "
                f"trials, {summary.speedup if summary else 0:.2f}x",
                flush=True,
            )
    finally:
        builder.close()
        runner.close()
    return SearchTime(trials, time.monotonic() - start)


def search_ansor(
    tasks, paths: dict[str, Path], budget: float, trials: int, jobs: int
) -> SearchTime:
    """The auto_scheduler on ``trials`` measurements (AutoTVM's count) or
    ``budget`` seconds, whichever ends first; it starts from the baselines
    AutoTVM measured (copied into its records)."""
    from xtvm.auto_scheduler.search import tune_tasks
    from xtvm.tuning.record import is_baseline, save_records

    start = time.monotonic()
    if paths["autotvm"].exists() and not paths["ansor"].exists():
        lines = [line for line, r in _lines(paths["autotvm"]) if is_baseline(r)]
        save_records(paths["ansor"], lines)
    summaries = tune_tasks(
        tasks,
        paths["ansor"],
        trials=max(trials, len(tasks)),
        jobs=jobs,
        resume=True,
        deadline=start + max(budget, 0.0),
    )
    own = sum(s.trials for s in summaries)
    print(f"auto_scheduler: {own} trials", flush=True)
    return SearchTime(own, time.monotonic() - start)


def _lines(path: Path):
    """(line, record) of each well-formed record line of ``path``."""
    import json

    from xtvm.tuning.record import decode

    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                yield line.rstrip("\n"), decode(line)
            except (ValueError, TypeError, KeyError, json.JSONDecodeError):
                continue


class _Kept:
    """A builder or runner lent to one ``tune_tasks`` call: its ``close``
    does nothing, so the next task reuses the worker processes."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def close(self) -> None:
        pass


def kernel_keys(mod, params, context=None) -> dict[str, tuple[str, str]]:
    """The workload key and the conv workload (``""`` for a kernel
    without a conv) of each primitive function of the model (the names
    its graph's kernel calls use), lowered under ``context`` (a tuning
    dispatch context: it chooses each conv's implementation)."""
    import contextlib

    from xdsl.dialects import func

    from xtvm.autotvm.dispatch import workload_key
    from xtvm.dialects.relay.primitive import is_primitive
    from xtvm.driver.build_module import lower
    from xtvm.passes.relay.winograd import conv2d_workload
    from xtvm.target import Target
    from xtvm.transform import PassContext
    from xtvm.tuning.task import conv_of

    with Target.of("llvm"), PassContext(opt_level=3), context or contextlib.nullcontext():
        module = lower(mod.clone(), params, stage="relay-opt")
    keys = {}
    for op in module.ops:
        if isinstance(op, func.FuncOp) and is_primitive(op):
            conv = conv_of(op)
            keys[op.sym_name.data] = (workload_key(op), conv2d_workload(conv) if conv else "")
    return keys


def _build(mod, params, records):
    """The model built with ``records`` applied (None: hand-written), the
    keys the build took a record for and the implementation it chose for
    each conv the records decided (conv workload → tile, 0 = direct)."""
    import xtvm
    from xtvm.tuning.record import apply_history_best

    with xtvm.transform.PassContext(opt_level=3):  # the level extract_tasks fused at
        if records is None:
            return xtvm.build(mod, params=params), {}, {}
        context = apply_history_best(records)
        with context:
            lib = xtvm.build(mod, params=params)
    return lib, dict(context.applied), dict(context.implementations)


def _graph(lib, input_name, x):
    import xtvm

    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    gmod.run()
    return gmod


def kernel_calls(gmods: dict, repeat: int) -> dict[str, dict[str, float]]:
    """Per build, the seconds of each kernel (by function name) summed
    over its calls in one run of the model: every call timed on the
    calling thread's CPU time, builds interleaved call by call, the
    median of ``repeat`` runs. (The graph executor's own op list, with
    each op's kernel name.)"""
    ops = {}
    for label, gmod in gmods.items():
        nodes = [n for n in gmod._graph.nodes if n.op == "tvm_op"]
        ops[label] = [(n.func_name, op) for n in nodes if (op := gmod._make_op(n)) is not None]
    samples = {label: [[] for _ in calls] for label, calls in ops.items()}
    for _ in range(repeat):
        for label, calls in ops.items():
            for k, (_, op) in enumerate(calls):
                start = time.thread_time()
                op()
                samples[label][k].append(time.thread_time() - start)
    out: dict[str, dict[str, float]] = {}
    for label, calls in ops.items():
        totals: dict[str, float] = {}
        for (name, _), times in zip(calls, samples[label]):
            totals[name] = totals.get(name, 0.0) + statistics.median(times)
        out[label] = totals
    return out


def model_latency(model, mod, params, input_name, x, records, repeat: int):
    """The in-model check of the records, then the hand-written and tuned
    models and onnxruntime timed (see the module); returns the medians,
    the applied keys, per workload key (per conv workload for a conv
    whose implementation the records choose) its kernel calls' seconds in
    the model hand-written and tuned (before the check), and the
    implementation the final build chose for each conv the records
    decided."""
    import xtvm
    from xtvm.bench.timing import ort_session
    from xtvm.tuning.record import apply_history_best, load_records

    xtvm.runtime.set_num_threads(1)
    hand_lib, _, _ = _build(mod, params, None)
    tuned_lib, applied, chosen = _build(mod, params, records)
    gmods = {"hand": _graph(hand_lib, input_name, x), "tuned": _graph(tuned_lib, input_name, x)}
    calls = kernel_calls(gmods, repeat)
    loaded = [r for path in records for r in load_records(path)]
    convs = {r.kwargs["conv2d"] for r in loaded if "conv2d" in r.kwargs}

    def unit(key: str, conv: str) -> str:
        """What the check keeps or drops: a kernel's workload, or all the
        kernels of a conv whose implementation the records choose."""
        return conv if conv in convs else key

    # A conv may be built Winograd in one build and direct in the other:
    # its kernels (names and keys differ) are compared as one unit.
    units: dict[str, dict[str, set[str]]] = {}
    in_model: dict[str, list[float]] = {}
    keys = {
        "hand": kernel_keys(mod, params),
        "tuned": kernel_keys(mod, params, apply_history_best(records)),
    }
    for k, label in enumerate(("hand", "tuned")):
        for name, (key, conv) in keys[label].items():
            if name in calls[label]:
                units.setdefault(unit(key, conv), {"hand": set(), "tuned": set()})[label].add(key)
                in_model.setdefault(unit(key, conv), [0.0, 0.0])[k] += calls[label][name]
    tuned_units = {
        u for u, ks in units.items() if ks["hand"] != ks["tuned"] or ks["tuned"] & set(applied)
    }
    hand_calls = _roof_calls(gmods["hand"], keys["hand"], repeat)
    in_model = {u: in_model[u] for u in tuned_units}
    kept = {u for u, (h, t) in in_model.items() if t < h * 0.98}
    if kept != tuned_units:
        kept_records = [r for r in loaded if unit(r.key, r.kwargs.get("conv2d", "")) in kept]
        tuned_lib, applied, chosen = _build(mod, params, kept_records)
        gmods["tuned"] = _graph(tuned_lib, input_name, x)
    runs = {"hand-written": gmods["hand"].run, "tuned": gmods["tuned"].run}
    session = ort_session(model, 1)
    runs["onnxruntime"] = lambda: session.run(None, {input_name: x})
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(repeat):
        for label, run in runs.items():
            start = time.thread_time()
            run()
            times[label].append(time.thread_time() - start)
    medians = {k: statistics.median(v) for k, v in times.items()}
    return medians, applied, in_model, chosen, hand_calls


def _roof_calls(gmod, keys: dict[str, tuple[str, str]], repeat: int):
    """Per kernel of the hand-written build ``gmod``: (workload key, calls,
    its calls' seconds in the model), each call's fastest of ``repeat``
    runs of the model alone (its undisturbed speed in sequence, as
    ``python -m xtvm.bench.profile`` times it)."""
    from xtvm.bench.profile import kernel_times

    out: dict[str, tuple[str, int, float]] = {}
    for name, _, seconds in kernel_times(gmod, repeat, time.thread_time):
        _, calls, total = out.get(name, ("", 0, 0.0))
        out[name] = (keys[name][0] if name in keys else "", calls + 1, total + seconds)
    return out


def roof_table(tasks, hand_calls, peak: float) -> str:
    """How far schedules alone can take the model: the hand-written
    build's kernel calls in the model (``hand_calls``, see
    :func:`_roof_calls`: each call's fastest in sequence) as direct
    convolutions and dense layers (their
    FLOPs, GFLOP/s and share of one core's FMA ``peak``), Winograd convs
    and the rest; then the model's time were every direct kernel at the
    peak and the rest unchanged: the most a tuned schedule of the same
    implementations can gain."""
    by_key = {t.key: t for t in tasks}
    rows = {"direct": [0.0, 0.0, 0], "winograd": [0.0, 0.0, 0], "other": [0.0, 0.0, 0]}
    for name, (key, calls, seconds) in hand_calls.items():
        task = by_key.get(key)
        kind = "other" if task is None else "winograd" if "winograd" in name else "direct"
        row = rows[kind]
        row[0] += seconds
        row[1] += task.flop * calls if kind == "direct" else 0.0
        row[2] += calls
    lines = [
        "| hand-written kernels in the model (each call's fastest) | calls | ms | GFLOP/s | of peak |",
        "|---|---|---|---|---|",
    ]
    for kind, (seconds, flop, calls) in rows.items():
        rate = (
            f"{flop / seconds / 1e9:.0f} | {flop / seconds / 1e9 / peak:.0%}" if flop else "- | -"
        )
        lines.append(f"| {kind} | {calls} | {seconds * 1e3:.2f} | {rate} |")
    total = sum(r[0] for r in rows.values())
    bound = total - rows["direct"][0] + rows["direct"][1] / (peak * 1e9)
    lines.append(
        f"\nEvery direct kernel at one core's FMA peak ({peak:.0f} GFLOP/s), the rest as "
        f"measured: {bound * 1e3:.2f} ms against their {total * 1e3:.2f} ms, at most "
        f"{total / bound:.2f}x from schedules of the same implementations."
    )
    return "\n".join(lines)


def record_costs(paths: dict[str, Path]):
    """The records' seconds per call: per workload key the hand-written
    baseline's fastest (config 0), and per key and search the costs of its
    own programs (infinity for an error)."""
    from xtvm.tuning.record import is_baseline, load_records

    hand: dict[str, float] = {}
    found: dict[str, dict[str, list[float]]] = {}
    for search, path in paths.items():
        if not path.exists():
            continue
        for r in load_records(path):
            if is_baseline(r):
                hand[r.key] = min(hand.get(r.key, math.inf), r.cost)
            else:
                found.setdefault(r.key, {}).setdefault(search, []).append(r.cost)
    return hand, found


def task_table(
    tasks,
    paths: dict[str, Path],
    applied: dict[str, str],
    in_model: dict[str, list[float]],
    chosen: dict[str, int] | None = None,
) -> str:
    """Per task: calls, hand-written µs, each search's own best µs and
    trials (the baseline excluded), the better search, its calls in the
    model hand-written and with the record (µs per run), what was
    applied (for a conv's implementations, ``chosen`` on the one the
    records chose, ``not built`` on the others); then how many tasks the
    auto_scheduler matched or beat
    AutoTVM on."""
    hand, found = record_costs(paths)
    rows = [
        (
            "| task | calls | GFLOP | hand-written µs | AutoTVM µs (trials) "
            "| auto_scheduler µs (trials) | better | in model: hand-written, tuned µs | applied |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    wins = compared = 0
    for task in tasks:
        own = found.get(task.key, {})
        best = {s: min(own.get(s, [math.inf])) for s in paths}
        count = {s: len(own.get(s, [])) for s in paths}
        if not any(count.values()) and task.key not in hand:
            continue
        better = "-"
        if count["autotvm"] and count["ansor"]:
            compared += 1
            if best["ansor"] <= best["autotvm"]:
                wins += 1
                better = "auto_scheduler"
            else:
                better = "AutoTVM"
        pair = in_model.get(task.key) or in_model.get(task.conv2d)
        model_cells = f"{_us(pair[0])}, {_us(pair[1])}" if pair else "-"
        config = applied.get(task.key)
        what = "hand-written" if config is None else ("trace" if "trace" in config else "AutoTVM")
        if task.conv2d and (chosen or {}).get(task.conv2d) is not None:
            built = chosen[task.conv2d] == task.tile_size  # the records chose the implementation
            what = f"{what}, chosen" if built else "not built"
        elif task.conv2d and not task.hand_written:
            what = "not built"
        rows.append(
            f"| {task.label.removeprefix('fused_nn_contrib_')} | {task.weight} | "
            f"{task.flop / 1e9:.3f} | {_us(hand.get(task.key, math.inf))} | "
            f"{_us(best['autotvm'])} ({count['autotvm']}) | {_us(best['ansor'])} "
            f"({count['ansor']}) | {better} | {model_cells} | {what} |"
        )
    rows.append(
        f"\nThe auto_scheduler matched or beat AutoTVM on {wins} of the {compared} tasks "
        "both searched."
    )
    return "\n".join(rows)


def first_conv_tasks(mod, tasks) -> list:
    """The tasks of the model's first convolution: those tagged with its
    workload (one per implementation), else the conv kernel that takes
    the model's input."""
    from xtvm.dialects.relay import Conv2dOp
    from xtvm.passes.relay.winograd import conv2d_workload

    conv = next((op for op in mod.walk() if isinstance(op, Conv2dOp)), None)
    if conv is None:
        return []
    workload = conv2d_workload(conv)
    tagged = [t for t in tasks if t.conv2d == workload]
    if tagged:
        return tagged
    data = f": {conv.operands[0].type}"
    takes_input = lambda t: data in t.func.split("func.func", 1)[-1].split("->", 1)[0]
    return [t for t in tasks if "conv2d" in t.name and takes_input(t)][:1]


def first_conv_table(tasks, paths: dict[str, Path], peak: float) -> str:
    """Per implementation of the first conv (``tasks``): its hand-written
    (config 0) and best searched µs, their GFLOP/s (the direct conv's
    FLOPs) and share of one core's FMA ``peak`` GFLOP/s; then the best
    against the hand-written implementation's own schedule."""
    base, found = record_costs(paths)
    best = {key: min(min(costs) for costs in by.values()) for key, by in found.items()}
    rows = [
        "| first conv | config 0 µs | GFLOP/s | of peak | best searched µs | GFLOP/s | of peak |",
        "|---|---|---|---|---|---|---|",
    ]
    rate = lambda task, t: task.flop / t / 1e9 if math.isfinite(t) else 0.0
    for task in tasks:
        b, s = base.get(task.key, math.inf), best.get(task.key, math.inf)
        rows.append(
            f"| {task.label.removeprefix('fused_nn_contrib_')} | {_us(b)} | "
            f"{rate(task, b):.0f} | {rate(task, b) / peak:.0%} | {_us(s)} | "
            f"{rate(task, s):.0f} | {rate(task, s) / peak:.0%} |"
        )
    hand_task = next((t for t in tasks if t.hand_written), tasks[0])
    hand = base.get(hand_task.key, math.inf)
    fastest = min(
        ((min(base.get(t.key, math.inf), best.get(t.key, math.inf)), t) for t in tasks),
        key=lambda pair: pair[0],
    )
    if math.isfinite(hand) and math.isfinite(fastest[0]):
        rows.append(
            f"\nFirst conv: hand-written {_us(hand)} µs ({rate(hand_task, hand):.0f} GFLOP/s, "
            f"{rate(hand_task, hand) / peak:.0%} of one core's FMA peak, {peak:.0f} GFLOP/s); "
            f"fastest found {_us(fastest[0])} µs ({fastest[1].label}): "
            f"{hand / fastest[0]:.2f}x the hand-written schedule."
        )
    return "\n".join(rows)


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f}" if math.isfinite(seconds) else "-"


if __name__ == "__main__":
    main()
