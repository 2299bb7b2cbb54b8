"""``relay-dead-code-elimination``: drop unused relay values and functions.

TVM's ``relay.transform.DeadCodeElimination``: a pure relay op whose results
are unused is erased, and so is a call of a ``relay.primitive`` function;
then a private function that no symbol reference names any more is erased.
Both repeat until nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from xtvm.dialects.relay import RelayOp
from xtvm.dialects.relay.primitive import is_primitive

def _symbol_refs(attr: Attribute) -> Iterator[str]:
    if isinstance(attr, SymbolRefAttr):
        yield attr.root_reference.data
    elif isinstance(attr, ArrayAttr):
        for a in attr.data:
            yield from _symbol_refs(a)
    elif isinstance(attr, DictionaryAttr):
        for a in attr.data.values():
            yield from _symbol_refs(a)


def _referenced_symbols(module: ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.walk():
        for attr in (*op.properties.values(), *op.attributes.values()):
            names.update(_symbol_refs(attr))
    return names


def _is_removable(op: Operation, primitives: set[str]) -> bool:
    if any(r.uses for r in op.results):
        return False
    if isinstance(op, RelayOp):
        return op.has_trait(Pure)
    return isinstance(op, func.CallOp) and op.callee.root_reference.data in primitives


def _erase_dead_ops(module: ModuleOp, primitives: set[str]) -> None:
    # Reverse program order: erasing a user first can make its producers dead.
    for op in list(module.walk(reverse=True)):
        if _is_removable(op, primitives):
            op.detach()
            op.erase()


def _erase_dead_functions(module: ModuleOp) -> bool:
    used = _referenced_symbols(module)
    dead = [
        f
        for f in module.ops
        if isinstance(f, func.FuncOp)
        and f.sym_visibility is not None
        and f.sym_visibility.data == "private"
        and f.sym_name.data not in used
    ]
    for f in dead:
        f.detach()
        f.erase()
    return bool(dead)


@dataclass(frozen=True)
class DeadCodeEliminationPass(ModulePass):
    """Erase unused pure relay ops, unused fused calls and unused private functions.

    Input: any module.

    Output: no pure relay op (nor ``func.call`` of a ``relay.primitive``
    function) has unused results; every private ``func.func`` is referenced
    by a symbol somewhere in the module.

    Invariants: public functions, ops with side effects (``relay.call_lowered``,
    calls of ordinary functions) and everything used by them are kept.

    ```mlir
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %unused = relay.nn.relu %x : tensor<2xf32>
      func.return %x : tensor<2xf32>
    }
    func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> { ... }
    // becomes
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      func.return %x : tensor<2xf32>
    }
    ```
    """

    name = "relay-dead-code-elimination"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Erasing a function can leave its callees unreferenced: repeat.
        while True:
            primitives = {
                f.sym_name.data
                for f in op.ops
                if is_primitive(f)
            }
            _erase_dead_ops(op, primitives)
            if not _erase_dead_functions(op):
                return
