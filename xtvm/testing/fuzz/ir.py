"""The IR fuzzer: mutated lit files through ``xtvm-opt``.

Each case takes a file of ``test/lit/**/*.mlir``, applies one to three
mutations (below) and runs ``xtvm-opt`` on the result in a subprocess, with
the flags of the file's first ``xtvm-opt %s`` RUN line (``-p PIPELINE``,
``--split-input-file``, ``--verify-diagnostics``, ``-t``), a timeout and a
capped address space. Exit 0, or exit 1 with an error message, is fine; a
``Traceback`` in stderr, a signal or the timeout is a finding, reduced by
line-deletion delta debugging (the reduced file must fail with the same
signature) and written with its command line.

The mutations include the classes the reliability issue lists: nesting
hundreds deep, a huge splat (``dense<1.0> : tensor<4294967296xf32>``), dims
of 2^63 and 2^64 (tensor and memref), ``f80`` and complex dense attributes,
and a directory as the input.
"""

from __future__ import annotations

import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xtvm.testing.fuzz.report import (
    Category,
    Finding,
    Outcome,
    Report,
    last_exception_line,
    traceback_signature,
)
from xtvm.testing.fuzz.worker import limit_memory

REPO = Path(__file__).resolve().parents[3]
"""The repository root (its ``test/lit`` is the corpus)."""


@dataclass(frozen=True)
class LitFile:
    """A corpus file and the ``xtvm-opt`` flags of its RUN line."""

    path: Path
    text: bytes
    flags: tuple[str, ...]


def run_flags(text: str) -> tuple[str, ...] | None:
    """The flags after ``xtvm-opt %s`` on the first RUN line that runs
    ``xtvm-opt`` on the file, up to a pipe or redirection; None when no RUN
    line does."""
    for line in text.splitlines():
        if "RUN:" not in line:
            continue
        command = line.split("RUN:", 1)[1]
        command = re.split(r"\||2>&1|<", command)[0]
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        if words[:1] == ["not"]:
            words = words[1:]
        if words[:2] == ["xtvm-opt", "%s"]:
            return tuple(words[2:])
    return None


def load_corpus(root: Path | None = None) -> list[LitFile]:
    """Every lit file with an ``xtvm-opt %s`` RUN line, in path order."""
    root = root or REPO / "test" / "lit"
    corpus = []
    for path in sorted(root.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_bytes()
        flags = run_flags(text.decode(errors="replace"))
        if flags is not None:
            corpus.append(LitFile(path, text, flags))
    return corpus


# --- mutations: (rng, text) -> text; each returns the text unchanged when it does not apply

Mutation = Callable[[random.Random, bytes], bytes]


def _lines(text: bytes) -> list[bytes]:
    return text.split(b"\n")


def delete_lines(rng: random.Random, text: bytes) -> bytes:
    lines = _lines(text)
    start = rng.randrange(len(lines))
    del lines[start : start + rng.choice([1, 1, 2, 5])]
    return b"\n".join(lines)


def duplicate_lines(rng: random.Random, text: bytes) -> bytes:
    lines = _lines(text)
    start = rng.randrange(len(lines))
    chunk = lines[start : start + rng.choice([1, 1, 3])]
    lines[start:start] = chunk * rng.choice([1, 2, 50])
    return b"\n".join(lines)


def truncate(rng: random.Random, text: bytes) -> bytes:
    return text[: rng.randrange(len(text) + 1)]


_TOKEN = re.compile(rb"[%@^#!]?[\w.$-]+|[^\s\w]")


def swap_tokens(rng: random.Random, text: bytes) -> bytes:
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) < 2:
        return text
    a, b = sorted(rng.sample(tokens, 2), key=lambda m: m.start())
    return text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]


def _replace_one(rng: random.Random, text: bytes, pattern: bytes, choices: list[bytes]) -> bytes:
    found = list(re.finditer(pattern, text))
    if not found:
        return text
    m = rng.choice(found)
    return text[: m.start()] + rng.choice(choices) + text[m.end() :]


ELEMENT_TYPES = [
    b"f16",
    b"f32",
    b"f64",
    b"bf16",
    b"i1",
    b"i8",
    b"i32",
    b"i64",
    b"index",
    b"ui8",
    b"si32",
    b"f80",
    b"f128",
    b"tf32",
    b"complex<f32>",
    b"complex<f64>",
    b"i0",
    b"i4294967295",
    b"f8E4M3FN",
    b"none",
    b"!llvm.ptr",
    b"tensor<2xf32>",
    b"vector<4xf32>",
]


