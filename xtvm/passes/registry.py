"""Name → factory map of every xtvm pass and lowering (kebab-case names).

Factories import on demand so that ``xtvm-opt`` starts fast; a new pass is
one line here plus its module.
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(import_module(module), cls)


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
}
