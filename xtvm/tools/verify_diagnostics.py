"""``--verify-diagnostics``: the diagnostics a file expects, checked against
those it produces (MLIR's ``SourceMgrDiagnosticVerifierHandler``).

An annotation in a comment expects one diagnostic::

    %y = relay.nn.conv2d %x, %w ...   // expected-error {{expects 4-d data}}
    // expected-error @+1 {{groups=3 does not divide}}
    // expected-warning @below {{...}}    the next line that is not an annotation
    // expected-note @above {{...}}       the last line that is not an annotation
    // expected-error @-2 {{...}}         two lines up
    // expected-error @unknown {{...}}    a diagnostic without a location
    // expected-error-re {{result type {{.*}} does not match}}

The text between the outer ``{{ }}`` must occur in the message; in the
``-re`` form, inner ``{{ }}`` parts are regular expressions and the rest is
literal. A diagnostic matches an annotation of its line and severity; any
diagnostic left over is ``unexpected``, any annotation left over ``was not
produced``, and either makes the check fail. With ``--split-input-file``
each chunk is checked against the annotations it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xtvm.ir.diagnostics import Diagnostic

_ANNOTATION = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)


@dataclass
class Expected:
    """One ``expected-*`` annotation: what, where (line 0: unknown location)."""

    severity: str
    text: str
    line: int
    at: Diagnostic
    """Where the annotation itself is written, for reporting it."""
    pattern: re.Pattern[str] | None = None
    matched: bool = False

    def matches(self, message: str) -> bool:
        """Whether ``message`` contains the expected text (or regex)."""
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


def expected_pattern(text: str) -> re.Pattern[str]:
    """The regex of an ``-re`` annotation: ``{{...}}`` parts are regexes, the
    rest literal. Raises ``ValueError`` on an unclosed or invalid part."""
    parts, rest = [], text
    while (start := rest.find("{{")) != -1:
        end = rest.find("}}", start + 2)
        if end == -1:
            raise ValueError("found start of regex with no end '}}'")
        regex = rest[start + 2 : end]
        try:
            re.compile(regex)
        except re.error as e:
            raise ValueError(f"invalid regex: {e}") from None
        parts += [re.escape(rest[:start]), f"({regex})"]
        rest = rest[end + 2 :]
    return re.compile("".join(parts) + re.escape(rest))


def parse_expectations(text: str, filename: str) -> tuple[list[Expected], list[Diagnostic]]:
    """The annotations in ``text`` (a file, or a chunk padded to the file's
    lines), and a diagnostic for each malformed one."""
    expected: list[Expected] = []
    errors: list[Diagnostic] = []
    lines = text.split("\n")
    last_plain_line = 0  # the last line without an annotation (1-based; 0: none yet)
    waiting_for_next: list[Expected] = []  # @below annotations
    for number, line in enumerate(lines, start=1):
        m = _ANNOTATION.search(line.rstrip())
        if m is None:
            for e in waiting_for_next:
                e.line = number
            waiting_for_next.clear()
            last_plain_line = number
            continue
        severity, is_regex, _, offset, body = m.groups()
        at = Diagnostic("error", "", filename, number, m.start() + 1, line)
        record = Expected(severity, body, number, at)
        if is_regex:
            try:
                record.pattern = expected_pattern(body)
            except ValueError as e:
                errors.append(Diagnostic("error", str(e), filename, number, m.start() + 1, line))
                continue
        if offset is None:
            pass
        elif offset == "unknown":
            record.line = 0
        elif offset == "above":
            record.line = last_plain_line
        elif offset == "below":
            record.line = len(lines)  # if no line follows, it stays unmatched
            waiting_for_next.append(record)
        else:
            record.line = number + int(offset)
        expected.append(record)
    return expected, errors


def check_diagnostics(
    produced: list[Diagnostic], expected: list[Expected], filename: str
) -> list[Diagnostic]:
    """The errors of comparing ``produced`` with ``expected`` (empty: they agree)."""
    problems: list[Diagnostic] = []
    for d in produced:
        local = d.filename == filename or d.where is None
        line = d.line if d.where is not None else 0
        candidates = [e for e in expected if local and e.line == line and e.matches(d.message)]
        exact = next((e for e in candidates if e.severity == d.severity and not e.matched), None)
        exact = exact or next((e for e in candidates if e.severity == d.severity), None)
        if exact is not None:
            exact.matched = True
        elif candidates:
            near = candidates[0]
            problems.append(_with(near.at, f"'{d.severity}' diagnostic emitted when expecting a '{near.severity}'"))
        else:
            problems.append(_with(d, f"unexpected {d.severity}: {d.message}"))
    for e in expected:
        if not e.matched:
            problems.append(_with(e.at, f'expected {e.severity} "{e.text}" was not produced'))
    return problems


def _with(d: Diagnostic, message: str) -> Diagnostic:
    """An error with ``message`` at the position of ``d``."""
    return Diagnostic("error", message, d.filename, d.line, d.column, d.source_line)
