"""The ONNX backend node tests through xtvm: ``python -m xtvm.frontend.onnx.conformance``.

Runs the node test cases that ``onnx.backend.test.case.node.collect_testcases``
generates in memory (model, inputs, expected outputs, tolerances) through
:class:`~xtvm.frontend.onnx.backend.XtvmBackend`, compares the outputs as
onnx's own test runner does (same shape, same dtype, then
``np.testing.assert_allclose(expected, actual, rtol, atol)``), and prints
one row per operator and a last line ``passed P of N``::

    python -m xtvm.frontend.onnx.conformance --filter '^test_(relu|reshape)'
    python -m xtvm.frontend.onnx.conformance --json /tmp/conf.json -v
    python -m xtvm.frontend.onnx.conformance --ci-subset
    python -m xtvm.frontend.onnx.conformance --ci-subset --target c

Each case ends in one status:

* ``pass``: every output matches;
* ``fail``: the model ran, but an output differs (shape, dtype or values);
* ``unsupported``: the frontend refuses the model with an
  ``OnnxImportError`` naming the node and the reason (an op, opset, dtype,
  attribute value or input it does not import), or a value is not a
  tensor, a list of tensors (a sequence) or None (an empty optional); a
  string tensor is an array of ``str`` (docs/strings-and-ml.md);
* ``error``: anything else — the frontend accepted the model but compiling
  or running it failed (an exception from a pass, a lowering or the
  runtime), a timeout, or a crashed worker. Each is a bug to fix: the
  frontend should have refused the model, or the compiler should handle it.

Cases run one after another in a worker process forked from the runner, so a
crash (which generated code should never cause: kernels check their
arguments) or a hang loses one case, not the run; the runner starts a new
worker and goes on. ``--in-process`` runs them in the runner itself, for
debugging.

The CI subset: ``--write-ci-subset`` keeps, per operator, the first
:data:`CI_CASES_PER_OP` passing cases (by name) of this run (or of the
results of ``--from-json``) and writes them to :data:`CI_CASES_FILE`;
``--ci-subset`` runs exactly that list, as ``test_conformance_ci.py`` does.

``--target`` compiles for another target (default ``llvm``; ``c``: the C
source target, docs/c-target.md).

Random ops: ONNX leaves the values of ``Bernoulli``, ``RandomUniform[Like]``,
``RandomNormal[Like]``, ``Multinomial`` and training ``Dropout`` to the
implementation even for a given seed (the node tests' expected values are
NumPy's draws), so a case whose operator is one of :data:`RANDOM_OPS` passes
when its outputs match exactly or, failing that, have the expected count,
shapes and dtypes and values the op can produce (:func:`compare_random`:
0/1 for ``Bernoulli``; for ``Dropout``, each output element 0 or ``x / (1 -
ratio)``, agreeing with the mask). Their distributions are tested in
``test/python/frontend/test_sampling_ops.py``.

``--compare-ort`` also runs each case's model in onnxruntime, on the same
inputs, judged by the same comparison and tolerances, and records its status
(``pass``, ``fail``: an output differs, ``unsupported``: onnxruntime refuses
to load the model, ``error``: it fails while running). The table then gives
onnxruntime's passes per operator next to xtvm's, and the summary names the
cases one passes and the other does not. Every row says how far xtvm
supports the operator: ``full`` (every case passes), ``partial`` or
``none``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx.backend.test.case.test_case import TestCase

from xtvm.frontend.onnx.common import OnnxImportError

_REPO = Path(__file__).resolve().parents[3]
CI_CASES_FILE = _REPO / "test" / "python" / "frontend" / "conformance_ci_cases.txt"
"""The checked-in list of CI cases, one case name per line."""

CI_CASES_PER_OP = 2
"""How many passing cases per operator the CI subset keeps."""

CASE_TIMEOUT = 300.0
"""Seconds one case may take before its worker is killed."""

STATUSES = ("pass", "fail", "unsupported", "error")


@dataclass
class CaseResult:
    """The outcome of one case; ``error`` is the first line of the failure."""

    name: str
    op: str
    ops: list[str]
    status: str
    error: str
    seconds: float
    ort_status: str = ""
    """onnxruntime's status on the case (``--compare-ort``); empty when not run."""
    ort_error: str = ""


