"""Control flow in relay: ``relay.if`` and ``relay.while``, whose bodies are
regions, ended by ``relay.yield`` (and ``relay.condition`` for a loop's
test). TVM's Relay has ``If`` and recursive functions; xtvm uses MLIR's
region form (``scf.if``/``scf.while``) so that the bodies stay in the graph
function, read outer values directly (regions are not isolated), and every
pass that walks a function sees them.

```mlir
%r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
  %a = relay.add %x, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  relay.yield %a : tensor<5xf32>
} else {
  relay.yield %x : tensor<5xf32>
}

%i, %acc = relay.while %zero, %x0
    : (tensor<i64>, tensor<2xf32>) -> (tensor<i64>, tensor<2xf32>) cond {
^bb0(%i0: tensor<i64>, %a0: tensor<2xf32>):
  %more = relay.less %i0, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
  relay.condition %more : tensor<i1>
} do {
^bb0(%i1: tensor<i64>, %a1: tensor<2xf32>):
  %next = relay.add %i1, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %a2 = relay.multiply %a1, %a1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  relay.yield %next, %a2 : tensor<i64>, tensor<2xf32>
}
```

Conditions are ``i1`` tensors of one element (ONNX's ``If``/``Loop``
conditions: shape ``[]`` or ``[1]``). Type rules: a ``relay.if``'s results
are its branches' yielded types joined (equal element types and ranks; a
size on which the branches differ is ``?``); a ``relay.while``'s carried
values keep their types: the regions' block arguments and the results have
the carried types, the initial values and what the body yields have those
types or more precise ones (``4xf32`` for a carried ``?xf32``). Both ops
are opaque to fusion (``OPAQUE``): relay passes fuse and lower the ops
*inside* the bodies. Their semantics
(``xtvm.passes.relay.evaluate``) run one branch, or the body while the
condition holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerType, TensorType, TupleType
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator, RecursiveMemoryEffect

from xtvm.dialects.relay.base import OpPattern, RelayOp, RelayTypeError, is_refinement


def check_condition(op_name: str, ty: Attribute, what: str = "condition") -> None:
    """A condition is an ``i1`` tensor of one element; a type error naming
    the op otherwise."""
    ok = (
        isinstance(ty, TensorType)
        and isinstance(ty.element_type, IntegerType)
        and ty.element_type.width.data == 1
        and all(d == 1 for d in ty.get_shape())
    )
    if not ok:
        raise RelayTypeError(f"'{op_name}' {what} must be an i1 tensor of one element, got {ty}")


def join_types(op_name: str, a: Attribute, b: Attribute, what: str) -> Attribute:
    """The least precise type of which ``a`` and ``b`` are both forms: equal
    types stay; tensors of one element type and rank keep the sizes they
    agree on and ``?`` elsewhere; tuples join field by field."""
    if a == b:
        return a
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.types) == len(b.types):
        return TupleType(
            ArrayAttr(tuple(join_types(op_name, x, y, what) for x, y in zip(a.types, b.types)))
        )
    if (
        isinstance(a, TensorType)
        and isinstance(b, TensorType)
        and a.element_type == b.element_type
        and len(a.get_shape()) == len(b.get_shape())
    ):
        shape = [x if x == y else DYNAMIC_INDEX for x, y in zip(a.get_shape(), b.get_shape())]
        return TensorType(a.element_type, shape)
    raise RelayTypeError(f"'{op_name}' {what} have incompatible types {a} and {b}")


def _terminator(op: RelayOp, region: Region, kind: type[IRDLOperation], what: str):
    """The terminator of a single-block region, which must be a ``kind``."""
    block = region.block
    last = block.last_op
    if not isinstance(last, kind):
        raise op.error(f"{what} must end with '{kind.name}'")
    return last


def _yielded(block: Block) -> list[Attribute]:
    """The types a block's ``relay.yield`` gives (none when it has none yet)."""
    last = block.last_op
    return list(last.operand_types) if last is not None and last.name == "relay.yield" else []


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a branch of ``relay.if`` or the body of ``relay.while``, giving
    the values it produces.

    ```mlir
    relay.yield %a, %b : tensor<5xf32>, tensor<i64>
    ```
    """

    name = "relay.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, IfOp | WhileOp):
            raise RelayTypeError(
                f"'{self.name}' must end a region of 'relay.if' or 'relay.while', "
                f"not of '{parent.name if parent else 'nothing'}'"
            )


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """Ends the ``cond`` region of ``relay.while``: the loop runs its body
    again while ``condition`` holds.

    ```mlir
    relay.condition %more : tensor<i1>
    ```
    """

    name = "relay.condition"
    condition = operand_def(TensorType)
    traits = traits_def(IsTerminator())
    assembly_format = "$condition attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue):
        super().__init__(operands=[condition])

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, WhileOp) or self.parent_region() is not parent.cond_region:
            raise RelayTypeError(f"'{self.name}' must end the cond region of 'relay.while'")
        check_condition(self.name, self.condition.type)


class ControlOp(RelayOp):
    """Base of the ops with bodies: opaque to fusion, side effects those of
    their bodies, result types from the bodies (not from a rule on operand
    types alone: :meth:`inferred_types` reads the regions)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        raise RelayTypeError(f"'{cls.name}' result types come from its regions")

    def check_results(self, inferred: Sequence[Attribute]) -> None:
        declared = [r.type for r in self.results]
        if len(declared) != len(inferred) or not all(
            is_refinement(d, i) for d, i in zip(declared, inferred)
        ):
            raise self.error(
                f"result types ({', '.join(map(str, declared))}) do not match the "
                f"inferred types ({', '.join(map(str, inferred))})"
            )


