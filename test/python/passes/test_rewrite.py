"""The declarative rewrite DSL: patterns compile, user rules take a few lines."""

from __future__ import annotations

import numpy as np
import pytest
from relay_graphs import GraphBuilder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.pattern_rewriter import PatternRewriteWalker, RewritePattern
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.relay import AddOp, ConstOp, MultiplyOp, NegativeOp, ReluOp, SubtractOp
from xtvm.dialects.relay.base import RelayOp
from xtvm.constants import const_from_numpy, numpy_from_const
from xtvm.passes.relay.evaluate import evaluate_function
from xtvm.rewrite import (
    Pat,
    apply_rules,
    const_value,
    documents_rules,
    match,
    rewrite,
    same_type,
    static_shape,
)
from xtvm.rewrite.rule import RuleApplier

T4 = TensorType(f32, [4])


def _ops(module: ModuleOp) -> list[str]:
    main = next(iter(module.ops))
    assert isinstance(main, func.FuncOp)
    return [op.name for op in main.body.block.ops]


def test_user_rule_in_a_few_lines() -> None:
    # x * 2 -> x + x
    times_two = rewrite(
        Pat(MultiplyOp, "x", Pat(ConstOp, name="c"), commutative=True),
        when=[const_value("c", 2.0)],
        to=lambda x: AddOp(x, x),
        name="times-two",
    )
    g = GraphBuilder(T4)
    two = g.const(np.full(4, 2, np.float32))
    y = g.add(MultiplyOp(two, g.args[0]))
    module = g.module([g.add(ReluOp(y))])
    x = np.arange(-2, 2, dtype=np.float32)
    expected = evaluate_function(module, "main", [x])

    assert isinstance(times_two, RewritePattern)
    assert apply_rules(module, [times_two])
    module.verify()
    assert _ops(module) == ["relay.add", "relay.nn.relu", "func.return"]
    np.testing.assert_array_equal(evaluate_function(module, "main", [x])[0], expected[0])


def test_repeated_capture_must_bind_one_value() -> None:
    # x - x -> zeros
    self_subtract = rewrite(
        Pat(SubtractOp, "x", "x"),
        when=[static_shape("x")],
        to=lambda x: const_from_numpy(np.zeros(x.type.get_shape(), np.float32)),
    )
    g = GraphBuilder(T4, T4)
    x, y = g.args
    module = g.module([g.add(SubtractOp(x, x)), g.add(SubtractOp(x, y))])
    apply_rules(module, [self_subtract])
    assert _ops(module) == ["relay.const", "relay.subtract", "func.return"]
    const = next(op for op in module.walk() if isinstance(op, ConstOp))
    np.testing.assert_array_equal(numpy_from_const(const), np.zeros(4))


def test_commutative_match_yields_both_orders() -> None:
    g = GraphBuilder(T4, T4)
    a, b = g.args
    g.add(AddOp(a, b))
    module = g.module([a])
    add = next(op for op in module.walk() if isinstance(op, AddOp))
    bindings = list(match(Pat(AddOp, "x", "y", commutative=True), add))
    assert [(c["x"], c["y"]) for c in bindings] == [(a, b), (b, a)]
    assert all(c["root"] is add for c in bindings)
    assert list(match(Pat(AddOp, "x", "x"), add)) == []
    assert list(match(Pat(MultiplyOp), add)) == []


def test_plain_function_constraint_and_rejected_bindings() -> None:
    # Constraints reject the first binding; the commuted one matches.
    keep_positive = rewrite(
        Pat(AddOp, "x", Pat(ConstOp, name="c"), commutative=True),
        when=[lambda c: bool(numpy_from_const(c).min() > 0), same_type("x", "root")],
        to="x",
    )
    g = GraphBuilder(T4)
    c = g.const(np.ones(4, np.float32))
    module = g.module([g.add(AddOp(c, g.args[0]))])
    apply_rules(module, [keep_positive])
    assert _ops(module) == ["func.return"]


def test_result_of_another_type_is_not_applied() -> None:
    # x + y -> relu(y): only applied when the types agree; nothing is left behind.
    g = GraphBuilder(TensorType(f32, [2, 4]), T4)
    wide, narrow = g.args
    module = g.module([g.add(AddOp(wide, narrow))])
    drop_broadcast = rewrite(Pat(AddOp, "x", "y"), to=lambda y: ReluOp(y))
    assert not apply_rules(module, [drop_broadcast])
    assert len(list(narrow.uses)) == 1  # the discarded ReluOp dropped its use


