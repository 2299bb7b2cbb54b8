"""A regular expression compiled at import time into a byte-level DFA, for
``RegexFullMatch`` (pure Python, no IR).

The pattern is parsed by Python's own regex parser (``re._parser``; RE2's
syntax, which ONNX names, agrees on what the node tests use) into a
Thompson NFA over UTF-8 bytes, then determinized by subset construction.
Classes follow RE2: ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII; ``.``
and negated classes consume a whole UTF-8 character. Anchors and word
boundaries are conditions on the neighbouring characters, so a DFA state is
(the NFA states not yet closed over conditions, whether the previous
character is a word character, whether it is the start); the closure is
taken when the next byte (or the end) is known. The result is a transition
table ``[states, 256]`` (byte 0, the padding of xtvm's string tensors,
keeps the state), the accepting states at the end of the string, and state
0 as the start. Backreferences and lookaround are refused
(:class:`RegexError`), as RE2 refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

try:  # Python 3.11 keeps the parser in re._parser
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older layouts
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

MAX_STATES = 4096
"""The most DFA states a pattern may need (a larger one is refused)."""

WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
DIGIT = frozenset(b"0123456789")
SPACE = frozenset(b" \t\n\r\x0b\x0c")
ASCII = frozenset(range(1, 128))
CONT = frozenset(range(0x80, 0xC0))


class RegexError(ValueError):
    """A pattern this compiler does not handle."""


@dataclass
class _Nfa:
    edges: list[list[tuple[frozenset[int], int]]] = field(default_factory=list)
    eps: list[list[tuple[str | None, int]]] = field(default_factory=list)

    def state(self) -> int:
        self.edges.append([])
        self.eps.append([])
        return len(self.edges) - 1


@dataclass(frozen=True)
class _Class:
    """A character class: the ASCII bytes it holds, and whether it holds
    every non-ASCII character."""

    ascii: frozenset[int]
    other: bool


def _category(name: object) -> _Class:
    table = {
        C.CATEGORY_WORD: _Class(WORD, False),
        C.CATEGORY_NOT_WORD: _Class(ASCII - WORD, True),
        C.CATEGORY_DIGIT: _Class(DIGIT, False),
        C.CATEGORY_NOT_DIGIT: _Class(ASCII - DIGIT, True),
        C.CATEGORY_SPACE: _Class(SPACE, False),
        C.CATEGORY_NOT_SPACE: _Class(ASCII - SPACE, True),
    }
    if name not in table:
        raise RegexError(f"unsupported category {name}")
    return table[name]


class _Builder:
    def __init__(self) -> None:
        self.nfa = _Nfa()

    def frag(self, items: list) -> tuple[int, int]:
        """The NFA fragment ``(start, end)`` of a parsed sequence."""
        start = end = self.nfa.state()
        for op, arg in items:
            s, e = self.item(op, arg)
            self.nfa.eps[end].append((None, s))
            end = e
        return start, end

    def bytes_chain(self, sets: list[frozenset[int]]) -> tuple[int, int]:
        start = cur = self.nfa.state()
        for byte_set in sets:
            nxt = self.nfa.state()
            self.nfa.edges[cur].append((byte_set, nxt))
            cur = nxt
        return start, cur

    def char_class(self, cls: _Class) -> tuple[int, int]:
        """One character of ``cls``: an ASCII byte, or (when ``other``) a
        whole multi-byte UTF-8 character."""
        start, end = self.nfa.state(), self.nfa.state()
        if cls.ascii:
            self.nfa.edges[start].append((cls.ascii, end))
        if cls.other:
            for lead, tail in (
                (range(0xC2, 0xE0), 1),
                (range(0xE0, 0xF0), 2),
                (range(0xF0, 0xF5), 3),
            ):
                s, e = self.bytes_chain([frozenset(lead), *[CONT] * tail])
                self.nfa.eps[start].append((None, s))
                self.nfa.eps[e].append((None, end))
        return start, end

    def literal(self, code: int) -> tuple[int, int]:
        return self.bytes_chain([frozenset([b]) for b in chr(code).encode()])

    def item(self, op: object, arg: object) -> tuple[int, int]:
        if op is C.LITERAL:
            return self.literal(arg)  # type: ignore[arg-type]
        if op is C.NOT_LITERAL:
            if arg >= 128:  # type: ignore[operator]
                raise RegexError("a negated non-ASCII literal is not supported")
            return self.char_class(_Class(ASCII - {arg}, True))  # type: ignore[arg-type]
        if op is C.ANY:
            return self.char_class(_Class(ASCII - {10}, True))
        if op is C.IN:
            return self.char_class(self.in_class(arg))  # type: ignore[arg-type]
        if op is C.BRANCH:
            start, end = self.nfa.state(), self.nfa.state()
            for alternative in arg[1]:  # type: ignore[index]
                s, e = self.frag(list(alternative))
                self.nfa.eps[start].append((None, s))
                self.nfa.eps[e].append((None, end))
            return start, end
        if op is C.SUBPATTERN:
            return self.frag(list(arg[-1]))  # type: ignore[index]
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, high, body = arg  # type: ignore[misc]
            start = end = self.nfa.state()
            for _ in range(low):
                s, e = self.frag(list(body))
                self.nfa.eps[end].append((None, s))
                end = e
            if high is C.MAXREPEAT:
                s, e = self.frag(list(body))
                self.nfa.eps[end].append((None, s))
                self.nfa.eps[e].append((None, s))  # once more
                exit_ = self.nfa.state()
                self.nfa.eps[end].append((None, exit_))
                self.nfa.eps[e].append((None, exit_))
                return start, exit_
            exit_ = self.nfa.state()
            for _ in range(high - low):
                self.nfa.eps[end].append((None, exit_))
                s, e = self.frag(list(body))
                self.nfa.eps[end].append((None, s))
                end = e
            self.nfa.eps[end].append((None, exit_))
            return start, exit_
        if op is C.AT:
            conditions = {
                C.AT_BEGINNING: "start",
                C.AT_BEGINNING_STRING: "start",
                C.AT_END: "end",
                C.AT_END_STRING: "end",
                C.AT_BOUNDARY: "boundary",
                C.AT_NON_BOUNDARY: "inside",
            }
            if arg not in conditions:
                raise RegexError(f"unsupported anchor {arg}")
            start, end = self.nfa.state(), self.nfa.state()
            self.nfa.eps[start].append((conditions[arg], end))
            return start, end
        raise RegexError(f"unsupported construct {op}")

    def in_class(self, items: list) -> _Class:
        negate = False
        ascii_set: set[int] = set()
        other = False
        for op, arg in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                if arg >= 128:
                    raise RegexError("non-ASCII characters in a class are not supported")
                ascii_set.add(arg)
            elif op is C.RANGE:
                lo, hi = arg
                if hi >= 128:
                    raise RegexError("non-ASCII ranges in a class are not supported")
                ascii_set.update(range(lo, hi + 1))
            elif op is C.CATEGORY:
                cls = _category(arg)
                ascii_set |= cls.ascii
                other |= cls.other
            else:
                raise RegexError(f"unsupported class item {op}")
        if negate:
            return _Class(ASCII - ascii_set, not other)
        return _Class(frozenset(ascii_set), other)


def _holds(condition: str | None, prev_word: bool, at_start: bool, nxt: int | None) -> bool:
    next_word = nxt is not None and nxt in WORD
    if condition is None:
        return True
    if condition == "start":
        return at_start
    if condition == "end":
        return nxt is None
    boundary = prev_word != next_word
    return boundary if condition == "boundary" else not boundary


def compile_dfa(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """The DFA of a full match of ``pattern``: the transition table
    ``[states, 256]`` (int32; start state 0) and the accepting states
    (bool ``[states]``, read after the last byte)."""
    try:
        parsed = parser.parse(pattern)
    except Exception as e:  # noqa: BLE001 - re.error and friends
        raise RegexError(f"invalid pattern: {e}") from None
    if parsed.state.flags & ~(C.SRE_FLAG_UNICODE):
        raise RegexError("inline flags are not supported")
    builder = _Builder()
    start, final = builder.frag(list(parsed))
    nfa = builder.nfa

    def closure(
        states: frozenset[int], prev_word: bool, at_start: bool, nxt: int | None
    ) -> set[int]:
        seen, stack = set(states), list(states)
        while stack:
            s = stack.pop()
            for condition, t in nfa.eps[s]:
                if t not in seen and _holds(condition, prev_word, at_start, nxt):
                    seen.add(t)
                    stack.append(t)
        return seen

    keys: dict[tuple[frozenset[int], bool, bool], int] = {}
    order: list[tuple[frozenset[int], bool, bool]] = []

    def index(key: tuple[frozenset[int], bool, bool]) -> int:
        if key not in keys:
            if len(order) >= MAX_STATES:
                raise RegexError(f"the pattern needs more than {MAX_STATES} DFA states")
            keys[key] = len(order)
            order.append(key)
        return keys[key]

    index((frozenset([start]), False, True))
    rows: list[list[int]] = []
    accept: list[bool] = []
    k = 0
    while k < len(order):
        states, prev_word, at_start = order[k]
        row = [k] * 256  # byte 0: padding after the string's end
        for byte in range(1, 256):
            live = closure(states, prev_word, at_start, byte)
            moved = frozenset(t for s in live for sets, t in nfa.edges[s] if byte in sets)
            row[byte] = index((moved, byte in WORD, False))
        rows.append(row)
        accept.append(final in closure(states, prev_word, at_start, None))
        k += 1
    return np.array(rows, np.int32), np.array(accept, bool)


def full_match(table: np.ndarray, accept: np.ndarray, data: bytes) -> bool:
    """Runs the DFA on ``data`` (a NumPy check of :func:`compile_dfa`)."""
    state = 0
    for byte in data:
        state = int(table[state, byte])
    return bool(accept[state])
