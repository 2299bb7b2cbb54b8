"""``relay-convert-layout``: keep a float network's activations blocked
``NCHW<c>c`` from one packed conv to the next (TVM's ``ConvertLayout`` to
``NCHWc`` for its ``conv2d_NCHWc``).

``relay-alter-op-layout`` leaves ``relay.nn.contrib_conv2d_packed`` on NCHW
data: its kernel broadcasts input pixels from NCHW rows and, with its
vectors across the channel block, transposes the register tile lane by
lane into the NCHW rows. This pass gives every such conv (``groups = 1``,
input channels a multiple of 4) blocked data and a blocked result, between
two ``relay.layout_transform``:

    conv(x) = layout_transform(conv'(layout_transform(x, NCHW -> NCHW16c)), NCHW16c -> NCHW)

(a stem conv, whose 3 input channels make no block, keeps NCHW data and
gives the blocked result: ``out_layout``), then moves each transform back
down through the relus, batch-norm scales and shifts, residual adds,
concatenations and pools (the classifier's global pool too) after it and
cancels it against the next conv's transform forward (:mod:`xtvm.passes.relay.blocked_layout`, the rules
``relay-int8-nchwc`` uses too). Only targets whose vector register holds at
least 8 f32 lanes take it (the pass option ``lanes``, 0 = those of
``Target.current()``): the blocked kernel's tile is a few whole vectors of
``b`` channels.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects.relay import Conv2dPackedOp, LayoutTransformOp
from xtvm.dialects.relay.base import is_float
from xtvm.passes.relay.blocked_layout import GLOBAL_POOL_RULES, SINK_RULES, data_block
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite
from xtvm.topi.x86.config import lanes

MIN_LANES = 8
"""Fewest f32 lanes of a vector register for which the pass blocks the convs."""


def _nchw_float_conv(x: SSAValue, root: Conv2dPackedOp) -> bool:
    """An NCHW float conv of one group, which has not been converted."""
    return (
        root.data_layout.data == "NCHW"
        and root.out_layout.data == ""
        and root.attrs["groups"] == 1
        and is_float(x.type.element_type)
        and len(x.type.get_shape()) == 4
    )


def _blockable(x: SSAValue, root: Conv2dPackedOp) -> bool:
    return _nchw_float_conv(x, root) and data_block(x) > 0


def _stem(x: SSAValue, root: Conv2dPackedOp) -> bool:
    return _nchw_float_conv(x, root) and data_block(x) == 0


def _conv(x: SSAValue, w: SSAValue, root: Conv2dPackedOp, **layouts: str) -> Conv2dPackedOp:
    a = root.attrs
    return Conv2dPackedOp(
        x, w, a["kernel_layout"], a["strides"], a["padding"], a["dilation"], **layouts
    )


def conv_nchwc(x: SSAValue, w: SSAValue, root: Conv2dPackedOp) -> list[Operation]:
    data_layout = f"NCHW{data_block(x)}c"
    blocked = LayoutTransformOp(x, "NCHW", data_layout)
    conv = _conv(blocked.result, w, root, data_layout=data_layout)
    out_layout = f"NCHW{w.type.get_shape()[4]}c"
    return [blocked, conv, LayoutTransformOp(conv.result, out_layout, "NCHW")]


def conv_blocked_result(x: SSAValue, w: SSAValue, root: Conv2dPackedOp) -> list[Operation]:
    out_layout = f"NCHW{w.type.get_shape()[4]}c"
    conv = _conv(x, w, root, out_layout=out_layout)
    return [conv, LayoutTransformOp(conv.result, out_layout, "NCHW")]


RULES: list[Rule] = [
    rewrite(
        Pat(Conv2dPackedOp, "x", "w"),
        when=[_blockable],
        to=conv_nchwc,
        name="float-conv-nchwc",
        doc="contrib_conv2d_packed(x: NCHW float, groups = 1) = layout_transform(conv on"
        " layout_transform(x, NCHW -> NCHW<c>c), NCHW<b>c -> NCHW), c = the block x already"
        " has, else 16, 8 or 4 dividing C",
    ),
    rewrite(
        Pat(Conv2dPackedOp, "x", "w"),
        when=[_stem],
        to=conv_blocked_result,
        name="float-conv-blocked-result",
        doc="contrib_conv2d_packed(x: NCHW float of channels not a multiple of 4, a stem's;"
        " groups = 1) = layout_transform(the conv with out_layout NCHW<b>c, NCHW<b>c -> NCHW)",
    ),
    *SINK_RULES,
    *GLOBAL_POOL_RULES,
]


@documents_rules(RULES)
@dataclass(frozen=True)
class ConvertLayoutPass(ModulePass):
    """Run the float packed convs on blocked activations and keep them
    blocked through relus, scales, residual adds, concatenations and pools
    (see the module).

    Input: relay after ``relay-alter-op-layout``. Output: the same values;
    ``relay.nn.contrib_conv2d_packed`` with ``data_layout = "NCHW<c>c"``,
    elementwise ops and pools on blocked tensors, ``layout_transform`` only
    where an NCHW consumer or producer remains.

    ```mlir
    %a = relay.nn.contrib_conv2d_packed %x, %w1 {kernel_layout = "OIHW16o"} : (tensor<1x16x8x8xf32>, tensor<2x16x1x1x16xf32>) -> tensor<1x32x8x8xf32>
    %r = relay.nn.relu %a : tensor<1x32x8x8xf32>
    %b = relay.nn.contrib_conv2d_packed %r, %w2 {kernel_layout = "OIHW16o"} : (tensor<1x32x8x8xf32>, tensor<1x32x1x1x16xf32>) -> tensor<1x16x8x8xf32>
    // becomes
    %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x16x8x8xf32>) -> tensor<1x1x8x8x16xf32>
    %1 = relay.nn.contrib_conv2d_packed %0, %w1 {kernel_layout = "OIHW16o", data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<2x16x1x1x16xf32>) -> tensor<1x2x8x8x16xf32>
    %2 = relay.nn.relu %1 : tensor<1x2x8x8x16xf32>
    %3 = relay.nn.contrib_conv2d_packed %2, %w2 {kernel_layout = "OIHW16o", data_layout = "NCHW16c"} : (tensor<1x2x8x8x16xf32>, tensor<1x32x1x1x16xf32>) -> tensor<1x1x8x8x16xf32>
    %b = relay.layout_transform %3 {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x8x8x16xf32>) -> tensor<1x16x8x8xf32>
    ```
    """

    name = "relay-convert-layout"

    lanes: int = 0
    """f32 lanes of a vector register; 0 = those of ``Target.current()``."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if (self.lanes or lanes()) >= MIN_LANES:
            apply_rules(op, RULES)
