"""Converter for ``CausalConvWithState`` (opset 27), the depthwise causal
1-d convolution of state-space and linear-attention models, composed of
relay ops: the carried state (zeros without ``past_state``) is prepended
to the input, a depthwise ``relay.nn.conv1d`` without padding gives one
output per input step, the optional bias and SiLU follow (SiLU in float32
for float16, as ONNX's reference), and the last ``k - 1`` steps are the
new state."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AddOp,
    CastOp,
    ConcatenateOp,
    Conv1dOp,
    FullOp,
    MultiplyOp,
    ReshapeOp,
    SigmoidOp,
    StridedSliceOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.tensor import element_dtype


class CausalConvWithState(OnnxOpConverter):
    """``CausalConvWithState(input [B, C, T], weight [C, 1, k], bias?,
    past_state? [B, C, k - 1])`` → ``output [B, C, T], present_state``;
    ``activation`` is ``none``, ``silu`` or ``swish`` (the same)."""

    @classmethod
    def _impl_v27(cls, node: OnnxNode) -> list[SSAValue]:
        x, weight = node.input(0), node.input(1)
        shape, wshape = node.input_shape(0), node.input_shape(1)
        if len(shape) != 3:
            raise node.error(f"input must be [batch, channels, length], got {list(shape)}")
        batch, channels, steps = shape
        if len(wshape) != 3 or wshape[0] != channels or wshape[1] != 1:
            raise node.error(f"weight must be [{channels}, 1, k], got {list(wshape)}")
        k = wshape[2]
        activation = node.attr("activation", "none")
        if activation not in ("none", "silu", "swish"):
            raise node.error(f"activation must be 'none', 'silu' or 'swish', got {activation!r}")
        dtype = element_dtype(x)
        state_shape = [batch, channels, k - 1]
        if node.has_input(3):
            if list(node.input_shape(3)) != state_shape:
                raise node.error(
                    f"past_state must be {state_shape}, got {list(node.input_shape(3))}"
                )
            padded = node.emit(ConcatenateOp([node.input(3), x], 2))
        elif k > 1:
            zeros = node.emit(FullOp(node.const(np.zeros((), dtype)), state_shape))
            padded = node.emit(ConcatenateOp([zeros, x], 2))
        else:
            padded = x
        y = node.emit(
            Conv1dOp(padded, weight, padding=[0, 0], groups=channels, channels=channels,
                     kernel_size=[k])
        )
        if node.has_input(2):
            y = node.emit(AddOp(y, node.emit(ReshapeOp(node.input(2), [1, channels, 1]))))
        if activation != "none":
            wide = y if dtype.itemsize >= 4 else node.emit(CastOp(y, "float32"))
            wide = node.emit(MultiplyOp(wide, node.emit(SigmoidOp(wide))))
            y = wide if wide is y else node.emit(CastOp(wide, str(dtype)))
        state = node.emit(StridedSliceOp(padded, [steps], [steps + k - 1], axes=[2]))
        return [y, state]


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"CausalConvWithState": CausalConvWithState}