def change_type(rng: random.Random, text: bytes) -> bytes:
    return _replace_one(rng, text, rb"\b(f16|f32|f64|bf16|i1|i8|i32|i64|index)\b", ELEMENT_TYPES)


ODD_DIMS = [
    b"0",
    b"1",
    b"3",
    b"65536",
    b"4294967296",
    b"9223372036854775807",
    b"9223372036854775808",
    b"18446744073709551616",
    b"?",
    b"-1",
    b"99999999999999999999999",
]


def change_dim(rng: random.Random, text: bytes) -> bytes:
    return _replace_one(rng, text, rb"(?<=[<x])\d+(?=x)", ODD_DIMS)


def tensor_to_memref(rng: random.Random, text: bytes) -> bytes:
    return _replace_one(rng, text, rb"\b(tensor|memref)<", [b"memref<", b"tensor<", b"vector<"])


_OP_NAME = re.compile(rb"\b(?:relay|tir|memory|func|arith|llvm|math|scf)\.[a-z_][\w.]*")


def change_op_name(rng: random.Random, text: bytes) -> bytes:
    names = sorted({m.group() for m in _OP_NAME.finditer(text)})
    if not names:
        return text
    other = [*names, b"relay.nonexistent", b"tir.", b"builtin.module", b"func.return", b"x" * 300]
    return _replace_one(rng, text, rb"\b" + re.escape(rng.choice(names)) + rb"\b", other)


def _insert_attribute(rng: random.Random, text: bytes, attr: bytes) -> bytes:
    """Adds ``fz = attr`` to a random attribute dictionary (``{name = ``),
    else as a property of a new op at the start of the first function."""
    found = list(re.finditer(rb"\{(\s*\"?[a-zA-Z_][\w.]*\"?\s*=)", text))
    if found:
        m = rng.choice(found)
        return text[: m.start()] + b"{fz = " + attr + b", " + m.group(1) + text[m.end() :]
    return _insert_op(text, b'"test.fz"() {fz = ' + attr + b"} : () -> ()")


def _insert_op(text: bytes, op: bytes) -> bytes:
    """Puts ``op`` first in the first function body, else first in the file."""
    body = re.search(rb"func\.func[^\n{]*\{\n", text)
    if body:
        return text[: body.end()] + op + b"\n" + text[body.end() :]
    return op + b"\n" + text


def deep_nesting(rng: random.Random, text: bytes) -> bytes:
    depth = rng.choice([50, 200, 500, 1000, 5000])
    kind = rng.randrange(4)
    if kind == 0:  # a type nested in tuples
        return _replace_one(rng, text, rb"\bf32\b", [b"tuple<" * depth + b"f32" + b">" * depth])
    if kind == 1:  # an array attribute nested in arrays
        return _insert_attribute(rng, text, b"[" * depth + b"1" + b"]" * depth)
    if kind == 2:  # a dense literal nested deeper than its type
        return _insert_attribute(
            rng, text, b"dense<" + b"[" * depth + b"1.0" + b"]" * depth + b"> : tensor<1xf32>"
        )
    # regions nested in regions
    return _insert_op(text, b'"test.region"() ({\n' * depth + b"}) : () -> ()\n" * depth)


HUGE_ATTRIBUTES = [
    b"dense<1.0> : tensor<4294967296xf32>",
    b"dense<1.0> : tensor<65536x65536xf32>",
    b"dense<1.0> : tensor<9223372036854775808xf32>",
    b"dense<1.0> : tensor<18446744073709551616xf32>",
    b"dense<1.0> : tensor<f80>",
    b"dense<[1.0, 2.0]> : tensor<2xf80>",
    b"dense<(1.0, 2.0)> : tensor<complex<f32>>",
    b"dense<[(1.0, 2.0)]> : tensor<1xcomplex<f64>>",
    b"dense<1> : tensor<2xi4294967295>",
    b"dense<1> : tensor<3xi0>",
    b'dense<"0xDEADBEEF"> : tensor<2xf32>',
    b'dense<"0x"> : tensor<4xf32>',
    b"dense<[1.0, 2.0]> : tensor<3xf32>",
    b"dense<1.0> : memref<18446744073709551616xf32>",
    b"memref<18446744073709551616xf32>",
    b"memref<9223372036854775808x2xf32>",
    b"tensor<9223372036854775807x9223372036854775807xf32>",
    b"99999999999999999999999999999999 : i64",
    b"1e999 : f32",
    b"0x7FC00000 : f32",
    b"0xFFFFFFFFFFFFFFFFFFFF : f16",
    b"-1 : ui8",
    b"2 : i1",
    b"1.5 : i32",
    b"array<i64: 1, 99999999999999999999>",
    b"dense_resource<missing> : tensor<4xf32>",
    b"affine_map<(d0) -> (d0 floordiv 0)>",
    b"#unknown.attr<1>",
    b'"' + b"a" * 100000 + b'"',
    b'"\\ff\\00"',
]


