"""`tir-unroll-loop`: TVM's `UnrollLoop`, explicit unrolling of small constant loops."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from xtvm.arith import int_constant, loop_extent, make_int_constant
from xtvm.dialects.tir import (
    CallExternOp,
    CallIntrinOp,
    ForOp,
    IfOp,
    PrimFuncOp,
    StoreOp,
    YieldOp,
)

CONFIG_KEY = "tir.UnrollLoop"
"""The `PassContext.config` entry read by the pass (a dict of the options below)."""

_PRAGMA_MAX_STEP = "pragma_auto_unroll_max_step"
_PRAGMA_EXPLICIT = "pragma_unroll_explicit"


@dataclass(frozen=True)
class UnrollConfig:
    """The knobs of TVM's `tir.UnrollLoop` config, with TVM's defaults."""

    auto_max_step: int = 0
    auto_max_depth: int = 8
    auto_max_extent: int = 0
    explicit_unroll: bool = True

    @staticmethod
    def from_mapping(config: Mapping[str, Any]) -> UnrollConfig:
        """Read a `tir.UnrollLoop` dict; unknown keys are an error."""
        known = {"auto_max_step", "auto_max_depth", "auto_max_extent", "explicit_unroll"}
        unknown = set(config) - known
        if unknown:
            raise ValueError(
                f"unknown {CONFIG_KEY} option(s) {sorted(unknown)}; known: {sorted(known)}"
            )
        return UnrollConfig(
            **{k: (bool(v) if k == "explicit_unroll" else int(v)) for k, v in config.items()}
        )


def context_config() -> UnrollConfig:
    """The `tir.UnrollLoop` settings of the current `PassContext` (defaults outside one)."""
    from xtvm.transform import PassContext

    return UnrollConfig.from_mapping(PassContext.current().config.get(CONFIG_KEY, {}))


def unroll(loop: ForOp) -> None:
    """Replace a constant-extent `tir.for` by one copy of its body per
    iteration. The last iteration takes the body itself (moved, not cloned):
    cloning is most of the pass's time, and the body need not be erased."""
    extent = loop_extent(loop)
    assert extent is not None
    lb = int_constant(loop.lb)
    point = InsertPoint.before(loop)
    body = loop.body.block
    for k in range(extent):
        if lb is not None:
            index: Operation = make_int_constant(lb + k, IndexType())
            Rewriter.insert_op(index, point)
        else:
            step = make_int_constant(k, IndexType())
            index = arith.AddiOp(loop.lb, step)
            Rewriter.insert_op([step, index], point)
        if k == extent - 1:
            value, hint = index.results[0], index.results[0].name_hint
            loop.induction_var.replace_all_uses_with(value)
            value.name_hint = hint  # as a clone's: not the induction variable's
            for op in list(body.ops):
                if not isinstance(op, YieldOp):
                    op.detach()
                    Rewriter.insert_op(op, point)
            break
        mapping: dict[SSAValue, SSAValue] = {loop.induction_var: index.results[0]}
        for op in body.ops:
            if not isinstance(op, YieldOp):
                Rewriter.insert_op(op.clone(mapping), point)
    Rewriter.erase_op(loop)


