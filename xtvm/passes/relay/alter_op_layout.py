"""``relay-alter-op-layout``: give the heavy ops the weight layouts their x86
kernels read (TVM's ``AlterOpLayout`` with the x86 ``conv2d_alter_layout``
and ``dense_alter_layout`` hooks).

A float ``relay.nn.conv2d`` becomes ``relay.nn.contrib_conv2d_packed`` on a
``relay.layout_transform`` of its weight to ``OIHW<b>o``, and a 2-d float
``relay.nn.dense`` becomes ``relay.nn.contrib_dense_pack`` on ``NK<b>n``;
``b`` is :func:`xtvm.topi.x86.config.conv2d_block` / ``dense_block`` of the
target (one vector register of output channels; the pass option ``lanes``
sets the register's f32 lanes, 0 = those of ``Target.current()``). With constant weights,
``relay-fold-constant`` then packs them once at compile time. Convolutions
whose block would be under 4 channels (depthwise ones) keep the generic
kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects.relay import (
    Conv2dOp,
    Conv2dPackedOp,
    DenseOp,
    DensePackOp,
    LayoutTransformOp,
)
from xtvm.dialects.relay.base import is_float
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite
from xtvm.topi.x86.config import conv2d_block, dense_block, lanes

MIN_BLOCK = 4
"""Smallest output-channel block worth a packed kernel."""


def _conv_block(weight: SSAValue, root: Conv2dOp, vector_lanes: int) -> int:
    assert isinstance(weight.type, TensorType)
    return conv2d_block(weight.type.get_shape()[0] // root.attrs["groups"], vector_lanes)


def conv2d_packed(x: SSAValue, w: SSAValue, root: Conv2dOp, block: int) -> list[Operation]:
    layout = f"OIHW{block}o"
    packed = LayoutTransformOp(w, "OIHW", layout)
    packed.result.name_hint = f"{w.name_hint}_packed" if w.name_hint else None
    attrs = root.attrs
    conv = Conv2dPackedOp(
        x,
        packed.result,
        layout,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=attrs["groups"],
    )
    return [packed, conv]


def dense_pack(x: SSAValue, w: SSAValue, block: int) -> list[Operation]:
    layout = f"NK{block}n"
    packed = LayoutTransformOp(w, "NK", layout)
    packed.result.name_hint = f"{w.name_hint}_packed" if w.name_hint else None
    return [packed, DensePackOp(x, packed.result, layout)]


def _plain_float_conv(x: SSAValue, w: SSAValue, root: Conv2dOp) -> bool:
    return (
        is_float(x.type.element_type)
        and root.attrs.get("out_dtype") in (None, "float32")
        and x.type.element_type == w.type.element_type
    )


def rules(vector_lanes: int) -> list[Rule]:
    """The rewrites for registers of ``vector_lanes`` f32 lanes."""
    return [
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[
                _plain_float_conv,
                lambda w, root: _conv_block(w, root, vector_lanes) >= MIN_BLOCK,
            ],
            to=lambda x, w, root: conv2d_packed(
                x, w, root, _conv_block(w, root, vector_lanes)
            ),
            name="conv2d-packed",
            doc="conv2d(x, w) = contrib_conv2d_packed(x, layout_transform(w, OIHW -> OIHW<b>o))"
            f" for a float conv whose block b is at least {MIN_BLOCK}",
        ),
        rewrite(
            Pat(DenseOp, "x", "w"),
            when=[
                lambda x, w: is_float(x.type.element_type)
                and len(x.type.get_shape()) == 2
                and dense_block(w.type.get_shape()[0], vector_lanes) >= MIN_BLOCK
            ],
            to=lambda x, w: dense_pack(x, w, dense_block(w.type.get_shape()[0], vector_lanes)),
            name="dense-pack",
            doc="dense(x, w) = contrib_dense_pack(x, layout_transform(w, NK -> NK<b>n))"
            f" for a 2-d float dense whose block b is at least {MIN_BLOCK}",
        ),
    ]


@documents_rules(rules(vector_lanes=16))  # names and docs are the same for any lanes
@dataclass(frozen=True)
class AlterOpLayoutPass(ModulePass):
    """Pack the weights of float ``conv2d`` and ``dense`` for the x86 kernels.

    Input: relay IR with exact types. Output: ``relay.nn.contrib_conv2d_packed``
    / ``relay.nn.contrib_dense_pack`` reading ``relay.layout_transform`` of the
    weights; every other value unchanged.

    ```mlir
    %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
    // becomes (16 lanes of f32: AVX-512)
    %w_packed = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<32x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
    %y = relay.nn.contrib_conv2d_packed %x, %w_packed {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
    ```
    """

    name = "relay-alter-op-layout"

    lanes: int = 0
    """f32 lanes of a vector register; 0 = those of ``Target.current()``."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, rules(self.lanes or lanes()))