class UnsupportedValue(Exception):
    """A case input or output that is neither a tensor (strings included), a
    sequence of them nor an empty optional."""


_all_cases: list[TestCase] = []


def collect_cases(pattern: str | None = None) -> list[TestCase]:
    """The node test cases whose name matches ``pattern`` (``re.search``),
    sorted by name (generated once per process)."""
    from onnx.backend.test.case.node import collect_testcases

    if not _all_cases:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            _all_cases.extend(sorted(collect_testcases(None), key=lambda c: c.name))
    regex = re.compile(pattern) if pattern else None
    return [c for c in _all_cases if regex is None or regex.search(c.name)]


def case_ops(case: TestCase) -> list[str]:
    """The op types of a case's graph, in first-use order (domain-qualified
    outside the default domain)."""
    ops: list[str] = []
    for node in case.model.graph.node:
        op = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
        if op not in ops:
            ops.append(op)
    return ops


def operators(cases: Sequence[TestCase]) -> dict[str, str]:
    """The operator each case tests, by case name: its node's op type; for
    an expanded case (``test_x_expanded``: the op's function body), the op
    of ``test_x`` when ``cases`` has it."""
    single = {c.name: case_ops(c)[0] for c in cases if len(c.model.graph.node) == 1}
    result = {}
    for case in cases:
        base = case.name.split("_expanded")[0]
        result[case.name] = single.get(case.name) or single.get(base) or "+".join(case_ops(case))
    return result


def _to_numpy(value: Any, what: str) -> np.ndarray | list[np.ndarray]:
    if value is None:  # an empty optional
        return value  # type: ignore[return-value]
    if isinstance(value, list):  # a sequence: a list of tensors
        return [_to_numpy(v, f"{what}[{k}]") for k, v in enumerate(value)]  # type: ignore[misc]
    if isinstance(value, onnx.TensorProto):
        value = onnx.numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise UnsupportedValue(f"{what} is a {type(value).__name__}, not a tensor")
    return value


def compare_outputs(
    expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], rtol: float, atol: float
) -> None:
    """Raises ``AssertionError`` unless ``actual`` matches ``expected`` as
    onnx's backend test runner requires: same count; per output same shape,
    same dtype, and ``assert_allclose(actual, expected, rtol, atol)``."""
    if len(actual) != len(expected):
        raise AssertionError(f"expected {len(expected)} output(s), got {len(actual)}")
    for i, (want, got) in enumerate(zip(expected, actual)):
        if want is None or got is None:  # an empty optional
            if want is not got:
                raise AssertionError(f"output {i} is {got!r}, expected {want!r}")
            continue
        if isinstance(want, list):  # a sequence: element by element
            if not isinstance(got, list) or len(got) != len(want):
                raise AssertionError(f"output {i} is not a sequence of {len(want)} tensors")
            for k, (w, g) in enumerate(zip(want, got)):
                try:
                    compare_outputs([w], [g], rtol, atol)
                except AssertionError as e:
                    raise AssertionError(f"output {i}[{k}]: {e}") from None
            continue
        if got.shape != want.shape:
            raise AssertionError(f"output {i} has shape {got.shape}, expected {want.shape}")
        if got.dtype != want.dtype:
            raise AssertionError(f"output {i} has dtype {got.dtype}, expected {want.dtype}")
        if want.dtype == object:  # strings: equal element by element
            if not np.array_equal(got, want):
                raise AssertionError(f"output {i} differs: {got.tolist()} != {want.tolist()}")
            continue
        try:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
        except AssertionError as e:
            keep = ("Mismatched elements", "Max absolute", "Max relative")
            detail = "; ".join(
                line.strip() for line in str(e).splitlines() if line.strip().startswith(keep)
            )
            raise AssertionError(f"output {i} differs: {detail}") from None


RANDOM_OPS = frozenset(
    {"Bernoulli", "RandomUniform", "RandomUniformLike", "RandomNormal", "RandomNormalLike",
     "Multinomial", "Dropout"}
)
"""Operators whose node tests :func:`compare_random` judges when the values
differ (module docstring)."""