@irdl_op_definition
class IfOp(ControlOp):
    """Runs ``then_region`` if ``cond`` holds, else ``else_region``; each
    ends with ``relay.yield`` of the values the op returns (see the module
    docstring for the type rule).

    ```mlir
    %r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
      relay.yield %x : tensor<5xf32>
    } else {
      relay.yield %y : tensor<5xf32>
    }
    ```
    """

    name = "relay.if"
    cond = operand_def(TensorType)
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    assembly_format = (
        "$cond attr-dict `:` type($cond) `->` `(` type($res) `)` $then_region `else` $else_region"
    )

    def __init__(
        self,
        cond: SSAValue,
        then_block: Block,
        else_block: Block,
        result_types: Sequence[Attribute] | None = None,
    ):
        """The op on two filled branch blocks (each ending in
        ``relay.yield``); results of the joined yield types by default."""
        if result_types is None:
            result_types = self.join_branches(_yielded(then_block), _yielded(else_block))
        IRDLOperation.__init__(
            self,
            operands=[cond],
            result_types=[list(result_types)],
            regions=[Region(then_block), Region(else_block)],
        )

    @classmethod
    def join_branches(
        cls, then_types: Sequence[Attribute], else_types: Sequence[Attribute]
    ) -> list[Attribute]:
        """The result types of branches yielding ``then_types`` and ``else_types``."""
        if len(then_types) != len(else_types):
            raise RelayTypeError(
                f"'{cls.name}' branches yield {len(then_types)} and {len(else_types)} values"
            )
        return [
            join_types(cls.name, a, b, f"branch results #{i}")
            for i, (a, b) in enumerate(zip(then_types, else_types))
        ]

    def inferred_types(self) -> list[Attribute]:
        then_yield = _terminator(self, self.then_region, YieldOp, "the then region")
        else_yield = _terminator(self, self.else_region, YieldOp, "the else region")
        return self.join_branches(then_yield.values.types, else_yield.values.types)

    def verify_(self) -> None:
        check_condition(self.name, self.cond.type)
        for region, what in ((self.then_region, "then"), (self.else_region, "else")):
            if region.block.args:
                raise self.error(f"the {what} region takes no arguments")
        self.check_results(self.inferred_types())


@irdl_op_definition
class WhileOp(ControlOp):
    """A loop over carried values: starting from ``inits``, while
    ``cond_region`` (on the carried values) ends in a true
    ``relay.condition``, ``body`` (on the carried values) yields the next
    ones; the results are the last carried values. ``cond_region`` runs
    before each iteration, so the body may run zero times.

    ```mlir
    %n1 = relay.while %n0 : (tensor<i64>) -> (tensor<i64>) cond {
    ^bb0(%a: tensor<i64>):
      %c = relay.less %a, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>
      relay.condition %c : tensor<i1>
    } do {
    ^bb0(%b: tensor<i64>):
      %b1 = relay.add %b, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
      relay.yield %b1 : tensor<i64>
    }
    ```
    """

    name = "relay.while"
    inits = var_operand_def()
    res = var_result_def()
    cond_region = region_def("single_block")
    body = region_def("single_block")
    assembly_format = (
        "$inits attr-dict `:` functional-type($inits, $res) `cond` $cond_region `do` $body"
    )

    def __init__(self, inits: Sequence[SSAValue], cond_block: Block, body_block: Block):
        """The loop on filled blocks whose arguments have the carried types
        (those of ``inits``, or less precise ones); results of those types."""
        IRDLOperation.__init__(
            self,
            operands=[list(inits)],
            result_types=[list(body_block.arg_types)],
            regions=[Region(cond_block), Region(body_block)],
        )

    def carried_types(self) -> list[Attribute]:
        """The types of the carried values: the body's arguments."""
        return list(self.body.block.arg_types)

    def inferred_types(self) -> list[Attribute]:
        return self.carried_types()

    def verify_(self) -> None:
        carried = self.carried_types()
        shown = ", ".join(map(str, carried))
        inits = list(self.inits.types)
        if len(inits) != len(carried) or not all(
            is_refinement(c, i) for c, i in zip(carried, inits)
        ):
            raise self.error(
                f"the initial values ({', '.join(map(str, inits))}) do not fit the carried "
                f"values ({shown})"
            )
        args = list(self.cond_region.block.arg_types)
        if args != carried:
            raise self.error(
                f"the cond region's arguments ({', '.join(map(str, args))}) must have "
                f"the types of the carried values ({shown})"
            )
        _terminator(self, self.cond_region, ConditionOp, "the cond region")
        yielded = list(_terminator(self, self.body, YieldOp, "the body").values.types)
        if len(yielded) != len(carried) or not all(
            is_refinement(c, y) for c, y in zip(carried, yielded)
        ):
            raise self.error(
                f"the body yields ({', '.join(map(str, yielded))}), but the carried values "
                f"have types ({shown}), which a loop keeps"
            )
        self.check_results(carried)


CONTROL_OPS: list[type[IRDLOperation]] = [IfOp, WhileOp, YieldOp, ConditionOp]

