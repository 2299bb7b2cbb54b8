"""What a fuzz run found: one outcome per case, counted per category, and
one reproducer file per distinct finding.

A case's :class:`Outcome` has a category and, for anything but ``ok`` and
``clean error``, a *signature* (the category plus where it failed, e.g. the
exception type and the innermost xtvm frame of a traceback), so a bug met a
hundred times is reduced and written once and counted a hundred times.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


class Category(str, Enum):
    """Where a case ended."""

    OK = "ok"
    CLEAN_ERROR = "clean error"  # an error message, exit 1, no traceback
    TRACEBACK = "traceback"  # a Python exception escaped
    CRASH = "crash"  # killed by a signal
    HANG = "hang"  # still running at the timeout
    MISMATCH = "mismatch"  # ONNX: xtvm and onnxruntime disagree (see MismatchClass)
    COMPILE_ERROR = "compile error"  # ONNX: xtvm refused a valid graph of supported ops
    INVALID = "invalid case"  # ONNX: onnxruntime refused the graph (not counted against xtvm)


class MismatchClass(str, Enum):
    """Who is wrong when xtvm and onnxruntime disagree, per onnx's reference evaluator."""

    XTVM_WRONG = "xtvm-wrong"  # the reference agrees with onnxruntime, not with xtvm
    ORT_WRONG = "ort-wrong"  # the reference agrees with xtvm, not with onnxruntime
    ILL_CONDITIONED = (
        "ill-conditioned"  # the reference agrees with neither, or the values are unstable
    )


BUG_CATEGORIES = (Category.TRACEBACK, Category.CRASH, Category.HANG, Category.COMPILE_ERROR)
ONNX_ONLY = (Category.MISMATCH, Category.COMPILE_ERROR, Category.INVALID)


@dataclass(frozen=True)
class Outcome:
    """How one case ended. ``detail`` is the message shown in the report
    (the exception line, the signal, the worst difference); ``signature``
    groups outcomes of the same cause."""

    category: Category
    detail: str = ""
    signature: str = ""
    mismatch: MismatchClass | None = None

    @property
    def label(self) -> str:
        if self.category is Category.MISMATCH and self.mismatch is not None:
            return f"mismatch: {self.mismatch.value}"
        return self.category.value

    @property
    def is_finding(self) -> bool:
        """Not ``ok`` nor a clean error: worth a reproducer."""
        return self.category not in (Category.OK, Category.CLEAN_ERROR, Category.INVALID)

    @property
    def is_xtvm_bug(self) -> bool:
        """Attributable to xtvm: a traceback, crash or hang, or a mismatch
        where xtvm is the one that is wrong."""
        return self.category in BUG_CATEGORIES or self.mismatch is MismatchClass.XTVM_WRONG


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _exception_line(tail: str) -> str:
    """The ``Type: message`` line of a traceback: the first unindented line
    after its last frame (a message may span lines, e.g. a printed IR)."""
    lines = tail.splitlines()
    last_frame = max((i for i, line in enumerate(lines) if _FRAME.search(line)), default=-1)
    for line in lines[last_frame + 1 :]:
        if line.strip() and not line.startswith(" "):
            return line
    rest = [line for line in lines if line.strip()]
    return rest[-1] if rest else "?"


def traceback_signature(text: str) -> str:
    """``ExceptionType at module:function`` for the last traceback in
    ``text``: the exception's type and its innermost frame inside xtvm
    (else the innermost frame), without line numbers, so edits elsewhere
    in a file keep the signature."""
    start = text.rfind("Traceback (most recent call last)")
    tail = text[start:] if start >= 0 else text
    frames = _FRAME.findall(tail)
    exc = _exception_line(tail).split(":", 1)[0].strip()
    own = [f for f in frames if "/xtvm/" in f[0] and "/xtvm/testing/" not in f[0]]
    frame = (own or frames or [("?", "0", "?")])[-1]
    signature = f"{exc} at {_short(frame[0])}:{frame[2]}"
    if frames and frames[-1] != frame and exc != "RecursionError":  # raised outside xtvm
        signature += f" (in {_short(frames[-1][0])}:{frames[-1][2]})"
    return signature


