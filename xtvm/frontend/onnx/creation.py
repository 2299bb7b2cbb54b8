"""Converters for ops that build tensors from positions: ``Range`` (→
``relay.arange``), ``OneHot`` (→ ``relay.one_hot``), ``Trilu`` (→
``relay.trilu``) and ``EyeLike`` (→ ``relay.one_hot`` of the diagonal's
column indices)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

from xtvm.dialects.relay import ArangeOp, CastOp, OneHotOp, ReshapeOp, StridedSliceOp, TriluOp
from xtvm.dtypes import dtype_name
from xtvm.frontend.onnx.common import dtype_from_onnx
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


class Range(OnnxOpConverter):
    """``Range`` → ``relay.arange``: ``start``, ``limit`` and ``delta`` are
    compile-time scalars of the output's type."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        start, limit, delta = (node.constant_scalar(i) for i in range(3))
        if delta == 0:
            raise node.error(f"{node.input_label(2)} must not be 0")
        dtype = str(np.asarray(start).dtype)
        return node.emit(ArangeOp(float(start), float(limit), float(delta), dtype))


class OneHot(OnnxOpConverter):
    """``OneHot`` → ``relay.one_hot``: ``depth`` is a compile-time scalar
    (any numeric type), ``values`` the run-time pair ``[off, on]``.
    Floating-point indices are truncated to integers first (as
    onnxruntime)."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        depth = node.constant_scalar(1)
        if depth < 1:
            raise node.error(f"{node.input_label(1)} = {depth} must be >= 1")
        indices = node.input(0)
        assert isinstance(indices.type, TensorType)
        if not isinstance(indices.type.element_type, IntegerType):
            indices = node.emit(CastOp(indices, "int64"))
        if node.input_shape(2) != (2,):
            raise node.error(
                f"{node.input_label(2)} must hold 2 values [off, on], "
                f"got shape {list(node.input_shape(2))}"
            )
        values = node.input(2)
        off, on = (
            node.emit(ReshapeOp(node.emit(StridedSliceOp(values, [k], [k + 1])), []))
            for k in (0, 1)
        )
        return node.emit(OneHotOp(indices, on, off, int(depth), node.attr("axis", -1)))


class Trilu(OnnxOpConverter):
    """``Trilu`` → ``relay.trilu``; ``k`` (default 0) is a compile-time scalar."""

    @classmethod
    def _impl_v14(cls, node: OnnxNode) -> SSAValue:
        k = int(node.constant_scalar(1)) if node.has_input(1) else 0
        return node.emit(TriluOp(node.input(0), bool(node.attr("upper", 1)), k))


class EyeLike(OnnxOpConverter):
    """``EyeLike``: ones on diagonal ``k`` of a 2-d tensor shaped like the
    input, of ``dtype`` (default: the input's) → ``relay.one_hot`` of row
    ``i``'s column ``i + k`` (an index past the last column gives a row of
    zeros)."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        shape = static_shape(node.input(0))
        if len(shape) != 2:
            raise node.error(f"input must be 2-d, got shape {list(shape)}")
        rows, cols = shape
        ty = node.input(0).type
        assert isinstance(ty, TensorType)
        dtype = node.attr("dtype")
        dtype = dtype_name(ty.element_type) if dtype is None else dtype_from_onnx(dtype, "dtype")
        columns = np.arange(rows, dtype=np.int64) + node.attr("k", 0)
        columns = np.where((columns >= 0) & (columns < cols), columns, cols)
        on, off = (node.const(np.array(v, dtype)) for v in (1, 0))
        return node.emit(OneHotOp(node.const(columns), on, off, cols))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Range": Range,
    "OneHot": OneHot,
    "Trilu": Trilu,
    "EyeLike": EyeLike,
}
