"""Name → factory map of xtvm's dialects.

Factories import on demand, so a tool only pays for the dialects its input
uses. Add a dialect with one line.
"""

from collections.abc import Callable

from xdsl.ir import Dialect


def _relay() -> Dialect:
    from xtvm.dialects.relay import RELAY

    return RELAY


def _tir() -> Dialect:
    from xtvm.dialects.tir import TIR

    return TIR


def _memory() -> Dialect:
    from xtvm.dialects.memory import MEMORY

    return MEMORY


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "relay": _relay,
    "tir": _tir,
    "memory": _memory,
}
