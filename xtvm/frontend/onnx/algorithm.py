"""Converters for ``TopK`` (→ ``relay.topk``), ``CumSum`` (→
``relay.cumsum``), ``CumProd`` (→ ``relay.cumprod``) and ``Einsum`` (→ ``relay.einsum``)."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xtvm.dialects.relay import CumprodOp, CumsumOp, EinsumOp, TopKOp
from xtvm.dialects.relay.algorithm import ScanOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _flag(node: OnnxNode, name: str, default: int) -> bool:
    value = node.attr(name, default)
    if value not in (0, 1):
        raise node.unsupported_attr(name, "expected 0 or 1", default)
    return bool(value)


class TopK(OnnxOpConverter):
    """``TopK`` → ``relay.topk``: outputs ``Values`` and ``Indices`` along
    ``axis`` (default -1). ``K`` is an attribute before opset 10 and an
    input, needed at compile time, from 10; ``largest`` (v11, default 1)
    picks the largest or smallest elements. Results are always sorted
    (``sorted`` = 0 leaves the order to the backend), ties at the lower
    position first."""

    @classmethod
    def _topk(cls, node: OnnxNode, k: int) -> list[SSAValue]:
        if k < 0:
            raise node.error(f"K = {k} must be >= 0")
        _flag(node, "sorted", 1)
        op = TopKOp(
            node.input(0),
            k=k,
            axis=node.attr("axis", -1),
            is_ascend=not _flag(node, "largest", 1),
        )
        node.emit(op)
        return [op.values, op.indices]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[SSAValue]:
        # Opsets 1-9: `k` is a required attribute (the checker ensures it).
        return cls._topk(node, node.attrs["k"])

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> list[SSAValue]:
        # Opset 10+: `K` is a 1-d input of one element.
        (k,) = node.constant_ints(1) if node.input_shape(1) == (1,) else [node.constant_scalar(1)]
        return cls._topk(node, int(k))


class _Scan(OnnxOpConverter):
    """A running scan along ``axis`` (an input, a scalar needed at compile
    time), ``exclusive`` and ``reverse`` as attributes."""

    OP: type[ScanOp] = CumsumOp

    @classmethod
    def _scan(cls, node: OnnxNode) -> SSAValue:
        axis = int(node.constant_scalar(1))
        rank = len(node.input_shape(0))
        if not -rank <= axis < rank:
            raise node.error(f"{node.input_label(1)} = {axis} is out of range for rank {rank}")
        op = cls.OP(
            node.input(0),
            axis=axis % rank,
            exclusive=_flag(node, "exclusive", 0),
            reverse=_flag(node, "reverse", 0),
        )
        return node.emit(op)


class CumSum(_Scan):
    """``CumSum`` → ``relay.cumsum``: running sums. Every version (v14 only
    added element types)."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        return cls._scan(node)


class CumProd(_Scan):
    """``CumProd`` (opset 26) → ``relay.cumprod``: running products, with
    ``CumSum``'s inputs and attributes."""

    OP = CumprodOp

    @classmethod
    def _impl_v26(cls, node: OnnxNode) -> SSAValue:
        return cls._scan(node)


class Einsum(OnnxOpConverter):
    """``Einsum`` → ``relay.einsum`` with the same ``equation`` (NumPy's
    syntax, ``...`` included)."""

    @classmethod
    def _impl_v12(cls, node: OnnxNode) -> SSAValue:
        inputs = [node.input(i) for i in range(len(node.proto.input))]
        return node.emit(EinsumOp(inputs, node.attrs["equation"]))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "TopK": TopK,
    "CumSum": CumSum,
    "CumProd": CumProd,
    "Einsum": Einsum,
}
