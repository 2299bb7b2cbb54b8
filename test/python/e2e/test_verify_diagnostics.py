"""xtvm.tools.verify_diagnostics: MLIR's expected-* annotations, parsed and
matched against diagnostics (the lit tests in test/lit/tools drive it
through xtvm-opt; these cover what xtvm cannot produce yet, e.g. warnings)."""

import pytest

from xtvm.ir.diagnostics import Diagnostic
from xtvm.tools.verify_diagnostics import check_diagnostics, expected_pattern, parse_expectations

TEXT = """line one
%a = op  // expected-error {{same line}}
// expected-warning @+2 {{two down}}
// expected-note @below {{next plain line}}
line five
// expected-remark @above {{last plain line}}
// expected-error @-3 {{three up}}
// expected-error @unknown {{nowhere}}
// expected-error-re @+1 {{a {{[0-9]+}} b}}
line ten
"""


def annotations():
    expected, errors = parse_expectations(TEXT, "t.mlir")
    assert errors == []
    return expected


def test_annotation_lines():
    got = [(e.severity, e.line, e.text) for e in annotations()]
    assert got == [
        ("error", 2, "same line"),
        ("warning", 5, "two down"),
        ("note", 5, "next plain line"),
        ("remark", 5, "last plain line"),
        ("error", 4, "three up"),
        ("error", 0, "nowhere"),
        ("error", 10, "a {{[0-9]+}} b"),
    ]


def test_regex_parts():
    pattern = expected_pattern("size {{[0-9]+}} (of {{.*}})")
    assert pattern.search("a size 12 (of x y)") and not pattern.search("size x (of y)")
    with pytest.raises(ValueError, match="no end"):
        expected_pattern("a {{b")
    with pytest.raises(ValueError, match="invalid regex"):
        expected_pattern("a {{[}}")


def diag(severity, message, line=0):
    return Diagnostic(severity, message, "t.mlir" if line else None, line, 1 if line else 0)


def test_all_matched():
    produced = [
        diag("error", "on the same line, yes", 2),
        diag("warning", "it is two down", 5),
        diag("note", "the next plain line", 5),
        diag("remark", "the last plain line", 5),
        diag("error", "three up", 4),
        diag("error", "nowhere at all"),
        diag("error", "a 42 b", 10),
    ]
    assert check_diagnostics(produced, annotations(), "t.mlir") == []


def test_unexpected_missing_and_near_miss():
    produced = [
        diag("error", "on the same line", 2),
        diag("error", "it is two down", 5),  # a warning was expected: a near miss
        diag("note", "the next plain line", 5),
        diag("remark", "the last plain line", 5),
        diag("error", "three up", 4),
        diag("error", "a x b", 10),  # the regex wants digits
        diag("error", "surprise", 7),
    ]
    problems = [(p.line, p.message) for p in check_diagnostics(produced, annotations(), "t.mlir")]
    assert (3, "'error' diagnostic emitted when expecting a 'warning'") in problems
    assert (10, "unexpected error: a x b") in problems
    assert (7, "unexpected error: surprise") in problems
    assert (8, 'expected error "nowhere" was not produced') in problems
    assert (3, 'expected warning "two down" was not produced') in problems
    assert (9, 'expected error "a {{[0-9]+}} b" was not produced') in problems
    assert len(problems) == 6


def test_a_diagnostic_in_another_file_is_unexpected():
    other = Diagnostic("error", "same line", "rules.pdl.mlir", 2, 1)
    problems = check_diagnostics([other], annotations()[:1], "t.mlir")
    assert [p.message for p in problems] == [
        "unexpected error: same line",
        'expected error "same line" was not produced',
    ]
