"""``python -m xtvm.testing.fuzz ir|onnx|runtime [--minutes N | --count N] [--seed S] [--out DIR]``

Runs one fuzzer (see ``xtvm/testing/fuzz/__init__.py``), prints the summary
table and exits 1 when it found something attributable to xtvm.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

from xtvm.testing.fuzz.report import Report

FUZZERS = {
    "ir": "xtvm.testing.fuzz.ir",
    "onnx": "xtvm.testing.fuzz.onnx_graphs",
    "runtime": "xtvm.testing.fuzz.runtime",
}


def fuzz(
    name: str,
    seed: int = 0,
    minutes: float | None = None,
    count: int | None = None,
    out: Path = Path("fuzz-findings"),
    timeout: float | None = None,
    quiet: bool = False,
    jobs: int = 1,
    ops: list[str] | None = None,
) -> Report:
    """Runs fuzzer ``name`` for ``minutes`` or ``count`` cases (10 cases
    when neither is given) and returns its report."""
    if minutes is None and count is None:
        count = 10
    deadline = time.monotonic() + (minutes * 60 if minutes is not None else 10**9)
    report = Report(name, seed, out)
    module = importlib.import_module(FUZZERS[name])
    options: dict = {} if timeout is None else {"timeout": timeout}
    if jobs != 1:
        options["jobs"] = jobs
    if ops:
        options["ops"] = ops
    log = (lambda _: None) if quiet else (lambda line: print(line, flush=True))
    report.progress = log
    return module.run(report, seed, deadline, count, log=log, **options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xtvm.testing.fuzz", description=__doc__)
    parser.add_argument("fuzzer", choices=sorted(FUZZERS))
    parser.add_argument("--minutes", type=float, help="stop after this long")
    parser.add_argument("--count", type=int, help="stop after this many cases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("fuzz-findings"),
        help="directory of the reproducers (default fuzz-findings/)",
    )
    parser.add_argument("--timeout", type=float, help="seconds a case may take (a hang after)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    parser.add_argument("--jobs", type=int, default=1, help="cases checked at once (onnx only)")
    parser.add_argument(
        "--ops",
        type=lambda t: t.split(","),
        help="onnx only: draw only these op types (comma-separated)",
    )
    args = parser.parse_args(argv)
    report = fuzz(
        args.fuzzer,
        args.seed,
        args.minutes,
        args.count,
        args.out,
        args.timeout,
        args.quiet,
        args.jobs,
        args.ops,
    )
    print(report.table())
    return 1 if report.xtvm_bugs else 0


if __name__ == "__main__":
    sys.exit(main())