def compare_random(
    op: str,
    model: onnx.ModelProto,
    inputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    actual: Sequence[np.ndarray],
    rtol: float,
    atol: float,
) -> None:
    """Raises ``AssertionError`` unless ``actual`` could be an output of the
    random op ``op`` (the first such node of ``model``): same count, shapes
    and dtypes as ``expected``, and values ``op`` can produce for ``inputs``
    (the graph inputs, in order)."""
    if len(actual) != len(expected):
        raise AssertionError(f"expected {len(expected)} output(s), got {len(actual)}")
    for i, (want, got) in enumerate(zip(expected, actual)):
        if got.shape != want.shape or got.dtype != want.dtype:
            raise AssertionError(
                f"output {i} is {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}"
            )
    if op == "Bernoulli" and not np.isin(actual[0], [0, 1]).all():
        raise AssertionError("output 0 holds values other than 0 and 1")
    if op == "Dropout":
        values = {i.name: v for i, v in zip(model.graph.input, inputs)}
        values |= {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
        node = next(n for n in model.graph.node if n.op_type == "Dropout")
        x = values[node.input[0]]
        has_ratio = len(node.input) > 1 and node.input[1]
        ratio = float(values[node.input[1]]) if has_ratio else 0.5
        kept = x * np.asarray(1.0 / (1.0 - ratio), x.dtype) if ratio < 1 else np.zeros_like(x)
        y = actual[0]
        mask = actual[1] if len(actual) > 1 else ~np.isclose(y, 0, rtol=0, atol=atol) | (kept == 0)
        if mask.dtype != bool:
            raise AssertionError(f"the mask is {mask.dtype}, not bool")
        np.testing.assert_allclose(y, np.where(mask, kept, 0), rtol=rtol, atol=atol)


def _first_line(error: BaseException, limit: int = 300) -> str:
    text = str(error).strip()
    line = text.splitlines()[0] if text else ""
    line = line if len(line) <= limit else line[: limit - 3] + "..."
    return f"{type(error).__name__}: {line}"


def _classify(error: BaseException) -> str:
    if isinstance(error, (UnsupportedValue, OnnxImportError)):
        return "unsupported"
    return "fail" if isinstance(error, AssertionError) else "error"


def run_ort_case(case: TestCase) -> tuple[str, str]:
    """onnxruntime's status and first error line on ``case``: its model run
    on the case's inputs and compared as :func:`run_case` compares xtvm's
    outputs."""
    import onnxruntime as ort

    try:
        options = ort.SessionOptions()
        options.log_severity_level = 3  # the status says it; no log lines on stderr
        session = ort.InferenceSession(
            case.model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
    except Exception as e:  # noqa: BLE001 - a refused model is a status
        return "unsupported", _first_line(e)
    names = [i.name for i in session.get_inputs()]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for inputs, outputs in case.data_sets or []:
                feeds = {
                    n: _to_numpy(v, f"input {i}")
                    for i, (n, v) in enumerate(zip(names, inputs))
                }
                expected = [_to_numpy(v, f"expected output {i}") for i, v in enumerate(outputs)]
                actual = session.run(None, feeds)
                compare_outputs(expected, actual, case.rtol, case.atol)
    except AssertionError as e:
        return "fail", _first_line(e)
    except Exception as e:  # noqa: BLE001 - a failed run is a status
        return "error", _first_line(e)
    return "pass", ""


def run_case(
    case: TestCase, op: str = "", verbose: bool = False, target: str = "llvm"
) -> CaseResult:
    """Runs one case in this process, compiled for ``target``; every
    exception becomes a status."""
    from xtvm.frontend.onnx.backend import XtvmBackend
    from xtvm.target import Target

    start = time.perf_counter()
    status, message = "pass", ""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), Target.from_string(target):
            warnings.simplefilter("ignore")
            data_sets = [
                (
                    [_to_numpy(v, f"input {i}") for i, v in enumerate(inputs)],
                    [_to_numpy(v, f"expected output {i}") for i, v in enumerate(outputs)],
                )
                for inputs, outputs in case.data_sets or []
            ]
            rep = XtvmBackend.prepare(case.model)
            for inputs, expected in data_sets:
                actual = list(rep.run(inputs))
                try:
                    compare_outputs(expected, actual, case.rtol, case.atol)
                except AssertionError:
                    if op not in RANDOM_OPS:
                        raise
                    compare_random(op, case.model, inputs, expected, actual, case.rtol, case.atol)
    except Exception as e:  # noqa: BLE001 - every failure is a reported status
        status, message = _classify(e), _first_line(e)
        if verbose:
            traceback.print_exc()
    seconds = time.perf_counter() - start
    return CaseResult(case.name, op or case_ops(case)[0], case_ops(case), status, message, seconds)


def _run_both(
    case: TestCase, op: str, verbose: bool, target: str, compare_ort: bool
) -> CaseResult:
    """:func:`run_case`, then onnxruntime's status when ``compare_ort``."""
    result = run_case(case, op, verbose, target)
    if compare_ort:
        result.ort_status, result.ort_error = run_ort_case(case)
    return result


def _worker(
    cases: Sequence[TestCase], conn: Connection, verbose: bool, target: str, compare_ort: bool
) -> None:
    """Serves ``(case index, op)`` requests from ``conn`` until it reads None:
    sends xtvm's result, then (``compare_ort``) onnxruntime's status and
    error, so that a crash in onnxruntime is not taken for xtvm's."""
    while (request := conn.recv()) is not None:
        index, op = request
        conn.send(asdict(run_case(cases[index], op, verbose, target)))
        if compare_ort:
            conn.send(run_ort_case(cases[index]))


class _IsolatedRunner:
    """Runs cases in a forked worker, replacing it after a crash or timeout."""

    def __init__(
        self,
        cases: Sequence[TestCase],
        verbose: bool,
        timeout: float,
        target: str = "llvm",
        compare_ort: bool = False,
    ) -> None:
        self.cases = cases
        self.target = target
        self.compare_ort = compare_ort
        self.verbose = verbose
        self.timeout = timeout
        self.context = multiprocessing.get_context("fork")
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None

    def _start(self) -> None:
        parent, child = self.context.Pipe()
        self.process = self.context.Process(
            target=_worker, args=(self.cases, child, self.verbose, self.target, self.compare_ort),
            daemon=True,
        )
        self.process.start()
        child.close()
        self.conn = parent

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
        self.process, self.conn = None, None

    def run(self, index: int, op: str) -> CaseResult:
        if self.process is None or not self.process.is_alive():
            self._start()
        assert self.conn is not None and self.process is not None
        case = self.cases[index]
        start = time.perf_counter()
        self.conn.send((index, op))
        message = ""
        try:
            if self.conn.poll(self.timeout):
                result = CaseResult(**self.conn.recv())
                if self.compare_ort:
                    result.ort_status, result.ort_error = self._ort_status()
                return result
            message = f"Timeout: no result after {self.timeout:.0f} s"
        except EOFError:
            self.process.join(timeout=5)
            code = self.process.exitcode
            message = f"WorkerCrash: the worker process died (exit code {code})"
        self._stop()
        seconds = time.perf_counter() - start
        return CaseResult(case.name, op, case_ops(case), "error", message, seconds)

    def _ort_status(self) -> tuple[str, str]:
        """onnxruntime's status of the case the worker just ran for xtvm."""
        assert self.conn is not None and self.process is not None
        try:
            if self.conn.poll(self.timeout):
                return self.conn.recv()
            message = f"Timeout: onnxruntime gave no result after {self.timeout:.0f} s"
        except EOFError:
            self.process.join(timeout=5)
            message = f"WorkerCrash: onnxruntime ended the worker (exit code {self.process.exitcode})"
        self._stop()
        return "error", message

    def close(self) -> None:
        if self.conn is not None and self.process is not None:
            self.conn.send(None)
            self.process.join(timeout=10)
            self.conn.close()
        self._stop()


def run_cases(
    cases: Sequence[TestCase],
    ops: dict[str, str],
    isolate: bool = True,
    verbose: bool = False,
    timeout: float = CASE_TIMEOUT,
    progress: Callable[[CaseResult], None] | None = None,
    target: str = "llvm",
    compare_ort: bool = False,
) -> list[CaseResult]:
    """Runs ``cases`` (each isolated in a worker process when ``isolate``),
    compiled for ``target`` (and in onnxruntime when ``compare_ort``); ``ops``
    maps case names to operators (see :func:`operators`)."""
    runner = _IsolatedRunner(cases, verbose, timeout, target, compare_ort) if isolate else None
    results = []
    try:
        for index, case in enumerate(cases):
            op = ops.get(case.name) or "+".join(case_ops(case))
            result = (
                runner.run(index, op)
                if runner
                else _run_both(case, op, verbose, target, compare_ort)
            )
            results.append(result)
            if progress:
                progress(result)
    finally:
        if runner:
            runner.close()
    return results


def support(passed: int, cases: int) -> str:
    """How far an operator is supported: ``full`` when all its ``cases``
    pass, ``none`` when none does, else ``partial``."""
    return "full" if passed == cases else "none" if passed == 0 else "partial"


def operator_table(results: Iterable[CaseResult]) -> str:
    """One row per operator: cases, passed, failed (any other status), its
    :func:`support`, onnxruntime's passes and support when the results have
    them (``--compare-ort``), and the first failing case's status and
    error."""
    by_op: dict[str, list[CaseResult]] = {}
    for r in results:
        by_op.setdefault(r.op, []).append(r)
    with_ort = any(r.ort_status for group in by_op.values() for r in group)
    head = ["op", "cases", "passed", "failed", "support"]
    rows = [head + (["ort passed", "ort support"] if with_ort else []) + ["first error"]]
    for op in sorted(by_op, key=str.lower):
        group = by_op[op]
        passed = sum(r.status == "pass" for r in group)
        row = [op, str(len(group)), str(passed), str(len(group) - passed)]
        row.append(support(passed, len(group)))
        if with_ort:
            ort_passed = sum(r.ort_status == "pass" for r in group)
            row += [str(ort_passed), support(ort_passed, len(group))]
        first = next((r for r in group if r.status != "pass"), None)
        row.append((f"[{first.status}] {first.name}: {first.error}" if first else "")[:160])
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row[:-1], widths)), row[-1]]).rstrip()
        for row in rows
    ]
    return "\n".join(lines)


