"""xtvm-tune: search schedules for a model's kernels and write tuning records.

  xtvm-tune model.onnx --shape data=1,3,224,224 --trials 64 --records out.json
  xtvm-tune model.onnx --records out.json --resume          # continue an interrupted run
  xtvm-compile model.onnx -o model.so --tuning-records out.json

Each distinct fused kernel whose schedule is an AutoTVM template (conv2d,
dense, depthwise on x86) is a task. For each, the hand-written schedule is
measured first, then the tuner's proposals, up to --trials measurements
per task; candidates compile in --jobs worker processes and are timed one
at a time in another (at --threads threads), so a crashing or hanging
candidate is an error record. Every measurement is appended to --records
as it completes; --resume counts the file's records as done. A progress
bar shows the trials, the current task's best GFLOP/s and the tuned
kernels' estimated latency; a table of every task ends the run.
AutoTVM tuners: xgb (XGBoost cost model + simulated annealing; pip
install 'xtvm[tune]'), ga, random, grid. --tuner ansor: the
auto_scheduler (template-free sketches, evolutionary search with an
XGBoost cost model, a task scheduler over the tasks).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xtvm-tune", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("model", type=Path, help="an .onnx model, or a relay module (.mlir)")
    parser.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=D0,D1,...",
        help="the static shape of ONNX input NAME (for symbolic dimensions); repeat per input",
    )
    parser.add_argument(
        "--records", type=Path, required=True, help="the records file to append to (JSON lines)"
    )
    parser.add_argument(
        "--tuner",
        choices=["autotvm", "ansor"],
        default="autotvm",
        help="the search: autotvm (the x86 templates' knobs) or ansor (the auto_scheduler: "
        "template-free sketches, evolutionary search, a task scheduler spreading "
        "--trials x tasks over the tasks)",
    )
    parser.add_argument(
        "--autotvm-tuner",
        choices=["xgb", "ga", "random", "grid"],
        default="xgb",
        help="how AutoTVM picks configs (default: xgb)",
    )
    parser.add_argument(
        "--trials",
        type=int,
        default=64,
        help="measurements per task (ansor: on average) at most (default: 64)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="build worker processes (default: 1)")
    parser.add_argument(
        "--cluster",
        metavar="tcp://HOST:8786",
        help="build candidates on this Dask distributed scheduler's workers (pip install "
        "'xtvm[distributed]'); measurements stay on this machine",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="threads a measured kernel runs on (default: 1)"
    )
    parser.add_argument(
        "--resume", action="store_true", help="count the records file's measurements as done"
    )
    parser.add_argument(
        "--target", default="llvm", help="the target string (default: llvm, the host)"
    )
    parser.add_argument(
        "--tasks", type=int, default=None, metavar="N", help="tune only the N heaviest tasks"
    )
    parser.add_argument(
        "--early-stopping",
        type=int,
        default=None,
        metavar="N",
        help="stop a task after N trials without a better config",
    )
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds one measurement may take (default: 30)"
    )
    parser.add_argument(
        "--min-repeat-ms",
        type=float,
        default=50.0,
        help="a timing round lasts at least this long (default: 50)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timing rounds per candidate (default: 3)"
    )
    parser.add_argument(
        "--rpc-key",
        metavar="KEY",
        help="measure on a server of this device key, handed out by --tracker (xtvm.rpc)",
    )
    parser.add_argument(
        "--tracker",
        metavar="HOST:PORT",
        help="the RPC tracker that --rpc-key's servers registered with",
    )
    parser.add_argument(
        "--rpc-token-file", type=Path, help="a file holding the tracker's and servers' token"
    )
    parser.add_argument(
        "--flush-cache",
        action="store_true",
        help="time --repeat single calls, each with the caches flushed (the weights come from "
        "memory, as in a model) instead of repeated warm calls",
    )
    return parser


class Progress:
    """The progress bar (tqdm when installed, else a line per batch)."""

    def __init__(self, total: int):
        self.start = time.perf_counter()
        self.best: dict[str, tuple[float, int]] = {}  # task key or conv -> (seconds, weight)
        try:
            from tqdm import tqdm

            class Bar(tqdm):
                # no monitor thread: it outlived the bar, and a process with
                # another thread no longer forks (from_onnx's checker child)
                monitor_interval = 0

            self.bar = Bar(total=total, unit="trial", file=sys.stderr, dynamic_ncols=True)
        except ImportError:
            self.bar = None
        self.done, self.total = 0, total

    def __call__(self, task, tuner, inputs, results) -> None:
        self.done += len(inputs)
        group = task.conv2d or task.key  # a conv's implementations: the fastest counts
        self.best[group] = (
            min(tuner.best_cost, self.best.get(group, (math.inf, 0))[0]),
            task.weight,
        )
        gflops = task.flop / tuner.best_cost / 1e9 if math.isfinite(tuner.best_cost) else 0.0
        latency = sum(w * s for s, w in self.best.values() if math.isfinite(s)) * 1e3
        errors = sum(1 for r in results if r.error_no)
        text = f"{task.name[:32]}: best {gflops:.1f} GFLOP/s | tuned kernels {latency:.3f} ms"
        if errors:
            text += f" | {errors} errors in batch"
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(len(inputs))
        else:
            print(f"[{self.done}/{self.total}] {text}", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``xtvm-tune``; a user error is a message and exit code 1."""
    from xtvm.tools.compile import error_message

    args = make_parser().parse_args(argv)
    for flag in ("trials", "jobs", "threads", "repeat"):
        if getattr(args, flag) < 1:
            print(f"xtvm-tune: error: --{flag} must be at least 1", file=sys.stderr)
            sys.exit(1)
    try:
        run(args)
    except KeyboardInterrupt:
        print(
            f"\nxtvm-tune: interrupted; {args.records} keeps every finished measurement (continue with --resume)",
            file=sys.stderr,
        )
        sys.exit(130)
    except ImportError as e:
        print(f"xtvm-tune: error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:
        message = error_message(e)
        if message is None:
            raise
        print(message.replace("xtvm-compile", "xtvm-tune"), file=sys.stderr)
        sys.exit(1)


def make_runner(args: argparse.Namespace):
    """Measurements on this machine, or through an RPC tracker (`--rpc-key`, `--tracker`)."""
    from xtvm.tuning.measure import LocalRunner

    options = dict(
        repeat=args.repeat,
        min_repeat_ms=args.min_repeat_ms,
        timeout=args.timeout,
        threads=args.threads,
    )
    if (args.rpc_key is None) != (args.tracker is None):
        raise SystemExit("xtvm-tune: error: --rpc-key and --tracker go together")
    if args.rpc_key is None:
        return LocalRunner(flush_cache=args.flush_cache, **options)
    if args.flush_cache:
        raise SystemExit(
            "xtvm-tune: error: --flush-cache measures locally only (not with --tracker)"
        )
    host, sep, port = args.tracker.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise SystemExit(f"xtvm-tune: error: --tracker must be HOST:PORT, got {args.tracker!r}")
    token = None
    if args.rpc_token_file is not None:
        try:
            token = args.rpc_token_file.read_text().strip()
        except OSError as err:
            raise SystemExit(f"xtvm-tune: error: --rpc-token-file: {err.strerror}: {err.filename}")
    from xtvm.rpc.runner import RPCRunner

    return RPCRunner(args.rpc_key, (host, int(port)), token=token, **options)


def run(args: argparse.Namespace) -> None:
    from xtvm.autotvm.driver import elapsed_since, format_table, tune_tasks
    from xtvm.tools.compile import load_model, parse_shapes
    from xtvm.tuning.measure import LocalBuilder
    from xtvm.tuning.task import extract_tasks

    start = time.perf_counter()
    if args.autotvm_tuner == "xgb" or args.tuner == "ansor":
        from xtvm.autotvm.tuner import require_xgboost

        require_xgboost()  # a missing xgboost is an error now, not after extraction
    if args.records.exists() and not args.resume:
        print(
            f"xtvm-tune: appending to {args.records} (its records are not counted; --resume counts them)",
            file=sys.stderr,
        )
    mod, params = load_model(args.model, parse_shapes(args.shape))
    tasks = extract_tasks(mod, params, args.target)
    if args.tasks is not None:
        tasks = tasks[: args.tasks]
    if not tasks:
        print(
            "xtvm-tune: the model has no tunable kernel (conv2d, dense, depthwise)", file=sys.stderr
        )
        return
    ansor = args.tuner == "ansor"
    total = (
        args.trials * len(tasks)
        if ansor
        else sum(min(args.trials, len(t.config_space)) for t in tasks)
    )
    search = "ansor" if ansor else f"autotvm ({args.autotvm_tuner})"
    print(f"xtvm-tune: {len(tasks)} tasks, up to {total} trials, {search}", file=sys.stderr)
    progress = Progress(total)
    runner = make_runner(args)
    if args.cluster:
        from xtvm.tuning.distributed import DaskBuilder

        builder = DaskBuilder(args.cluster)
    else:
        builder = LocalBuilder(jobs=args.jobs)
    try:
        if ansor:
            from xtvm.auto_scheduler.search import tune_tasks as ansor_tune

            summaries = ansor_tune(
                tasks,
                str(args.records),
                trials=total,
                jobs=args.jobs,
                resume=args.resume,
                runner=runner,
                builder=builder,
                batch_size=max(args.jobs, 1) * 4,
                on_batch=progress,
            )
        else:
            summaries = tune_tasks(
                tasks,
                str(args.records),
                trials=args.trials,
                tuner=args.autotvm_tuner,
                jobs=args.jobs,
                resume=args.resume,
                runner=runner,
                builder=builder,
                early_stopping=args.early_stopping,
                on_batch=progress,
            )
    finally:
        progress.close()
    print(format_table(summaries))
    print(
        f"records: {args.records}; time: {elapsed_since(start)}; measured at {args.threads} thread(s)"
    )


if __name__ == "__main__":
    main()
