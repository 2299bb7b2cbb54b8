"""Rules: a source pattern, constraints and a result, compiled to an xDSL
``RewritePattern``; the greedy applier that runs a list of them; and
:func:`documents_rules`, which lists a pass's rules in its docstring."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead
from xdsl.utils.exceptions import PassFailedException

from xtvm.rewrite.constraints import Constraint, value_of
from xtvm.rewrite.pattern import ROOT, Captures, Pat, match

Result = str | Callable[..., Operation | SSAValue | Sequence[Operation]]
"""A capture name (a value, or an op whose single result is used), or a
function of captures building the replacement: new (not inserted) ops, whose
last op's result replaces the root, or an existing value or op."""


def _capture_caller(
    fn: Callable[..., Any], known: Iterable[str], rule: str, what: str
) -> Callable[[Captures], Any]:
    """Call ``fn`` with the captures its parameters name."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return lambda captures: fn(**captures)
    names = [p.name for p in params]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(
            f"rule '{rule}': {what} asks for {', '.join(map(repr, unknown))}, but the "
            f"pattern captures {', '.join(map(repr, sorted(known)))}"
        )
    return lambda captures: fn(**{n: captures[n] for n in names})


class Rule(RewritePattern):
    """One declarative rewrite, applied to ops of the source pattern's root class.

    A match is rewritten when every constraint holds and the replacement has
    exactly the root's result type (so a rule never changes broadcasting or
    refines a shape); otherwise the next binding, then the next rule, is tried.
    """

    def __init__(
        self,
        name: str,
        source: Pat,
        to: Result,
        when: Sequence[Constraint | Callable[..., bool]],
        doc: str = "",
    ):
        self.name = name
        self.source = source
        self.doc = doc
        """What the rule does, in one line (``"x + 0 = 0 + x = x"``)."""
        known = {ROOT, *source.captures()}
        self.when: list[Constraint] = []
        for c in when:
            if not isinstance(c, Constraint):
                check = _capture_caller(c, known, name, "a constraint")
                c = Constraint(getattr(c, "__name__", "constraint"), (), check)
            missing = [n for n in c.names if n not in known]
            if missing:
                raise ValueError(
                    f"rule '{name}': {c!r} reads {', '.join(map(repr, missing))}, which the "
                    f"pattern does not capture ({', '.join(map(repr, sorted(known)))})"
                )
            self.when.append(c)
        if isinstance(to, str):
            if to not in known:
                raise ValueError(f"rule '{name}': the result '{to}' is not a capture")
            self._build = lambda captures: value_of(captures[to])
        else:
            self._build = _capture_caller(to, known, name, "the result")

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, {self.source!r})"

    def replacement(self, captures: Captures) -> tuple[list[Operation], SSAValue]:
        """The new ops (not inserted) and the value that replaces the root."""
        built = self._build(captures)
        if isinstance(built, SSAValue):
            return [], built
        if isinstance(built, Operation) and built.parent is not None:
            return [], value_of(built)  # an existing (captured) op
        if isinstance(built, Operation):
            built = [built]
        ops = list(built)
        if not ops:
            raise ValueError("the result built no op")
        return ops, value_of(ops[-1])

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.source.op) or len(op.results) != 1:
            return
        for captures in match(self.source, op):
            try:
                if not all(c.check(captures) for c in self.when):
                    continue
                new_ops, value = self.replacement(captures)
            except Exception as e:
                raise PassFailedException(
                    f"rewrite rule '{self.name}' failed: {e}\n  in: {op!s}"
                ) from e
            if value.type != op.results[0].type:
                for new_op in reversed(new_ops):
                    new_op.erase()
                continue
            rewriter.replace(op, new_ops, [value])
            return


def rewrite(
    source: Pat,
    *,
    to: Result,
    when: Sequence[Constraint | Callable[..., bool]] = (),
    name: str | None = None,
    doc: str = "",
) -> Rule:
    """A rule rewriting ``source`` into ``to`` where every ``when`` constraint holds.

    ``to`` and plain-function constraints receive the captures their
    parameters name (``root`` is the matched root op). Errors in the rule
    (unknown capture names) are reported here, not at match time. ``doc``
    says in one line what the rule does, for the pass's docstring.
    """
    return Rule(name or f"{source.op.name}-rewrite", source, to, when, doc)


class RuleApplier(RewritePattern):
    """xDSL's ``GreedyRewritePatternApplier`` (an op that is trivially dead is
    erased; otherwise the patterns are tried in order until one rewrites),
    with each :class:`Rule` tried only on ops of its root pattern's class:
    the patterns an op class can match are listed once per class, in their
    order, so an op is not offered to every rule of a long list (most of
    them rooted at other ops) at every visit of every walk. Patterns that
    are not rules are tried on every op, in their place in the order."""

    def __init__(self, patterns: Sequence[RewritePattern]):
        self.patterns = tuple(patterns)
        self._by_class: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def candidates(self, op_class: type[Operation]) -> tuple[RewritePattern, ...]:
        """The patterns that may match an op of ``op_class``, in order."""
        found = self._by_class.get(op_class)
        if found is None:
            found = tuple(
                p
                for p in self.patterns
                if not isinstance(p, Rule) or issubclass(op_class, p.source.op)
            )
            self._by_class[op_class] = found
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if is_trivially_dead(op):
            rewriter.erase(op)
            return
        for pattern in self.candidates(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def apply_rules(module: ModuleOp, rules: Iterable[RewritePattern]) -> bool:
    """Apply ``rules`` greedily (first matching rule wins, new ops are revisited)
    until none matches; dead pure ops are erased. Whether anything changed."""
    applier = RuleApplier(list(rules))
    return PatternRewriteWalker(applier, apply_recursively=True).rewrite_module(module)


PassClass = TypeVar("PassClass", bound=type)


def documents_rules(rules: Sequence[Rule]) -> Callable[[PassClass], PassClass]:
    """Class decorator of a pass that applies ``rules``: keeps them as the
    class's ``RULES`` and appends one line a rule (name and ``doc``, in the
    order they are tried) to its docstring, so the documentation is the rule
    list itself."""

    def decorate(cls: PassClass) -> PassClass:
        lines = [f"* ``{r.name}``: {r.doc}" if r.doc else f"* ``{r.name}``" for r in rules]
        doc = inspect.cleandoc(cls.__doc__ or "")
        cls.__doc__ = f"{doc}\n\nRules, in the order they are tried:\n\n" + "\n".join(lines)
        cls.RULES = tuple(rules)
        return cls

    return decorate
