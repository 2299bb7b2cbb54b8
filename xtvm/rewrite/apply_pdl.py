"""``apply-pdl``: xDSL's PDL interpreter pass, with errors a user can act on.

xDSL's pass asserts that the PDL file exists (a bare ``AssertionError``) and
parses it without its name (``<unknown>:1:9: error: ...``). This one says
which file is missing, and its parse errors and pattern ops carry the PDL
file's ``file:line:col``::

    xtvm-opt in.mlir -p 'apply-pdl{pdl_file="patterns/relay_simplify.pdl.mlir"}'
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import pdl
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreters.pdl import PDLRewritePattern
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.apply_pdl import ApplyPDLPass
from xdsl.utils.exceptions import PassFailedException

from xtvm.ir.parse import parse_module


@dataclass(frozen=True)
class ApplyPdlPass(ApplyPDLPass):
    """Apply the PDL patterns of ``pdl_file`` (or of the input module) greedily."""

    name = "apply-pdl"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = op if self.pdl_file is None else self.read_patterns(ctx)
        rewrites = [PDLRewritePattern(r, ctx, None) for r in patterns.walk() if isinstance(r, pdl.RewriteOp)]
        PatternRewriteWalker(GreedyRewritePatternApplier(rewrites)).rewrite_module(op)

    def read_patterns(self, ctx: Context) -> ModuleOp:
        """The module of ``pdl_file``; a missing file is a pass failure, a
        syntax error a ``ParseError`` located in that file."""
        assert self.pdl_file is not None
        try:
            with open(self.pdl_file, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise PassFailedException(
                f"apply-pdl: cannot read the PDL file '{self.pdl_file}': {e.strerror}"
            ) from None
        return parse_module(text, self.pdl_file, ctx)
