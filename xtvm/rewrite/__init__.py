"""Declarative rewrites: MLIR DRR-style rules in a few lines of Python.

A rule is a source pattern (a tree of ops with capture names), constraints
on the captures, and a result (a captured value, or new ops built from the
captures). Each rule compiles to an xDSL ``RewritePattern`` on its root op
class; :func:`apply_rules` runs a list of them greedily to a fixed point.

Adding a rule
-------------
1. Write the source pattern: ``Pat(OpClass, operand patterns..., name=...)``.
   An operand pattern is a capture name (``"x"``), a nested ``Pat``, ``"_"``
   or ``None`` (anything); ``name=`` captures the op itself;
   ``commutative=True`` also tries a binary op's operands swapped. The
   matched root op is always captured as ``root``.
2. Add constraints with ``when=[...]``: the helpers of
   :mod:`xtvm.rewrite.constraints` (``const_value``, ``same_type``,
   ``static_shape``, ``inverse_permutations``, ``identity_permutation``), or
   any function whose parameters are capture names and that returns a bool.
3. Give the result with ``to=``: a capture name, or a function of captures
   returning a new, not inserted op (or list of ops, the last one's result
   is used, or an existing value).
4. Say in one line what it does (``doc=``), add it to a pass's rule list
   (``relay-simplify-expr``'s ``RULES`` in :mod:`xtvm.passes.relay.simplify_expr`;
   the pass's ``@documents_rules(RULES)`` lists it in the pass's docstring),
   and add a lit test of that pass, naming the rule, for the match and for a
   near miss (``test/python/test_lit_coverage.py`` checks the name is there).

A rewrite only happens when the replacement has exactly the root's result
type, so a rule cannot change broadcasting or a value's shape.

```python
from xtvm.dialects.relay import AddOp, ConstOp, ReshapeOp
from xtvm.rewrite import Pat, apply_rules, const_value, rewrite, static_shape

ADD_ZERO = rewrite(
    Pat(AddOp, "x", Pat(ConstOp, name="c"), commutative=True),
    when=[const_value("c", 0.0)],
    to="x",
    name="add-zero",
)
RESHAPE_RESHAPE = rewrite(
    Pat(ReshapeOp, Pat(ReshapeOp, "x")),
    when=[static_shape("root")],
    to=lambda x, root: ReshapeOp(x, root.result.type.get_shape()),
    name="reshape-reshape",
)
apply_rules(module, [ADD_ZERO, RESHAPE_RESHAPE])
```

PDL is the other declarative route: ``xtvm-opt -p
'apply-pdl{pdl_file="patterns/relay_simplify.pdl.mlir"}'`` runs the patterns
of a PDL file on relay IR (see ``patterns/``).
"""

from xtvm.rewrite.constraints import (
    Constraint,
    composed_permutation,
    const_of,
    const_value,
    identity_permutation,
    inverse_permutations,
    permutation_of,
    same_type,
    static_shape,
    value_of,
)
from xtvm.rewrite.pattern import ROOT, Pat, match
from xtvm.rewrite.rule import Rule, apply_rules, documents_rules, rewrite

__all__ = [
    "ROOT",
    "Constraint",
    "Pat",
    "Rule",
    "apply_rules",
    "composed_permutation",
    "const_of",
    "const_value",
    "documents_rules",
    "identity_permutation",
    "inverse_permutations",
    "match",
    "permutation_of",
    "rewrite",
    "same_type",
    "static_shape",
    "value_of",
]
