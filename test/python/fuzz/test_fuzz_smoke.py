"""A short, seeded run of each fuzzer (``python -m xtvm.testing.fuzz``):
none may find a traceback, crash, hang or xtvm mismatch. Longer runs are
``--minutes N`` on the command line (README, "Reliability"); the known
parser classes the IR fuzzer finds are pinned in test_ir_fuzz_regressions.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xtvm.testing.fuzz.__main__ import fuzz, main
from xtvm.testing.fuzz.report import Category, Outcome, Report

SMOKE = {"ir": (6, 3), "onnx": (6, 1), "runtime": (12, 1)}
"""fuzzer -> (cases, seed) of its smoke run (the runtime's 12 cases are its 12 scenarios once)."""


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_a_short_run_finds_nothing(name: str, tmp_path: Path) -> None:
    count, seed = SMOKE[name]
    report = fuzz(name, seed=seed, count=count, out=tmp_path, quiet=True)
    assert report.runs == count
    assert report.counts[Category.OK.value] + report.counts[Category.CLEAN_ERROR.value] > 0
    assert report.xtvm_bugs == 0, report.table()
    assert not report.findings, report.table()


KNOWN_OPEN = {
    "ir": ["MemoryError", "OverflowError", "NotImplementedError", "hang in"],
    "onnx": [],
    "runtime": ["CodegenError", "collect2"],
}
"""Findings in other areas' code that the regression tests pin as
``xfail(strict=True)`` (test_ir/onnx/cli_fuzz_regressions.py): a longer run
meeting only these is an xfail, anything else fails."""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SMOKE))
def test_a_longer_run_finds_nothing_new(name: str, tmp_path: Path) -> None:
    report = fuzz(name, seed=11, count=30, out=tmp_path, quiet=True)
    new = [
        f
        for f in report.findings.values()
        if f.outcome.is_xtvm_bug
        and not any(k in f.outcome.signature + f.outcome.detail for k in KNOWN_OPEN[name])
    ]
    assert not new, report.table()
    if report.xtvm_bugs:
        pytest.xfail(f"only known open findings:\n{report.table()}")


def test_findings_are_counted_once_per_signature_and_written(tmp_path: Path) -> None:
    report = Report("ir", 0, tmp_path)
    boom = Outcome(Category.TRACEBACK, "KeyError: 'x'", "KeyError at a.py:f")
    first = report.record("case 1", boom)
    assert first is not None and report.record("case 2", boom) is None
    assert report.record("case 3", Outcome(Category.CLEAN_ERROR, "error: bad")) is None
    path = report.write(first, ".mlir", "// reproducer\n")
    assert path.read_text() == "// reproducer\n" and path.parent == tmp_path
    assert report.xtvm_bugs == 2 and report.runs == 3
    assert "KeyError at a.py:f" in report.table()


def test_the_command_line_exits_1_on_a_finding(monkeypatch, tmp_path: Path) -> None:
    def found(name, *args, **kwargs) -> Report:
        report = Report(name, 0, tmp_path)
        report.record("case", Outcome(Category.CRASH, "signal 11", "signal 11"))
        return report

    monkeypatch.setattr("xtvm.testing.fuzz.__main__.fuzz", found)
    assert main(["runtime", "--count", "1", "--out", str(tmp_path)]) == 1
