"""The runtime signature of a prim_func: the `functions` entry of the metadata header."""

from __future__ import annotations

from typing import Any

from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.tir_to_llvm.function import assert_messages
from xtvm.lowering.tir_to_llvm.types import arg_dtype


def tir_signature(func: PrimFuncOp) -> dict[str, Any]:
    """`{"args": [{"name", "shape", "dtype"}, ...], "asserts": [...]}` (docs/abi.md).

    Shapes are the logical ones the packed entry checks (`tir.buffer_shapes`
    after flattening); a scalar parameter is a rank-0 tensor (shape `[]`).
    Assert messages are in program order, the index of error kind 7.
    """
    args = [
        {"name": name, "shape": list(shape or ()), "dtype": arg_dtype(arg.type)}
        for name, shape, arg in zip(func.arg_names, func.buffer_shapes, func.args, strict=True)
    ]
    return {"args": args, "asserts": assert_messages(func)}
