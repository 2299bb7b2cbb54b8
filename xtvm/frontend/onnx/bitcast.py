"""Converter for ``BitCast`` (opset 26) → ``relay.reinterpret``: the bits
of each element as the type ``to`` of the same width."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xtvm.dialects.relay import ReinterpretOp
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


class BitCast(OnnxOpConverter):
    """``BitCast(input)`` with attribute ``to`` (an ONNX element type);
    the widths must match (the type rule says which differ)."""

    @classmethod
    def _impl_v26(cls, node: OnnxNode) -> SSAValue:
        if "to" not in node.attrs:
            raise node.error("attribute 'to' is required")
        dtype = dtype_from_onnx(node.attrs["to"], f"{node.label}: attribute 'to'")
        return node.emit(ReinterpretOp(node.input(0), dtype))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"BitCast": BitCast}