def ort_differences(results: Sequence[CaseResult]) -> tuple[list[str], list[str]]:
    """The cases xtvm passes and onnxruntime does not, and the cases
    onnxruntime passes and xtvm does not (both by name; only cases
    onnxruntime ran)."""
    ran = [r for r in results if r.ort_status]
    only_xtvm = sorted(r.name for r in ran if r.status == "pass" and r.ort_status != "pass")
    only_ort = sorted(r.name for r in ran if r.status != "pass" and r.ort_status == "pass")
    return only_xtvm, only_ort


def summary(results: Sequence[CaseResult]) -> str:
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    seconds = sum(r.seconds for r in results)
    detail = ", ".join(f"{counts[s]} {s}" for s in STATUSES)
    lines = [f"{detail}; {seconds:.0f} s in cases"]
    if any(r.ort_status for r in results):
        ort_passed = sum(r.ort_status == "pass" for r in results)
        only_xtvm, only_ort = ort_differences(results)
        lines.append(f"onnxruntime passed {ort_passed} of {len(results)}")
        lines.append(f"xtvm passes, onnxruntime does not ({len(only_xtvm)}): {' '.join(only_xtvm)}")
        lines.append(f"onnxruntime passes, xtvm does not ({len(only_ort)}): {' '.join(only_ort)}")
    lines.append(f"passed {counts['pass']} of {len(results)}")
    return "\n".join(lines)