def odd_attribute(rng: random.Random, text: bytes) -> bytes:
    return _insert_attribute(rng, text, rng.choice(HUGE_ATTRIBUTES))


def replace_dense(rng: random.Random, text: bytes) -> bytes:
    """An existing ``dense<...> : type`` becomes a huge or odd one."""
    return _replace_one(
        rng,
        text,
        rb"dense<[^>\n]*>\s*:\s*tensor<[^>\n]*>",
        [a for a in HUGE_ATTRIBUTES if a.startswith(b"dense")],
    )


BAD_BYTES = [
    b"\x00",
    b"\xff",
    b"\xc3\x28",
    b"\x1b[0m",
    b"\r",
    b"\t",
    b"\xef\xbb\xbf",
    "é".encode(),
    b"\x7f",
    b"\\",
    b'"',
    b"{",
    b"}",
    b"(",
    b">",
    b"<",
    b"%",
    b"@",
    b"#",
    b"\n// -----\n",
]


def bad_bytes(rng: random.Random, text: bytes) -> bytes:
    at = rng.randrange(len(text) + 1)
    cut = rng.choice([0, 0, 1])
    return text[:at] + rng.choice(BAD_BYTES) + text[at + cut :]


MUTATIONS: dict[str, Mutation] = {
    "delete-lines": delete_lines,
    "duplicate-lines": duplicate_lines,
    "truncate": truncate,
    "swap-tokens": swap_tokens,
    "change-type": change_type,
    "change-dim": change_dim,
    "tensor-to-memref": tensor_to_memref,
    "change-op-name": change_op_name,
    "deep-nesting": deep_nesting,
    "odd-attribute": odd_attribute,
    "replace-dense": replace_dense,
    "bad-bytes": bad_bytes,
}
"""The mutations, by name (the name shows in the case's label)."""

DIRECTORY = "directory-input"
"""A pseudo-mutation: the input path is a directory."""


def mutate(rng: random.Random, text: bytes) -> tuple[bytes, list[str]]:
    """One to three random mutations of ``text``, and their names."""
    names = [rng.choice(sorted(MUTATIONS)) for _ in range(rng.choice([1, 1, 2, 3]))]
    for name in names:
        text = MUTATIONS[name](rng, text)
    return text, names


# --- running xtvm-opt


def opt_command() -> list[str]:
    """``xtvm-opt`` next to this interpreter (the venv's), else the module."""
    script = Path(sys.executable).parent / "xtvm-opt"
    return [str(script)] if script.exists() else [sys.executable, "-m", "xtvm.tools.opt"]


def classify(returncode: int | None, stderr: str, what: str) -> Outcome:
    """An ``xtvm-opt`` run's outcome (``returncode`` None: timed out)."""
    if returncode is None:
        return Outcome(
            Category.HANG, f"no answer within 4 times the timeout ({what})", f"hang in {what}"
        )
    if "Traceback (most recent call last)" in stderr:
        return Outcome(Category.TRACEBACK, last_exception_line(stderr), traceback_signature(stderr))
    if returncode < 0:
        return Outcome(Category.CRASH, f"signal {-returncode}", f"signal {-returncode} in {what}")
    if returncode == 0:
        return Outcome(Category.OK)
    return Outcome(Category.CLEAN_ERROR, last_exception_line(stderr))


