"""Diagnostics: what is wrong, how bad, and where (MLIR's ``Diagnostic``).

Three things produce them, and the tools print them all the same way,
``file:line:col: error: message`` followed by the source line and a caret:

* a parse error (:meth:`Diagnostic.from_parse_error`);
* a verifier: :func:`verify_module` checks every op and reports each op that
  fails (not only the first, as ``Operation.verify`` does), at the op's
  location;
* a failed pass (:func:`failure_diagnostic`), placed at the op it is about.

The location of an op is its ``FileLineColLoc`` (which :mod:`xtvm.ir.parse`
attaches when parsing) or, for an op a pass created, that of its nearest
ancestor that has one. A diagnostic without a location (IR built in Python)
prints ``error: message``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import ParseError, VerifyException

SEVERITIES = ("error", "warning", "note", "remark")
"""MLIR's diagnostic severities; xtvm emits errors today."""

TOO_DEEP = "the IR is nested too deeply for xDSL's recursive parser and walkers"
"""The message for a ``RecursionError`` while parsing or transforming IR."""


@dataclass(frozen=True)
class Diagnostic:
    """One message, its severity and its source position (line 0: unknown)."""

    severity: str
    message: str
    filename: str | None = None
    line: int = 0
    column: int = 0
    source_line: str | None = None
    """The text of the line, when the producer had the source at hand."""

    @property
    def where(self) -> str | None:
        """``file:line:col``, or None for an unknown location."""
        if self.filename is None or self.line == 0:
            return None
        return f"{self.filename}:{self.line}:{self.column}"

    @staticmethod
    def at(op: Operation, message: str, severity: str = "error") -> Diagnostic:
        """A diagnostic at ``op`` (or its nearest located ancestor)."""
        loc = located_ancestor(op)
        if loc is None:
            return Diagnostic(severity, message)
        return Diagnostic(severity, message, loc.filename.data, loc.line.data, loc.column.data)

    @staticmethod
    def from_parse_error(e: ParseError) -> Diagnostic:
        """The parse error's message at the start of its span."""
        filename, line, column = e.span.get_location()
        text = e.span.input.content
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return Diagnostic("error", e.msg, filename, line, column).with_source(text)

    def with_source(self, text: str) -> Diagnostic:
        """This diagnostic with its source line taken from ``text`` (the whole
        file its line number counts in)."""
        lines = text.split("\n")
        if not 0 < self.line <= len(lines):
            return self
        return Diagnostic(
            self.severity, self.message, self.filename, self.line, self.column,
            lines[self.line - 1].rstrip("\r"),
        )

    def render(self) -> str:
        """``file:line:col: severity: message``, then the source line and a
        caret (``file: severity: message`` when only the file is known)."""
        head = f"{self.where or self.filename}: " if self.filename else ""
        text = f"{head}{self.severity}: {self.message}"
        if self.source_line is not None:
            text += f"\n{self.source_line}\n{' ' * max(self.column - 1, 0)}^"
        return text


class InvalidIRError(VerifyException):
    """Verification failed; ``diagnostics`` holds one entry per failing op."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.render() for d in diagnostics))
        self.diagnostics = diagnostics


def located_ancestor(op: Operation) -> FileLineColLoc | None:
    """The location of ``op`` or of its nearest ancestor that has one."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current.location, FileLineColLoc):
            return current.location
        current = current.parent_op()
    return None


def verify_ops(root: Operation) -> list[Diagnostic]:
    """Verify ``root`` and everything nested in it; one diagnostic per failing op.

    As in ``Operation.verify``, nested ops are checked before the op holding
    them, and an op whose contents fail is not checked itself (its verifier
    may assume valid contents); unlike it, checking goes on after a failure,
    so every independent error is reported."""
    diagnostics: list[Diagnostic] = []

    def visit(op: Operation) -> bool:
        contents_ok = True
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    contents_ok = visit(child) and contents_ok
        if not contents_ok:
            return False
        try:
            op.verify(verify_nested_ops=False)
            for region in op.regions:
                for block in region.blocks:
                    if block.first_op is None:
                        block.verify()  # xDSL's "empty block needs a terminator" rule
        except Exception as e:  # noqa: BLE001 - see _verify_error
            error = _verify_error(e)
            if error is None:
                raise
            diagnostics.append(Diagnostic.at(op, str(error)))
            return False
        return True

    visit(root)
    return diagnostics


def _verify_error(e: BaseException) -> VerifyException | None:
    """The verifier's error behind ``e``: xDSL prints the whole module into a
    failing op's error, and when printing fails (an attribute xDSL cannot
    print, such as an ``f128`` float) the printer's exception replaces it."""
    seen: BaseException | None = e
    while seen is not None and not isinstance(seen, VerifyException):
        seen = seen.__context__
    return seen


def verify_module(module: Operation) -> None:
    """Raise :class:`InvalidIRError` listing every failing op, if any."""
    if diagnostics := verify_ops(module):
        raise InvalidIRError(diagnostics)


_SYMBOL = re.compile(r"@([\w.$-]+)")


def failing_op(module: ModuleOp, error: Exception) -> Operation | None:
    """The op a pass failure is about: the exception's ``op`` attribute if it
    has one; else the op whose text the message prints (xtvm's passes print
    the op they reject; when the pass changed the op's types since, its
    results and name, ``%s = relay.add``, still identify it); else the symbol
    the message names (``@f``)."""
    op = getattr(error, "op", None)
    if isinstance(op, Operation):
        return op
    message = str(error)
    lines = [line.strip() for line in message.splitlines()]
    same_results: Operation | None = None
    for candidate in module.walk():
        if candidate is module or candidate.name not in message:
            continue
        text = str(candidate).split("\n", 1)[0].strip()
        if any(line.endswith(text) for line in lines):
            return candidate
        if candidate.results and same_results is None and text.startswith("%"):
            head = text[: text.find(candidate.name) + len(candidate.name)]
            if any(head in line for line in lines):
                same_results = candidate
    if same_results is not None:
        return same_results
    for name in _SYMBOL.findall(message):
        if (symbol := SymbolTable.lookup_symbol(module, name)) is not None:
            return symbol
    return None


def failure_diagnostic(module: ModuleOp, error: Exception, filename: str | None = None) -> Diagnostic:
    """A failed pass's error at the op it is about; if none is found, at an
    unknown line of ``filename``."""
    op = failing_op(module, error)
    message = str(error)
    if op is not None and (found := Diagnostic.at(op, message)).where is not None:
        return found
    return Diagnostic("error", message, filename)
