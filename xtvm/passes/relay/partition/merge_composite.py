"""``relay-merge-composite``: group op patterns into composite functions.

TVM's ``relay.transform.MergeComposite``. Each external codegen lists its
composite patterns (``ExternalCodegen.patterns``: rules written with
:func:`xtvm.byoc.patterns.composite`, e.g. conv2d + bias + relu, which
oneDNN runs as one primitive with post-ops). The pass applies them to the
graph functions, biggest first: each pattern over the whole module before
the next, so conv2d + bias + relu is not split into conv2d + bias first.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtvm.byoc.registry import get_codegen, targets_of
from xtvm.rewrite import apply_rules


@dataclass(frozen=True)
class MergeCompositePass(ModulePass):
    """Outline the matches of the targets' composite patterns.

    Input: relay graph functions with inferred types.

    Output: each match of a pattern ``<target>.<what>`` (a match whose ops
    other than its root are used only inside it) becomes ``func.func private
    @composite_<target>_<what>`` with ``relay.composite = "<target>.<what>"``,
    whose parameters are the values the match reads, and the match is
    replaced by a ``func.call`` of it. Patterns of the targets in the order
    given, each pattern's list in order (biggest first).

    Invariants: values and types are unchanged; only graph functions are
    matched (not fused, composite or partitioned ones), so running the pass
    again changes nothing. ``targets`` (option, e.g. ``targets=dnnl``) else
    the ``PassContext`` config ``relay.ext.targets``; none: no change.

    ```mlir
    %c = relay.nn.conv2d %x, %w : ...
    %b = relay.nn.bias_add %c, %bias : ...
    %r = relay.nn.relu %b : tensor<1x8x4x4xf32>
    // becomes
    %r = func.call @composite_dnnl_conv2d_bias_relu(%x, %w, %bias) : ...
    func.func private @composite_dnnl_conv2d_bias_relu(%p0, %p1, %p2) -> ...
        attributes {relay.composite = "dnnl.conv2d_bias_relu"} { ... }
    ```
    """

    name = "relay-merge-composite"

    targets: tuple[str, ...] = ()
    """The codegens whose patterns apply (default: the PassContext's)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for target in targets_of(self.targets):
            for rule in get_codegen(target).patterns:
                apply_rules(op, [rule])
