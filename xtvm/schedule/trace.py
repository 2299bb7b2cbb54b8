"""The textual schedule trace: one instruction per string, replayed on a
`Schedule` (what `Schedule.trace` records and `tir-apply-schedule` reads).

    split C.i [None, 16]          C.i → C.i.0, C.i.1 (None: inferred factor)
    split_tail C.i 8              C.i (run-time extent) → C.i.0, C.i.1 (8), tail C.i.t
    fuse C.i C.j                  → C.i_j_fused
    reorder C.j C.i
    tile C.i C.j [8, 16]          → C.i.0 C.j.0 C.i.1 C.j.1
    vectorize C.j.1
    parallel C.i.0
    unroll C.i.1
    cache_write C C.j.0           → init D_acc.i.1_init, update D_acc.i.1, write-back C.i.1_wb
    compute_inline B
    compute_at B C.i [local]      B in a buffer of its region under C.i with `local`
    transform_layout W (d0, d1) -> (d0 floordiv 8, d1, d0 mod 8)

A loop is `BLOCK.VAR`: the loop with variable VAR among those enclosing the
stores into buffer BLOCK. Factors are integers (or `None` for split).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from xtvm.schedule.error import ScheduleError
from xtvm.schedule.schedule import LoopRV, Schedule

_TOKEN = re.compile(r"\[[^\]]*\]|\S+")


def _factors(token: str, allow_none: bool) -> list[int | None]:
    if not (token.startswith("[") and token.endswith("]")):
        raise ScheduleError(f"expected a factor list like [4, 8], got '{token}'")
    factors: list[int | None] = []
    for item in filter(None, (t.strip() for t in token[1:-1].split(","))):
        if item == "None" and allow_none:
            factors.append(None)
        elif re.fullmatch(r"-?\d+", item):
            factors.append(int(item))
        else:
            raise ScheduleError(
                f"factor '{item}' is not an integer{' or None' if allow_none else ''}"
            )
    return factors


def _expect(args: list[str], count: int | None, usage: str) -> None:
    if (count is None and not args) or (count is not None and len(args) != count):
        raise ScheduleError(f"expected: {usage}")


def _split(sch: Schedule, args: list[str]) -> None:
    _expect(args, 2, "split BLOCK.VAR [FACTORS]")
    sch.split(sch.loop(args[0]), _factors(args[1], allow_none=True))


def _split_tail(sch: Schedule, args: list[str]) -> None:
    _expect(args, 2, "split_tail BLOCK.VAR FACTOR")
    (factor,) = _factors(f"[{args[1]}]", allow_none=False)
    assert factor is not None
    sch.split_tail(sch.loop(args[0]), factor)


def _fuse(sch: Schedule, args: list[str]) -> None:
    _expect(args, None, "fuse BLOCK.VAR BLOCK.VAR...")
    sch.fuse(*(sch.loop(a) for a in args))


def _reorder(sch: Schedule, args: list[str]) -> None:
    _expect(args, None, "reorder BLOCK.VAR BLOCK.VAR...")
    sch.reorder(*(sch.loop(a) for a in args))


def _tile(sch: Schedule, args: list[str]) -> None:
    _expect(args, None, "tile BLOCK.VAR... [FACTORS]")
    loops: list[LoopRV | int] = [sch.loop(a) for a in args[:-1]]
    factors = _factors(args[-1], allow_none=False)
    if len(factors) != len(loops):
        raise ScheduleError(f"tile: {len(loops)} loops but {len(factors)} factors")
    sch.tile(*loops, *factors)  # type: ignore[arg-type]


def _kind(method: str) -> Callable[[Schedule, list[str]], None]:
    def apply(sch: Schedule, args: list[str]) -> None:
        _expect(args, 1, f"{method} BLOCK.VAR")
        getattr(sch, method)(sch.loop(args[0]))

    return apply


def _cache_write(sch: Schedule, args: list[str]) -> None:
    _expect(args, 2, "cache_write BLOCK BLOCK.VAR")
    sch.cache_write(args[0], sch.loop(args[1]))


def _compute_inline(sch: Schedule, args: list[str]) -> None:
    _expect(args, 1, "compute_inline BLOCK")
    sch.compute_inline(args[0])


def _compute_at(sch: Schedule, args: list[str]) -> None:
    local = args[2:] == ["local"]
    _expect(args[:2] if local else args, 2, "compute_at BLOCK BLOCK.VAR [local]")
    sch.compute_at(args[0], sch.loop(args[1]), local)


def _transform_layout(sch: Schedule, args: list[str]) -> None:
    _expect(args, None, "transform_layout BUFFER (d0, ...) -> (...)")
    text = " ".join(args[1:])
    try:
        attr = Parser(Context(), f"affine_map<{text}>").parse_attribute()
    except ParseError:
        raise ScheduleError(
            f"'{text}' is not an affine map like (d0, d1) -> (d0 floordiv 8, d1, d0 mod 8)"
        ) from None
    assert isinstance(attr, AffineMapAttr)
    sch.transform_layout(args[0], attr.data)


INSTRUCTIONS: dict[str, Callable[[Schedule, list[str]], None]] = {
    "split": _split,
    "split_tail": _split_tail,
    "fuse": _fuse,
    "reorder": _reorder,
    "tile": _tile,
    "vectorize": _kind("vectorize"),
    "parallel": _kind("parallel"),
    "unroll": _kind("unroll"),
    "cache_write": _cache_write,
    "compute_inline": _compute_inline,
    "compute_at": _compute_at,
    "transform_layout": _transform_layout,
}
"""Instruction name → how to replay it (arguments are the whitespace-separated tokens)."""


def apply_instruction(sch: Schedule, text: str) -> None:
    """Replay one textual instruction on `sch`; a ScheduleError when it is
    malformed or does not apply."""
    name, _, rest = text.strip().partition(" ")
    if name not in INSTRUCTIONS:
        raise ScheduleError(f"unknown instruction '{name}' (known: {', '.join(INSTRUCTIONS)})")
    INSTRUCTIONS[name](sch, _TOKEN.findall(rest))
