"""`tir-simplify`: integer simplification of index arithmetic and trivial control flow."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i1
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    EffectInstance,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.transforms.common_subexpression_elimination import CSEDriver

from xtvm.arith import (
    BINARY_FOLDERS,
    UNKNOWN,
    Bound,
    const_int_bound,
    int_constant,
    int_width,
    loop_extent,
    make_int_constant,
    prove_cmpi,
    to_signed,
)
from xtvm.dialects.tir import AssertOp, ForOp, IfOp, YieldOp

_COMMUTATIVE = (
    arith.AddiOp, arith.MuliOp, arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp,
    arith.AndIOp, arith.OrIOp, arith.XOrIOp,
)  # fmt: skip
_DIVS = (arith.DivSIOp, arith.DivUIOp, arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp)
_FLOOR_DIVS = (arith.DivSIOp, arith.DivUIOp, arith.FloorDivSIOp)
_REMS = (arith.RemSIOp, arith.RemUIOp)


def _replace_with_constant(op: Operation, value: int, rewriter: PatternRewriter) -> None:
    const = make_int_constant(value, op.results[0].type)
    rewriter.replace(op, const)


def _const(value: SSAValue) -> int | None:
    return int_constant(value) if int_width(value.type) is not None else None


class FoldConstantBinary(RewritePattern):
    """`c1 op c2` -> its value, for every integer binary op (wrapping to the width)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        folder = BINARY_FOLDERS.get(type(op))
        if folder is None:
            return
        lhs, rhs = _const(op.operands[0]), _const(op.operands[1])
        width = int_width(op.results[0].type)
        if lhs is None or rhs is None or width is None:
            return
        value = folder(lhs, rhs, width)
        if value is not None:
            _replace_with_constant(op, to_signed(value, width), rewriter)


class ConstantToRight(RewritePattern):
    """`c op x` -> `x op c` for commutative ops, so later rules look right only."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _COMMUTATIVE):
            return
        lhs, rhs = op.operands
        if _const(lhs) is not None and _const(rhs) is None:
            swapped = op.clone()
            swapped.operands = [rhs, lhs]
            rewriter.replace(op, swapped)


class Identities(RewritePattern):
    """x+0, x-0, x*1, x/1, x>>0, x|0, x^0 -> x; x*0, x&0, x%1, x-x -> 0; min/max(x,x) -> x."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in BINARY_FOLDERS:
            return
        lhs, rhs = op.operands
        c = _const(rhs)
        keep_lhs = (
            (c == 0 and isinstance(op, arith.AddiOp | arith.SubiOp | arith.OrIOp | arith.XOrIOp))
            or (c == 0 and isinstance(op, arith.ShLIOp | arith.ShRSIOp | arith.ShRUIOp))
            or (c == 1 and isinstance(op, (arith.MuliOp, *_DIVS)))
            or (c == -1 and isinstance(op, arith.AndIOp))
            or (lhs == rhs and isinstance(op, arith.MinSIOp | arith.MaxSIOp | arith.AndIOp))
            or (lhs == rhs and isinstance(op, arith.MinUIOp | arith.MaxUIOp | arith.OrIOp))
        )
        if keep_lhs:
            rewriter.replace(op, [], [lhs])
            return
        zero = (
            (c == 0 and isinstance(op, arith.MuliOp | arith.AndIOp))
            or (c == 1 and isinstance(op, _REMS))
            or (lhs == rhs and isinstance(op, arith.SubiOp | arith.XOrIOp))
        )
        if zero:
            _replace_with_constant(op, 0, rewriter)


