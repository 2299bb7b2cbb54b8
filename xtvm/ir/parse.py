"""Parse textual IR so that every op knows where it came from.

xDSL's parser keeps an op's source position only while it parses; the op
itself gets an unknown location unless the text spells ``loc(...)``. The
:class:`LocatedParser` here attaches a builtin ``FileLineColLoc(file, line,
col)`` to every op it parses without one, so verifiers, passes and tools can
say where a problem is (:func:`xtvm.ir.location_of`). Locations print only
with ``--print-debuginfo``; ordinary output is unchanged.

```python
from xtvm.ir.parse import parse_module

module = parse_module(open("model.mlir").read(), "model.mlir")
```

The weights in the text (``dense_resource`` blobs, :mod:`xtvm.ir.resources`)
become dense constants as the module is parsed.

:func:`split_input` cuts a file at ``// -----`` (``--split-input-file``) and
pads each piece so that line and column numbers stay those of the file.
"""

from __future__ import annotations

import re

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span

SPLIT_MARKER = "// -----"
"""What ``--split-input-file`` cuts at (anywhere in the text, as xDSL does)."""


class LocatedParser(Parser):
    """xDSL's parser, attaching ``FileLineColLoc`` to ops without ``loc(...)``."""

    _line_start = 0
    """Position and 1-based number of the last line an op started on: ops
    start in increasing order, so counting newlines from there keeps parsing
    linear (xDSL's ``Span.get_location`` counts from the file's start)."""
    _line = 1

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except ParseError as e:
            raise _at_op_name(e) from None
        # errors raised while building the op's attributes are placed at the op
        except VerifyException as e:  # an attribute that does not verify
            raise ParseError(span, str(e)) from None
        except (OverflowError, MemoryError, NotImplementedError) as e:
            # xDSL materialises huge dense splats, and has no bytes for f80
            default = "out of memory" if isinstance(e, MemoryError) else "xDSL cannot represent it"
            what = str(e) or default
            raise ParseError(span, f"cannot build this value: {what}") from None
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(span.input.content, span.input.name, span.start)
        return op

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        span = self._current_token.span
        attr = super().parse_optional_builtin_int_or_float_attr()
        if isinstance(attr, FloatAttr):
            try:  # xDSL prints a float by packing it: types it cannot pack (f80, tf32) fail there
                attr.type.pack([attr.value.data])
            except (NotImplementedError, AttributeError):
                self.raise_error(
                    f"a float attribute of type {attr.type} cannot be represented "
                    "(xDSL has no storage format for it)",
                    span,
                )
        return attr

    def _location(self, text: str, filename: str, pos: int) -> FileLineColLoc:
        if pos < self._line_start:
            self._line_start, self._line = 0, 1
        self._line += text.count("\n", self._line_start, pos)
        self._line_start = text.rfind("\n", 0, pos) + 1
        column = pos - self._line_start + 1
        return FileLineColLoc(StringAttr(filename), IntAttr(self._line), IntAttr(column))


_UNREGISTERED = re.compile(r"Operation (\S+) is not registered")


def _at_op_name(e: ParseError) -> ParseError:
    """xDSL reports an unregistered op at the token after its name; point at
    the name instead (the last occurrence before that token)."""
    m = _UNREGISTERED.fullmatch(e.msg)
    if m is None:
        return e
    start = e.span.input.content.rfind(m.group(1), 0, e.span.start)
    if start == -1:
        return e
    return ParseError(Span(start, start + len(m.group(1)), e.span.input), e.msg)


def default_context() -> Context:
    """A context with every xDSL and xtvm dialect registered (lazily)."""
    from xtvm.driver.pipeline import mlir_context

    return mlir_context()


def parse_module(text: str, filename: str = "<string>", ctx: Context | None = None) -> ModuleOp:
    """Parse ``text`` (named ``filename`` in locations and errors) into a module
    whose ops carry their ``file:line:col``, its ``dense_resource`` weights
    turned into dense constants (:func:`xtvm.ir.resources.parse_with_resources`).
    Raises xDSL's ``ParseError``."""
    from xtvm.ir.resources import parse_with_resources

    check_lexically(text, filename)
    parser = LocatedParser(ctx or default_context(), text, filename)
    return parse_with_resources(parser.parse_module, text, filename)


MAX_INTEGER_WIDTH = (1 << 24) - 1
"""MLIR's widest integer type (``i16777215``)."""

_WIDE_INTEGER = re.compile(r"(?:(?<![\w$.%@#^-])|(?<=[0-9?]x))[su]?i(\d{8,})\b")
_STRING_LINE = re.compile(r'(?:[^"/\n]|/(?!/)|"(?:[^"\\\n]|\\.)*")*(?://[^\n]*)?')


def check_lexically(text: str, filename: str) -> None:
    """Refuse, at their position, what would make xDSL's lexer and attribute
    parser take exponential time or gigabytes before failing: an integer type
    wider than MLIR allows (``i4294967295``), and a string literal left open
    at the end of its line (xDSL's string regex backtracks on it). Both scans
    are linear and touch only the lines that can hold such a thing."""
    from xdsl.utils.lexer import Input, Span

    source = Input(text, filename)
    for match in _WIDE_INTEGER.finditer(text):
        if int(match.group(1)) > MAX_INTEGER_WIDTH:
            raise ParseError(
                Span(match.start(), match.end(), source),
                f"integer width {int(match.group(1))} is larger than MLIR's {MAX_INTEGER_WIDTH}",
            )
    start = 0
    for line in text.split("\n"):
        if line.count('"') % 2:  # an even count may still hide one: checked below
            matched = _STRING_LINE.match(line)
            if matched is not None and matched.end() < len(line):
                at = start + matched.end()
                raise ParseError(Span(at, at + 1, source), "string literal is not terminated")
        start += len(line) + 1



def split_input(text: str) -> list[str]:
    """``text`` cut at every ``// -----``; each piece is padded with the newlines
    and spaces before it, so its positions are those of the whole file."""
    pieces = text.split(SPLIT_MARKER)
    chunks = [pieces[0]]
    consumed = len(pieces[0])
    for piece in pieces[1:]:
        consumed += len(SPLIT_MARKER)
        before = text[:consumed]
        column = consumed - (before.rfind("\n") + 1)
        chunks.append("\n" * before.count("\n") + " " * column + piece)
        consumed += len(piece)
    return chunks