def test_rule_errors_are_reported_when_the_rule_is_made() -> None:
    with pytest.raises(ValueError, match="the result asks for 'y', but the pattern captures"):
        rewrite(Pat(ReluOp, "x"), to=lambda y: y)
    with pytest.raises(ValueError, match="reads 'z', which the pattern does not capture"):
        rewrite(Pat(ReluOp, "x"), when=[static_shape("z")], to="x")
    with pytest.raises(ValueError, match="the result 'w' is not a capture"):
        rewrite(Pat(ReluOp, "x"), to="w")
    with pytest.raises(ValueError, match="names both an op and a value"):
        Pat(AddOp, "x", Pat(ReluOp, name="x")).captures()
    with pytest.raises(ValueError, match="commutative patterns need two operand patterns"):
        Pat(ReluOp, "x", commutative=True)
    with pytest.raises(TypeError, match="an operand pattern is a capture name, a Pat or None"):
        Pat(AddOp, 3, "x")
    with pytest.raises(TypeError, match="Pat expects an op class first"):
        Pat("relay.add")


def test_failure_inside_a_rule_names_the_rule() -> None:
    def broken(x):
        raise RuntimeError("no luck")

    g = GraphBuilder(T4)
    module = g.module([g.add(ReluOp(g.args[0]))])
    rule = rewrite(Pat(ReluOp, "x"), to=broken, name="broken-rule")
    with pytest.raises(PassFailedException, match="rewrite rule 'broken-rule' failed: no luck"):
        PatternRewriteWalker(rule).rewrite_module(module)


def test_a_pass_docstring_lists_its_rules() -> None:
    rules = [
        rewrite(Pat(ReluOp, Pat(ReluOp, "x", name="inner")), to="inner", name="relu-relu",
                doc="relu(relu(x)) = relu(x)"),
        rewrite(Pat(ReluOp, "x"), to="root", name="undocumented"),
    ]

    @documents_rules(rules)
    class Example:
        """Summary.

        Details.
        """

    assert Example.RULES == tuple(rules)
    assert Example.__doc__ == (
        "Summary.\n\nDetails.\n\nRules, in the order they are tried:\n\n"
        "* ``relu-relu``: relu(relu(x)) = relu(x)\n"
        "* ``undocumented``"
    )


class _Seen(RewritePattern):
    """Records the ops it is offered; never rewrites."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def match_and_rewrite(self, op, rewriter) -> None:
        self.names.append(op.name)


def test_rules_are_offered_only_ops_of_their_root_class() -> None:
    # apply_rules indexes its rules by the op class they are rooted at (a base
    # class roots a rule for its subclasses); other patterns see every op.
    on_add = rewrite(Pat(AddOp, "x", "y"), to="x", name="on-add")
    on_relu = rewrite(Pat(ReluOp, "x"), to="x", name="on-relu")
    on_any = rewrite(Pat(RelayOp, "x"), to="x", name="on-any-relay-op")
    seen = _Seen()
    applier = RuleApplier([on_add, seen, on_relu, on_any])
    assert applier.candidates(ReluOp) == (seen, on_relu, on_any)
    assert applier.candidates(AddOp) == (on_add, seen, on_any)
    assert applier.candidates(func.ReturnOp) == (seen,)


def test_an_indexed_rule_rooted_at_a_base_class_fires_in_its_place() -> None:
    # relu(-x): the rule rooted at RelayOp comes first in the list, so it wins
    # over the one rooted at ReluOp; the rule rooted at NegativeOp still fires.
    base_first = rewrite(
        Pat(RelayOp, "x"), when=[lambda root: isinstance(root, ReluOp)],
        to=lambda x: SubtractOp(x, x), name="relu-by-base-class",
    )
    by_class = rewrite(Pat(ReluOp, "x"), to="x", name="relu-by-class")
    drop_negative = rewrite(Pat(NegativeOp, "x"), to=lambda x: MultiplyOp(x, x), name="neg")
    seen = _Seen()
    g = GraphBuilder(T4)
    module = g.module([g.add(ReluOp(g.add(NegativeOp(g.args[0]))))])
    assert apply_rules(module, [drop_negative, base_first, by_class, seen])
    module.verify()
    assert _ops(module) == ["relay.multiply", "relay.subtract", "func.return"]
    assert "relay.multiply" in seen.names and "func.return" in seen.names
