"""Name → factory map of xtvm's dialects.

Factories import on demand, so a tool only pays for the dialects its input
uses. Add a dialect with one line.
"""

from collections.abc import Callable

from xdsl.ir import Dialect


def _relay() -> Dialect:
    from xtvm.dialects.relay import RELAY

    return RELAY


def _qnn() -> Dialect:
    from xtvm.dialects.qnn import QNN

    return QNN


def _tir() -> Dialect:
    from xtvm.dialects.tir import TIR

    return TIR


def _memory() -> Dialect:
    from xtvm.dialects.memory import MEMORY

    return MEMORY


def _vm() -> Dialect:
    from xtvm.dialects.vm import VM

    return VM


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "relay": _relay,
    "qnn": _qnn,
    "tir": _tir,
    "memory": _memory,
    "vm": _vm,
}