class _Unroller:
    """TVM's `LoopUnroller`: counts steps bottom-up and decides per loop.

    `step` is the number of leaf statements (stores, calls) a statement runs
    once inner unrolling is done; `unroll_depth` and `normal_depth` are the
    nesting depths of unrolled and kept loops below it.
    """

    def __init__(self, config: UnrollConfig):
        self.config = config
        self.step = 0
        self.unroll_depth = 0
        self.normal_depth = 0

    def visit_block(self, block: Block) -> None:
        """A sequence: step counts add up, depths take the maximum."""
        for op in list(block.ops):
            step, unroll_depth, normal_depth = self.step, self.unroll_depth, self.normal_depth
            self.step = self.unroll_depth = self.normal_depth = 0
            self.visit_op(op)
            self.step += step
            self.unroll_depth = max(self.unroll_depth, unroll_depth)
            self.normal_depth = max(self.normal_depth, normal_depth)

    def visit_op(self, op: Operation) -> None:
        if isinstance(op, ForOp):
            self.visit_for(op)
        elif isinstance(op, IfOp):
            for region in op.regions:
                for block in region.blocks:
                    self.visit_block(block)
        elif isinstance(op, StoreOp | CallExternOp | CallIntrinOp):
            self.step += 1

    def visit_for(self, loop: ForOp) -> None:
        outer = self.config
        self.config = _with_pragmas(outer, loop)
        try:
            self.visit_block(loop.body.block)
            self._decide(loop)
        finally:
            self.config = outer

    def _decide(self, loop: ForOp) -> None:
        config = self.config
        extent = loop_extent(loop)
        value = -1 if extent is None else extent
        kind = loop.kind.data
        auto_unroll = (
            kind == "serial"
            and value >= 0
            and self.normal_depth == 0
            and self.unroll_depth <= config.auto_max_depth
            and (value * self.step <= config.auto_max_step or value <= config.auto_max_extent)
        )
        if kind == "unrolled":
            if value < 0:
                raise PassFailedException(
                    f"tir-unroll-loop: cannot unroll a loop of non-constant extent:\n{loop!s}"
                )
            auto_unroll = True
        if auto_unroll:
            self.step *= value
            self.unroll_depth += 1
        else:
            self.normal_depth += 1
        # TVM: with auto_max_extent == 1, loops of extent 0 or 1 always unroll.
        unit_rule = config.auto_max_extent == 1 and 0 <= value <= 1
        if kind == "unrolled" or (auto_unroll and config.explicit_unroll) or unit_rule:
            unroll(loop)
        elif auto_unroll:
            loop.kind = StringAttr("unrolled")


def _with_pragmas(config: UnrollConfig, loop: ForOp) -> UnrollConfig:
    """Apply a loop's `pragma_auto_unroll_max_step` / `pragma_unroll_explicit` annotations."""
    if loop.annotations is None:
        return config
    values = loop.annotations.data
    max_step = values.get(_PRAGMA_MAX_STEP)
    explicit = values.get(_PRAGMA_EXPLICIT)
    if isinstance(max_step, IntegerAttr):
        config = replace(config, auto_max_step=max_step.value.data)
    if isinstance(explicit, IntegerAttr):
        config = replace(config, explicit_unroll=bool(explicit.value.data))
    return config


@dataclass(frozen=True)
class TirUnrollLoopPass(ModulePass):
    """Unroll loops explicitly (TVM's `tir.transform.UnrollLoop`).

    Settings come from `PassContext.current().config["tir.UnrollLoop"]`
    (`auto_max_step`, `auto_max_depth`, `auto_max_extent`, `explicit_unroll`;
    TVM defaults 0, 8, 0, true); pass options of the same names override them
    (`tir-unroll-loop{auto-max-step=16 explicit-unroll=false}`). A loop's
    annotations `pragma_auto_unroll_max_step` and `pragma_unroll_explicit`
    override them for that loop nest.

    Rules, bottom-up over each loop nest (as in TVM): a "serial" loop with a
    constant extent, no kept loop inside, at most `auto_max_depth` unrolled
    loops inside, and `extent * steps <= auto_max_step` (steps = stores and
    calls in its body after inner unrolling) or `extent <= auto_max_extent`
    is auto-unrolled: replaced by `extent` copies of its body when
    `explicit_unroll`, otherwise marked kind "unrolled". Loops of kind
    "unrolled" are always replaced by copies (xtvm's code generator has no
    unroll pragma); one with a non-constant extent is an error.

        tir.for %i = %c0 to %c2 kind "unrolled" {
          tir.store %v, %A[%i] : memref<2xf32>
        }
      becomes
        %0 = arith.constant 0 : index
        tir.store %v, %A[%0] : memref<2xf32>
        %1 = arith.constant 1 : index
        tir.store %v, %A[%1] : memref<2xf32>
    """

    name = "tir-unroll-loop"

    auto_max_step: int | None = None
    auto_max_depth: int | None = None
    auto_max_extent: int | None = None
    explicit_unroll: bool | None = None

    def config(self) -> UnrollConfig:
        """The effective settings: pass options over the `PassContext` config."""
        config = context_config()
        overrides = {
            name: getattr(self, name)
            for name in ("auto_max_step", "auto_max_depth", "auto_max_extent", "explicit_unroll")
            if getattr(self, name) is not None
        }
        return replace(config, **overrides)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        config = self.config()
        for func in list(op.walk()):
            if isinstance(func, PrimFuncOp):
                _Unroller(config).visit_block(func.body.block)