CI_DTYPE_TOKENS = (
    "int4",
    "uint4",
    "int2",
    "uint2",
    "float4e2m1",
    "bfloat16",
    "bf16",
    "float8e4m3fn",
    "float8e4m3fnuz",
    "float8e5m2",
    "float8e5m2fnuz",
    "float8e8m0",
    "e4m3fn",
    "e5m2",
    "e8m0",
)
"""Element types whose cases the CI subset covers per operator beyond the
first ones: a case name holding a token (case-insensitive, as a whole word
part: ``test_cast_INT4_to_FLOAT``, ``test_quantizelinear_uint4``) is kept
when it is its operator's first passing case with that token (on that side
of ``_to_``: a cast from the type and one to it)."""

_TOKEN_RE = re.compile(
    rf"(?<![a-z0-9])({'|'.join(CI_DTYPE_TOKENS)})(?![a-z0-9])", re.IGNORECASE
)


def ci_subset(results: Iterable[CaseResult], per_op: int = CI_CASES_PER_OP) -> list[str]:
    """The first ``per_op`` passing cases (by name) of each operator, and its
    first passing case of each :data:`CI_DTYPE_TOKENS` element type, sorted."""
    chosen: dict[str, list[str]] = {}
    for r in sorted(results, key=lambda r: r.name):
        if r.status != "pass":
            continue
        if len(chosen.setdefault(r.op, [])) < per_op:
            chosen[r.op].append(r.name)
        source, _, target = r.name.partition("_to_")
        for side, part in (("from", source), ("to", target)):
            for token in dtype_tokens(part):
                chosen.setdefault(f"{r.op} {side} {token}", [r.name])
    return sorted({name for names in chosen.values() for name in names})


