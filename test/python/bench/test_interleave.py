"""xtvm.bench.interleave: engines timed in alternating rounds, and the main
benchmark's rows taken that way."""

from __future__ import annotations

from bench_rows import printed_ratio_fits

from xtvm.bench.__main__ import main
from xtvm.bench.interleave import alternate


class FakeEngine:
    """Records the order of requests; each run takes ``seconds``."""

    def __init__(self, name: str, seconds: float, log: list[tuple[str, int, int]]):
        self.name, self.seconds, self.log = name, seconds, log

    def time(self, threads: int, runs: int) -> list[float]:
        self.log.append((self.name, threads, runs))
        return [self.seconds] * runs


def test_rounds_alternate_and_medians_are_per_engine_and_thread_count(monkeypatch):
    monkeypatch.setattr("xtvm.bench.interleave.PAUSE_S", 0.0)
    log: list[tuple[str, int, int]] = []
    a, b = FakeEngine("a", 2.0, log), FakeEngine("b", 1.0, log)
    medians = alternate([a, b], threads=[1, 2], repeat=6, rounds=3)
    assert medians == [{1: 2.0, 2: 2.0}, {1: 1.0, 2: 1.0}]
    # 2 runs a round; the order swaps every round; one thread count at a time
    assert log == [
        ("a", 1, 2), ("b", 1, 2), ("b", 1, 2), ("a", 1, 2), ("a", 1, 2), ("b", 1, 2),
        ("a", 2, 2), ("b", 2, 2), ("b", 2, 2), ("a", 2, 2), ("a", 2, 2), ("b", 2, 2),
    ]


def test_bench_rows_come_from_two_serving_children(capsys, monkeypatch, tmp_path, mlp_path):
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path))  # the children's own kernel cache
    main(["--models", str(mlp_path), "--threads", "1", "--repeat", "2", "--rounds", "2",
          "--no-compile", "--no-gemm"])
    rows = [line for line in capsys.readouterr().out.splitlines()
            if line.startswith(f"| {mlp_path} |")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert len(cells) == 11, rows[0]
    xtvm_ms, ort_ms, ratio = float(cells[2]), float(cells[3]), float(cells[4])
    assert xtvm_ms > 0 and ort_ms > 0
    assert printed_ratio_fits(ratio, xtvm_ms, ort_ms), rows[0]
    assert float(cells[7]) < 1e-4  # xtvm's output against onnxruntime's


def test_a_child_that_fails_is_a_failed_row(capsys):
    main(["--models", "nosuch", "--threads", "1", "--repeat", "1", "--no-compile", "--no-gemm"])
    out = capsys.readouterr().out
    assert "| nosuch | failed: FileNotFoundError: no light model 'nosuch'" in out
