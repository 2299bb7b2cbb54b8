"""Converter for ``Det`` (opsets 11 and 22) → ``relay.det``."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xtvm.dialects.relay import DetOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


class Det(OnnxOpConverter):
    """``Det(X [..., n, n])`` → the determinants ``[...]``."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        return node.emit(DetOp(node.input(0)))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"Det": Det}