def dtype_tokens(name: str) -> set[str]:
    """The :data:`CI_DTYPE_TOKENS` a case name holds, lower-cased."""
    return {t.lower() for t in _TOKEN_RE.findall(name)}


def read_ci_cases(path: Path = CI_CASES_FILE) -> list[str]:
    """The case names of the CI list (blank lines and ``#`` comments skipped)."""
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def write_ci_cases(names: Sequence[str], path: Path = CI_CASES_FILE) -> None:
    header = (
        "# ONNX node test cases that CI runs (test_conformance_ci.py): per operator, the\n"
        "# first passing cases. Regenerate: python -m xtvm.frontend.onnx.conformance "
        "--write-ci-subset\n"
    )
    path.write_text(header + "".join(f"{n}\n" for n in names))


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m xtvm.frontend.onnx.conformance",
        description="Run the ONNX backend node tests through xtvm.",
    )
    add = parser.add_argument
    add("--filter", metavar="REGEX", help="only cases whose name matches")
    add("--json", metavar="PATH", help="write per-case results as JSON")
    add("--ci-subset", action="store_true", help=f"run the cases of {CI_CASES_FILE.name}")
    add("--write-ci-subset", action="store_true", help=f"write {CI_CASES_FILE.name}")
    add("--from-json", metavar="PATH", help="take results from a --json file, do not run")
    add("--in-process", action="store_true", help="run cases in this process (debugging)")
    add("--timeout", type=float, default=CASE_TIMEOUT, help="seconds per case")
    add("--target", default="llvm", help="the target to compile for (llvm, c; with options)")
    add("--compare-ort", action="store_true", help="also run each case in onnxruntime")
    add("-v", "--verbose", action="store_true", help="print every case, and tracebacks")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.from_json:
        results = [CaseResult(**r) for r in json.loads(Path(args.from_json).read_text())]
        if args.filter:
            results = [r for r in results if re.search(args.filter, r.name)]
    else:
        everything = collect_cases()
        ops = operators(everything)
        cases = collect_cases(args.filter) if args.filter else everything
        if args.ci_subset:
            wanted = set(read_ci_cases())
            cases = [c for c in cases if c.name in wanted]

        def progress(r: CaseResult) -> None:
            if args.verbose or r.status != "pass":
                error = f"  {r.error}" if r.error else ""
                ort = f"  [onnxruntime: {r.ort_status}]" if r.ort_status else ""
                print(f"{r.status:<11} {r.seconds:6.2f}s  {r.name}{error}{ort}", flush=True)

        results = run_cases(
            cases, ops, isolate=not args.in_process, verbose=args.verbose, timeout=args.timeout,
            progress=progress, target=args.target, compare_ort=args.compare_ort,
        )
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    if args.write_ci_subset:
        names = ci_subset(results)
        write_ci_cases(names)
        print(f"wrote {len(names)} cases to {CI_CASES_FILE}")
    print(operator_table(results))
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