def clip(text: str, keep: int = 6000) -> str:
    """``text`` with its middle cut when longer than twice ``keep``."""
    if len(text) <= 2 * keep:
        return text
    return text[:keep] + "\n[... cut ...]\n" + text[-keep:]


def _short(path: str) -> str:
    for marker in ("/xtvm/", "/site-packages/"):
        if marker in path:
            return path.split(marker)[-1]
    return Path(path).name


def last_exception_line(text: str) -> str:
    """The ``Type: message`` line of the last traceback in ``text``, else
    its last line (shortened)."""
    start = text.rfind("Traceback (most recent call last)")
    if start >= 0:
        return _exception_line(text[start:])[:300]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:300]


def slug(text: str) -> str:
    """A file-name-safe form of a signature."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:80] or "finding"


@dataclass
class Finding:
    """A distinct finding: its first outcome, how often it occurred, the
    case that first showed it and the reproducer written for it."""

    outcome: Outcome
    first_case: str
    count: int = 1
    path: Path | None = None


@dataclass
class Report:
    """The counts and findings of one fuzz run."""

    fuzzer: str
    seed: int
    out: Path
    counts: Counter[str] = field(default_factory=Counter)
    findings: dict[str, Finding] = field(default_factory=dict)
    runs: int = 0
    progress: Callable[[str], None] | None = None  # told the counts every 50 runs

    def record(self, case: str, outcome: Outcome) -> Finding | None:
        """Counts ``outcome``; returns the new :class:`Finding` when it is
        the first of its signature (the caller reduces it and calls
        :meth:`write`), else None."""
        self.runs += 1
        self.counts[outcome.label] += 1
        if self.progress is not None and self.runs % 50 == 0:
            self.progress(f"  {self.runs} runs: {dict(sorted(self.counts.items()))}")
        if not outcome.is_finding:
            return None
        key = f"{outcome.label}|{outcome.signature}"
        known = self.findings.get(key)
        if known is not None:
            known.count += 1
            return None
        finding = Finding(outcome, case)
        self.findings[key] = finding
        return finding

    def write(self, finding: Finding, suffix: str, text: str | bytes) -> Path:
        """Writes ``finding``'s reproducer as ``<fuzzer>-<n>-<signature><suffix>``."""
        self.out.mkdir(parents=True, exist_ok=True)
        n = list(self.findings.values()).index(finding) + 1
        path = self.out / f"{self.fuzzer}-{n:03d}-{slug(finding.outcome.signature)}{suffix}"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        finding.path = path
        return path

    @property
    def xtvm_bugs(self) -> int:
        """How many cases ended in a finding attributable to xtvm."""
        return sum(f.count for f in self.findings.values() if f.outcome.is_xtvm_bug)

    def table(self) -> str:
        """The summary: cases per category, then one line per distinct finding."""
        order = [c.value for c in Category if c not in ONNX_ONLY]
        if self.fuzzer == "onnx":
            order += [Category.COMPILE_ERROR.value, Category.INVALID.value]
            order += [f"mismatch: {m.value}" for m in MismatchClass]
        rows = [f"{self.fuzzer} fuzzer, seed {self.seed}: {self.runs} runs"]
        rows += [f"  {label:<28} {self.counts.get(label, 0):>6}" for label in order]
        if self.findings:
            rows.append("findings (count, signature, first case, reproducer):")
        for finding in self.findings.values():
            where = finding.path if finding.path is not None else "-"
            rows.append(
                f"  {finding.count:>5}  [{finding.outcome.label}] {finding.outcome.signature}"
                f"\n         first: {finding.first_case}\n         {finding.outcome.detail[:200]}"
                f"\n         reproducer: {where}"
            )
        rows.append(f"attributable to xtvm: {self.xtvm_bugs}")
        return "\n".join(rows)
