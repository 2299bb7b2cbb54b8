"""``relay-simplify-expr``: local algebraic simplifications, as declarative rules.

TVM's ``relay.transform.SimplifyExpr``. Each rule is a few lines of the
:mod:`xtvm.rewrite` DSL; a rule fires only when its replacement has exactly
the matched op's type, so ``add(x, zeros)`` where the zeros broadcast ``x``
to a larger shape is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtvm.dialects.relay import (
    AddOp,
    ConstOp,
    DivideOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    SubtractOp,
    TransposeOp,
)
from xtvm.rewrite import (
    Pat,
    Rule,
    apply_rules,
    composed_permutation,
    const_value,
    documents_rules,
    identity_permutation,
    inverse_permutations,
    rewrite,
    static_shape,
)


def _const(name: str = "c") -> Pat:
    return Pat(ConstOp, name=name)


RULES: list[Rule] = [
    rewrite(
        Pat(AddOp, "x", _const(), commutative=True),
        when=[const_value("c", 0.0)],
        to="x",
        name="add-zero",
        doc="x + 0 = 0 + x = x",
    ),
    rewrite(
        Pat(SubtractOp, "x", _const()),
        when=[const_value("c", 0.0)],
        to="x",
        name="subtract-zero",
        doc="x - 0 = x",
    ),
    rewrite(
        Pat(MultiplyOp, "x", _const(), commutative=True),
        when=[const_value("c", 1.0)],
        to="x",
        name="multiply-one",
        doc="x * 1 = 1 * x = x",
    ),
    rewrite(
        Pat(DivideOp, "x", _const()),
        when=[const_value("c", 1.0)],
        to="x",
        name="divide-one",
        doc="x / 1 = x",
    ),
    rewrite(
        Pat(ReluOp, Pat(ReluOp, "x", name="inner")),
        to="inner",
        name="relu-relu",
        doc="relu(relu(x)) = relu(x)",
    ),
    rewrite(
        Pat(ReshapeOp, "x"),
        when=[static_shape("x")],
        to="x",
        name="reshape-noop",
        doc="reshape(x) = x when the shape is unchanged (the result-type check)",
    ),
    rewrite(
        Pat(ReshapeOp, Pat(ReshapeOp, "x")),
        when=[static_shape("root")],
        to=lambda x, root: ReshapeOp.to_shape(x, root.result.type.get_shape()),
        name="reshape-reshape",
        doc="reshape(reshape(x)) = reshape(x) to the outer shape",
    ),
    rewrite(
        Pat(TransposeOp, "x"),
        when=[identity_permutation("root")],
        to="x",
        name="transpose-identity",
        doc="transpose(x, identity) = x",
    ),
    rewrite(
        Pat(TransposeOp, Pat(TransposeOp, "x", name="inner")),
        when=[inverse_permutations("inner", "root")],
        to="x",
        name="transpose-inverse",
        doc="transpose(transpose(x, p), inverse(p)) = x",
    ),
    rewrite(
        Pat(TransposeOp, Pat(TransposeOp, "x", name="inner")),
        to=lambda x, inner, root: TransposeOp(x, composed_permutation(inner, root)),
        name="transpose-transpose",
        doc="transpose(transpose(x, p), q) = transpose(x, p then q)",
    ),
]


@documents_rules(RULES)
@dataclass(frozen=True)
class SimplifyExprPass(ModulePass):
    """Apply the algebraic simplifications listed below until none matches.

    Input: relay IR.

    Output: no ``add``/``subtract`` of an all-zero constant, ``multiply``/
    ``divide`` by an all-one constant, ``relu`` of a ``relu``, reshape to the
    same static shape, chained reshapes of a static result, identity or
    chained transposes is left, unless removing it would change the value's
    type (broadcasting by the constant). Dead pure ops are erased.

    Invariants: every value keeps its type; results are unchanged (up to the
    sign of a floating-point zero, as in TVM).

    ```mlir
    %z = relay.const dense<0.0> : tensor<4xf32>
    %a = relay.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = relay.transpose %a {axes = array<i64: 1, 0>} : ...
    %u = relay.transpose %t {axes = array<i64: 1, 0>} : ...
    func.return %u : tensor<4xf32>
    // becomes
    func.return %x : tensor<4xf32>
    ```
    """

    name = "relay-simplify-expr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, RULES)