def run_opt(
    path: str, flags: tuple[str, ...], timeout: float, retry: bool = True
) -> tuple[int | None, str]:
    """Runs ``xtvm-opt path flags``: its return code (None on timeout) and
    stderr. A timeout is tried once more with three times the time, so a
    loaded machine's slowness is not taken for a hang."""
    try:
        proc = subprocess.run(
            [*opt_command(), path, *flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        return run_opt(path, flags, 3 * timeout, retry=False) if retry else (None, "")
    return proc.returncode, proc.stderr.decode(errors="replace")


def check_text(
    text: bytes, flags: tuple[str, ...], timeout: float, workdir: Path
) -> tuple[Outcome, str]:
    """Writes ``text`` to a file and runs ``xtvm-opt`` on it."""
    path = workdir / "case.mlir"
    path.write_bytes(text)
    code, stderr = run_opt(str(path), flags, timeout)
    return classify(code, stderr, " ".join(flags) or "parse"), stderr


def reduce_lines(
    lines: list[bytes], fails: Callable[[list[bytes]], bool], budget: int
) -> list[bytes]:
    """Delta debugging by lines: the smallest sublist found (within
    ``budget`` checks) for which ``fails`` still holds."""
    granularity = 2
    while len(lines) >= 2 and budget > 0:
        size = -(-len(lines) // granularity)
        for start in range(0, len(lines), size):
            if budget <= 0:
                return lines
            candidate = lines[:start] + lines[start + size :]
            budget -= 1
            if fails(candidate):
                lines = candidate
                granularity = max(granularity - 1, 2)
                break
        else:
            if granularity >= len(lines):
                break
            granularity = min(len(lines), granularity * 2)
    return lines


def _reproducer(
    text: bytes, flags: tuple[str, ...], outcome: Outcome, stderr: str, case: str
) -> bytes:
    tail = [line for line in stderr.strip().splitlines()[-12:]]
    header = [
        f"fuzz finding: {outcome.label}: {outcome.signature}",
        f"case: {case}",
        f"command: xtvm-opt THIS_FILE {' '.join(shlex.quote(f) for f in flags)}",
        "stderr (tail):",
        *("  " + line for line in tail),
    ]
    # the header is comments; "expected-" would be read by --verify-diagnostics
    lines = [("// " + line.replace("expected-", "expected_")).encode() for line in header]
    return b"\n".join(lines) + b"\n" + text


def run(
    report: Report,
    seed: int,
    deadline: float,
    count: int | None,
    timeout: float = 20.0,
    reduce_budget: int = 48,
    log: Callable[[str], None] = print,
) -> Report:
    """The fuzz loop: cases until ``deadline`` (monotonic) or ``count`` cases."""
    rng = random.Random(seed)
    corpus = load_corpus()
    with tempfile.TemporaryDirectory(prefix="xtvm-fuzz-ir-") as tmp:
        workdir = Path(tmp)
        (workdir / "a-directory.mlir").mkdir()
        index = 0
        while time.monotonic() < deadline and (count is None or index < count):
            lit = rng.choice(corpus)
            case_rng = random.Random(rng.getrandbits(64))
            label = f"case {index} of seed {seed}: {lit.path.relative_to(REPO)}"
            if case_rng.random() < 0.01:
                code, stderr = run_opt(str(workdir / "a-directory.mlir"), lit.flags, timeout)
                outcome = classify(code, stderr, DIRECTORY)
                text, names = b"", [DIRECTORY]
            else:
                text, names = mutate(case_rng, lit.text)
                outcome, stderr = check_text(text, lit.flags, timeout, workdir)
            label += f" [{', '.join(names)}]"
            index += 1
            finding = report.record(label, outcome)
            if finding is None:
                continue
            log(f"  new finding: [{outcome.label}] {outcome.signature} ({label})")
            if outcome.category is not Category.HANG and names != [DIRECTORY]:
                text = _reduce(text, lit.flags, outcome, timeout, workdir, reduce_budget, deadline)
            report.write(finding, ".mlir", _reproducer(text, lit.flags, outcome, stderr, label))
    return report


def _reduce(
    text: bytes,
    flags: tuple[str, ...],
    outcome: Outcome,
    timeout: float,
    workdir: Path,
    budget: int,
    deadline: float,
) -> bytes:
    def fails(lines: list[bytes]) -> bool:
        if time.monotonic() > deadline + 60:
            return False
        got, _ = check_text(b"\n".join(lines), flags, timeout, workdir)
        return got.category == outcome.category and got.signature == outcome.signature

    return b"\n".join(reduce_lines(_lines(text), fails, budget))


def finding_of(finding: Finding) -> str:
    """A one-line description of a finding (for logs)."""
    return f"[{finding.outcome.label}] {finding.outcome.signature}"