class SubConstToAdd(RewritePattern):
    """`x - c` -> `x + (-c)`: one canonical form for constant offsets."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        c = _const(op.rhs)
        if c is not None and c != 0 and _const(op.lhs) is None:
            neg = make_int_constant(-c, op.rhs.type)
            rewriter.replace(op, [neg, arith.AddiOp(op.lhs, neg)])


class Reassociate(RewritePattern):
    """(x + c1) + c2 -> x + (c1+c2); (x * c1) * c2 -> x * (c1*c2);
    (x + c1) * c2 -> x*c2 + c1*c2; (x + c) + y -> (x + y) + c.

    Rules that duplicate work only fire when the inner op has one use.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, arith.AddiOp | arith.MuliOp):
            return
        lhs, rhs = op.operands
        inner = lhs.owner
        c2 = _const(rhs)
        if not isinstance(inner, arith.AddiOp | arith.MuliOp):
            return
        c1 = _const(inner.rhs)
        ty = op.results[0].type
        if c1 is None:
            return
        if c2 is not None and type(inner) is type(op):
            folded = c1 + c2 if isinstance(op, arith.AddiOp) else c1 * c2
            const = make_int_constant(folded, ty)
            rewriter.replace(op, [const, type(op)(inner.lhs, const)])
        elif not inner.result.has_one_use():
            return
        elif c2 is not None and isinstance(op, arith.MuliOp) and isinstance(inner, arith.AddiOp):
            scaled = make_int_constant(c1 * c2, ty)
            mul = arith.MuliOp(inner.lhs, rhs)
            rewriter.replace(op, [scaled, mul, arith.AddiOp(mul, scaled)])
        elif c2 is None and isinstance(op, arith.AddiOp) and isinstance(inner, arith.AddiOp):
            add = arith.AddiOp(inner.lhs, rhs)
            rewriter.replace(op, [add, arith.AddiOp(add, inner.rhs)])


class BoundDecidedCompare(RewritePattern):
    """`arith.cmpi` whose result the operands' bounds decide -> a constant."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter) -> None:
        if int_width(op.lhs.type) is None:
            return
        value = prove_cmpi(op)
        if value is not None:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(int(value), i1), i1))


class BoundDecidedMinMax(RewritePattern):
    """`min(x, y)` / `max(x, y)` whose bounds do not overlap -> the chosen operand."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, arith.MinSIOp | arith.MaxSIOp):
            return
        a, b = const_int_bound(op.operands[0]), const_int_bound(op.operands[1])
        a_le_b = a.hi is not None and b.lo is not None and a.hi <= b.lo
        b_le_a = b.hi is not None and a.lo is not None and b.hi <= a.lo
        if a_le_b or b_le_a:
            pick_lhs = a_le_b == isinstance(op, arith.MinSIOp)
            rewriter.replace(op, [], [op.operands[0] if pick_lhs else op.operands[1]])


