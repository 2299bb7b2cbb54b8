"""``relay-fold-constant``: evaluate constant subgraphs at compile time.

TVM's ``relay.transform.FoldConstant``: an op whose operands are all
``relay.const`` is run with its NumPy reference and replaced by a
``relay.const`` of the result; folding repeats until no such op is left.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.relay import CallLoweredOp, ConstOp, RelayOp
from xtvm.constants import const_from_numpy, numpy_dtype, numpy_from_const
from xtvm.reference.relay import REFERENCES, evaluate_results


class FoldConstantOp(RewritePattern):
    """Replace a relay op on constants by the constant it computes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RelayOp, rewriter: PatternRewriter) -> None:
        if isinstance(op, ConstOp | CallLoweredOp) or op.name not in REFERENCES:
            return
        if not all(isinstance(o.owner, ConstOp) for o in op.operands):
            return
        # A value whose declared type is imprecise keeps it (relay-infer-type first).
        if not all(
            isinstance(t, TensorType) and t.has_static_shape() for t in op.result_types
        ):
            return
        inputs = [numpy_from_const(o.owner) for o in op.operands]
        with np.errstate(all="ignore"):  # IEEE results (inf, nan) are folded as they are
            values = evaluate_results(op.name, inputs, op.attrs)
        for value, result_type in zip(values, op.result_types, strict=True):
            expected = numpy_dtype(result_type.element_type)
            if value.dtype != expected or value.shape != result_type.get_shape():
                raise PassFailedException(
                    f"relay-fold-constant: the reference of '{op.name}' returned "
                    f"{value.dtype}{list(value.shape)}, but the op's type is {result_type}\n"
                    f"  in: {op!s}"
                )
        consts = [const_from_numpy(v) for v in values]
        rewriter.replace(op, consts, [c.result for c in consts])


@dataclass(frozen=True)
class FoldConstantPass(ModulePass):
    """Fold every relay op whose operands are all constants into a constant.

    Input: relay IR; ops to fold need a NumPy reference and a static result
    type (run ``relay-infer-type`` first where types are imprecise).

    Output: no relay op with a reference has only ``relay.const`` operands;
    constants left without uses, and other dead pure ops, are erased.

    Invariants: results equal the references' (bit for bit); ops without a
    reference, ``relay.call_lowered`` and tuples are never folded.

    ```mlir
    %a = relay.const dense<[1.0, 2.0]> : tensor<2xf32>
    %b = relay.const dense<3.0> : tensor<2xf32>
    %c = relay.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %d = relay.multiply %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // becomes
    %c = relay.const dense<[4.0, 5.0]> : tensor<2xf32>
    %d = relay.multiply %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ```
    """

    name = "relay-fold-constant"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([FoldConstantOp()]), apply_recursively=True
        ).rewrite_module(op)