class DivModByBound(RewritePattern):
    """Division and remainder by a positive constant `c` using bounds:

    x / c -> 0 and x % c -> x when 0 <= x < c;
    (x*c + y) / c -> x + y / c and (x*c + y) % c -> y % c when the numerator
    and y are non-negative (all division flavours then agree with floor);
    on `index` (no overflow, as in TVM), signed (x*c) / c -> x and (x*c) % c -> 0.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _FLOOR_DIVS + _REMS):
            return
        num, den = op.operands
        c = _const(den)
        if c is None or c <= 0:
            return
        is_div = isinstance(op, _FLOOR_DIVS)
        bound = const_int_bound(num)
        if bound.within(0, c - 1):
            if is_div:
                _replace_with_constant(op, 0, rewriter)
            else:
                rewriter.replace(op, [], [num])
            return
        inner = num.owner
        if isinstance(inner, arith.MuliOp) and _const(inner.rhs) == c:
            signed = isinstance(op, arith.DivSIOp | arith.FloorDivSIOp | arith.RemSIOp)
            if signed and isinstance(num.type, IndexType):
                if is_div:
                    rewriter.replace(op, [], [inner.lhs])
                else:
                    _replace_with_constant(op, 0, rewriter)
            return
        if not (isinstance(inner, arith.AddiOp) and bound.nonneg()):
            return
        for scaled, rest in ((inner.lhs, inner.rhs), (inner.rhs, inner.lhs)):
            mul = scaled.owner
            if isinstance(mul, arith.MuliOp) and _const(mul.rhs) == c:
                if not const_int_bound(rest).nonneg():
                    continue
                rest_op = type(op)(rest, den)
                if is_div:
                    rewriter.replace(op, [rest_op, arith.AddiOp(mul.lhs, rest_op)])
                else:
                    rewriter.replace(op, rest_op)
                return


def _linear_terms(value: SSAValue, depth: int = 8) -> tuple[list[tuple[SSAValue, int]], int]:
    """``value`` as ``sum(coeff * term) + offset`` through `arith.addi` and
    multiplications by constants (``(terms, offset)``); anything else is a
    term of coefficient 1."""
    c = _const(value)
    if c is not None:
        return [], c
    op = value.owner
    if depth and isinstance(op, arith.AddiOp):
        lhs_terms, lhs_offset = _linear_terms(op.lhs, depth - 1)
        rhs_terms, rhs_offset = _linear_terms(op.rhs, depth - 1)
        return lhs_terms + rhs_terms, lhs_offset + rhs_offset
    if depth and isinstance(op, arith.MuliOp) and _const(op.rhs) is not None:
        terms, offset = _linear_terms(op.lhs, depth - 1)
        k = _const(op.rhs)
        return [(t, coeff * k) for t, coeff in terms], offset * k
    return [(value, 1)], 0


def _build_sum(
    terms: list[tuple[SSAValue, int]], offset: int, ty, ops: list[Operation]
) -> SSAValue:
    """Ops (appended to ``ops``) computing ``sum(coeff * term) + offset``."""
    total: SSAValue | None = None
    for term, coeff in terms:
        if coeff != 1:
            k = make_int_constant(coeff, ty)
            mul = arith.MuliOp(term, k)
            ops += [k, mul]
            term = mul.result
        if total is None:
            total = term
        else:
            add = arith.AddiOp(total, term)
            ops.append(add)
            total = add.result
    if offset or total is None:
        k = make_int_constant(offset, ty)
        ops.append(k)
        if total is None:
            return k.result
        add = arith.AddiOp(total, k)
        ops.append(add)
        total = add.result
    return total


class DivModLinearSum(RewritePattern):
    """Division and remainder of a non-negative linear sum by a constant `c`
    (TVM's canonical simplification of flattened indices), on `index`:
    with the terms split into those whose coefficients a divisor `a` of `c`
    divides (`A`) and the rest (`R`, with the constant offset) where
    `0 <= R < a` and `A >= 0`:

    (A + R) / c -> (A / a) / (c / a)        (A / a: coefficients divided)
    (A + R) % c -> ((A / a) % (c / a)) * a + R

    and with `a = c` simply `A / c` and `R`. `(i*3136 + j*56 + k) / 56`
    with `j < 56`, `k < 56` is `i*56 + j`; `... % 56` is `k`: the index
    arithmetic of a reshape composed with a transpose (a channel shuffle)
    collapses to the loop variables, so the row is a ramp again."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _FLOOR_DIVS + _REMS) or not isinstance(op.results[0].type, IndexType):
            return
        num, den = op.operands
        c = _const(den)
        if c is None or c <= 1:
            return
        terms, offset = _linear_terms(num)
        if not offset and len(terms) == 1 and terms[0][1] == 1:
            return  # no sum: DivModByBound's cases
        if any(coeff <= 0 or not const_int_bound(t).nonneg() for t, coeff in terms):
            return
        ty = num.type
        is_div = isinstance(op, _FLOOR_DIVS)
        for a in sorted({math.gcd(coeff, c) for _, coeff in terms} - {1}, reverse=True):
            big = [(t, coeff // a) for t, coeff in terms if coeff % a == 0]
            small = [(t, coeff) for t, coeff in terms if coeff % a]
            if not _sum_bound(small, offset).within(0, a - 1):
                continue
            ops: list[Operation] = []
            quotient = _build_sum(big, 0, ty, ops)  # A / a
            if a != c:
                k = make_int_constant(c // a, ty)
                inner = (arith.DivUIOp if is_div else arith.RemUIOp)(quotient, k)
                ops += [k, inner]
                quotient = inner.result
            if is_div:
                rewriter.replace(op, ops, [quotient])
                return
            if a == c:  # the remainder is R
                ops, parts = [], []
            else:  # ((A / a) % (c / a)) * a + R
                parts = [(quotient, a)]
            result = _build_sum(parts + small, offset, ty, ops)
            rewriter.replace(op, ops, [result])
            return


def _sum_bound(terms: list[tuple[SSAValue, int]], offset: int) -> Bound:
    """The constant bound of ``sum(coeff * term) + offset`` (coefficients positive)."""
    lo, hi = offset, offset
    for term, coeff in terms:
        bound = const_int_bound(term)
        if bound.lo is None or bound.hi is None:
            return UNKNOWN
        lo, hi = lo + coeff * bound.lo, hi + coeff * bound.hi
    return Bound(lo, hi)


class DivModRecombine(RewritePattern):
    """`x + (q / c) * c + q % c` -> `x + q` (unsigned division and remainder,
    either operand order): the flattened index of two loops fused back into
    one, so that a vectorized fused loop addresses memory as a ramp."""

    @staticmethod
    def _scaled_quotient(value: SSAValue, q: SSAValue, c: int) -> bool:
        """Whether ``value`` is ``(q / c) * c``."""
        mul = value.owner
        if not isinstance(mul, arith.MuliOp):
            return False
        for quotient, factor in (mul.operands, mul.operands[::-1]):
            div = quotient.owner
            if (
                isinstance(div, arith.DivUIOp)
                and div.lhs == q
                and _const(div.rhs) == c
                and _const(factor) == c
            ):
                return True
        return False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, arith.AddiOp):
            return
        for first, rem in (op.operands, op.operands[::-1]):
            remainder = rem.owner
            if not isinstance(remainder, arith.RemUIOp) or _const(remainder.rhs) is None:
                continue
            q, c = remainder.lhs, _const(remainder.rhs)
            if self._scaled_quotient(first, q, c):
                rewriter.replace(op, [], [q])
                return
            inner = first.owner
            if isinstance(inner, arith.AddiOp):
                for x, scaled in (inner.operands, inner.operands[::-1]):
                    if self._scaled_quotient(scaled, q, c):
                        rewriter.replace(op, [arith.AddiOp(x, q)])
                        return


class FoldSelect(RewritePattern):
    """`select(true, x, y)` -> x, `select(false, x, y)` -> y, `select(c, x, x)` -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        cond = int_constant(op.cond)
        if op.lhs == op.rhs:
            rewriter.replace(op, [], [op.lhs])
        elif cond is not None:
            rewriter.replace(op, [], [op.lhs if cond else op.rhs])


class FoldIntCast(RewritePattern):
    """Integer casts of constants -> constants."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
            return
        value = _const(op.operands[0])
        src_width = int_width(op.operands[0].type)
        if value is None or src_width is None or int_width(op.results[0].type) is None:
            return
        if isinstance(op, arith.ExtUIOp):
            value &= (1 << src_width) - 1
        _replace_with_constant(op, value, rewriter)


def _inline_region(block_op: Operation, region_index: int, rewriter: PatternRewriter) -> None:
    """Replace `block_op` by the ops of its region (without the terminator)."""
    block = block_op.regions[region_index].blocks.first
    if block is not None:
        if isinstance(block.last_op, YieldOp):
            rewriter.erase(block.last_op)
        rewriter.inline_block(block, InsertPoint.before(block_op))
    rewriter.erase(block_op)


class TrivialLoop(RewritePattern):
    """A `tir.for` running zero times is erased; one running once becomes its body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ForOp, rewriter: PatternRewriter) -> None:
        extent = loop_extent(op)
        lb, ub = const_int_bound(op.lb), const_int_bound(op.ub)
        if extent == 0 or (lb.lo is not None and ub.hi is not None and ub.hi <= lb.lo):
            rewriter.erase(op)
        elif extent == 1:
            block = op.body.block
            rewriter.erase(block.last_op)  # the implicit tir.yield
            rewriter.inline_block(block, InsertPoint.before(op), [op.lb])
            rewriter.erase(op)


class ConstantIf(RewritePattern):
    """A `tir.if` on a constant condition becomes the taken branch (or nothing)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        cond = int_constant(op.cond)
        if cond is None:
            return
        if cond:
            _inline_region(op, 0, rewriter)
        elif op.else_region.blocks:
            _inline_region(op, 1, rewriter)
        else:
            rewriter.erase(op)


class TrueAssert(RewritePattern):
    """A `tir.assert` of a constant true condition is erased."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AssertOp, rewriter: PatternRewriter) -> None:
        if int_constant(op.cond):
            rewriter.erase(op)


class EraseTriviallyDead(RewritePattern):
    """xDSL's dead-op erasure (``GreedyRewritePatternApplier``'s ``dce_enabled``,
    ``is_trivially_dead``), decided by a walk that stops at the first effect
    that keeps the op. xDSL collects every effect of a loop's body before
    looking at them, for every loop of a nest the walker visits (a
    ``tir.for`` has no results, so each is asked): quadratic in the nest's
    depth, a third of the pass's time on ResNet-50. Same decision, same IR."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (
            all(result.first_use is None for result in op.results)
            and not op.has_trait(IsTerminator, value_if_unregistered=False)
            and not op.has_trait(SymbolOpInterface, value_if_unregistered=False)
            and _result_only_effects(op, op)
        ):
            rewriter.erase(op)


def _result_only_effects(root: Operation, op: Operation) -> bool:
    """xDSL's ``result_only_effects(root)`` for ``op`` inside ``root``: every
    effect known, and each a read or the allocation of a value ``root``
    holds; a ``RecursiveMemoryEffect`` op's effects are its children's."""
    traits = op.get_traits_of_type(MemoryEffect)
    if not traits:
        return False  # unknown effects
    for trait in traits:
        if type(trait) is RecursiveMemoryEffect:
            for region in op.regions:
                for block in region.blocks:
                    for child in block.ops:
                        if not _result_only_effects(root, child):
                            return False
            continue
        effects = trait.get_effects(op)
        if effects is None:
            return False
        for e in effects:
            if not (
                e.kind == MemoryEffectKind.READ
                or (
                    e.kind == MemoryEffectKind.ALLOC
                    and isinstance(v := e.value, SSAValue)
                    and root.is_ancestor(v.owner)
                )
            ):
                return False
    return True


def _removable(root: Operation, effects: set[EffectInstance] | None) -> bool:
    """xDSL's ``result_only_effects`` given ``root``'s effects: all known,
    each a read or the allocation of a value ``root`` holds."""
    return effects is not None and all(
        e.kind == MemoryEffectKind.READ
        or (
            e.kind == MemoryEffectKind.ALLOC
            and isinstance(v := e.value, SSAValue)
            and root.is_ancestor(v.owner)
        )
        for e in effects
    )


@dataclass
class _CSEDriver(CSEDriver):
    """xDSL's CSE (``cse``), with each op's memory effects computed once.

    xDSL asks ``get_effects`` afresh at every question: whether an op is
    dead, side-effect free or read-only (for a loop: a walk of its body, at
    every loop of a nest), and, to merge two equal loads, the effects of
    every op between them (quadratic in a block's length: 5 s of the pass
    on ResNet-50's Winograd kernels, whose blocks are long runs of loads).
    CSE only replaces uses and erases ops when it is done, so no op's
    effects and no block's order change while it runs: here each op's
    effects are computed once (a loop's from its children's), and each
    block's write-or-unknown ops are counted once as prefix sums. The
    decisions are xDSL's, so the IR is the same."""

    _effects: dict[Operation, set[EffectInstance] | None] = field(default_factory=dict)
    _writes: dict[Block, tuple[dict[Operation, int], list[int]]] = field(default_factory=dict)

    def effects_of(self, op: Operation) -> set[EffectInstance] | None:
        """``get_effects(op)``, memoised."""
        if op in self._effects:
            return self._effects[op]
        traits = op.get_traits_of_type(MemoryEffect)
        found: set[EffectInstance] | None = set() if traits else None
        for trait in traits:
            if type(trait) is RecursiveMemoryEffect:
                inner: set[EffectInstance] | None = set()
                for region in op.regions:
                    for block in region.blocks:
                        for child in block.ops:
                            child_effects = self.effects_of(child)
                            if child_effects is None or inner is None:
                                inner = None
                                break
                            inner.update(child_effects)
                part = inner
            else:
                got = trait.get_effects(op)
                part = None if got is None else set(got)
            if part is None or found is None:
                found = None
                break
            found.update(part)
        self._effects[op] = found
        return found

    def write_between(self, from_op: Operation, to_op: Operation) -> bool:
        """``has_other_side_effecting_op_in_between``: whether an op from
        ``from_op`` (included) to ``to_op`` (excluded) of one block may
        write (its effects unknown or with a write)."""
        block = from_op.parent
        assert block is not None and block is to_op.parent
        if block not in self._writes:
            index: dict[Operation, int] = {}
            prefix = [0]
            for i, inner in enumerate(block.ops):
                index[inner] = i
                effects = self.effects_of(inner)
                writes = effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects)
                prefix.append(prefix[-1] + writes)
            self._writes[block] = (index, prefix)
        index, prefix = self._writes[block]
        return prefix[index[to_op]] - prefix[index[from_op]] > 0

    def _simplify_operation(self, op: Operation) -> None:
        if op.has_trait(IsTerminator):
            return
        effects = self.effects_of(op)
        if (  # is_trivially_dead
            all(result.first_use is None for result in op.results)
            and not op.has_trait(IsTerminator, value_if_unregistered=False)
            and not op.has_trait(SymbolOpInterface, value_if_unregistered=False)
            and _removable(op, effects)
        ):
            self._mark_erasure(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        if effects is None or len(effects) != 0:  # not side-effect free
            if effects is None or not all(e.kind == MemoryEffectKind.READ for e in effects):
                return
            existing = self._known_ops.get(op)
            if (
                existing is not None
                and op.parent_block() is existing.parent_block()
                and not self.write_between(existing, op)
            ):
                self._replace_and_delete(op, existing)
                return
            self._known_ops[op] = op
            return
        existing = self._known_ops.get(op)
        if existing is not None:
            self._replace_and_delete(op, existing)
            return
        self._known_ops[op] = op


SIMPLIFY_PATTERNS: tuple[RewritePattern, ...] = (
    FoldConstantBinary(),
    ConstantToRight(),
    Identities(),
    SubConstToAdd(),
    Reassociate(),
    BoundDecidedCompare(),
    BoundDecidedMinMax(),
    DivModByBound(),
    DivModLinearSum(),
    DivModRecombine(),
    FoldSelect(),
    FoldIntCast(),
    TrivialLoop(),
    ConstantIf(),
    TrueAssert(),
)
"""Every rewrite of `tir-simplify`, applied greedily to a fixed point."""


@dataclass(frozen=True)
class TirSimplifyPass(ModulePass):
    """Simplify integer index arithmetic and trivial control flow (TVM's `Simplify`).

    Input: any IR with `tir` and `arith`. Rewrites, to a fixed point:
    constant folding of integer/index ops (two's complement, division by
    zero left alone); identities (x+0, x*1, x*0, x-x, ...); constants moved
    right and reassociated ((x*c1)*c2, (x+c1)+c2, (x+c1)*c2, x-c -> x+(-c));
    comparisons, min/max, division and remainder decided by constant bounds
    from loop ranges (`xtvm.arith`); division and remainder of a
    non-negative linear sum by a constant split at a divisor of it
    (`(i*3136 + j*56 + k) / 56` -> `i*56 + j` for `j, k < 56`);
    `x + (q / c) * c + q % c` -> `x + q` (unsigned); `select` on constants; loops of extent
    0 erased and of extent 1 replaced by their body with the loop variable
    substituted; `tir.if` on a constant condition resolved; `tir.assert` of
    true erased. Then dead pure ops are removed and equal expressions are
    merged (CSE). Floating-point arithmetic is never changed.

        tir.for %i = %c0 to %c1 kind "serial" {
          %a = arith.muli %i, %c8 : index
          %b = arith.addi %a, %c0 : index
          %v = tir.load %A[%b] : memref<8xf32>
      becomes
        %v = tir.load %A[%c0] : memref<8xf32>
    """

    name = "tir-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(  # the applier's own dead-op check is EraseTriviallyDead's
            GreedyRewritePatternApplier(
                [EraseTriviallyDead(), *SIMPLIFY_PATTERNS], ctx=ctx, dce_enabled=False
            ),
            apply_recursively=True,
        ).rewrite_module(op)
        _CSEDriver().simplify(op)
