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
    A kernel with shape variables also has `"shape_vars": {name: [[argument,
    axis], ...]}` (its dynamic axes are -1 in the shapes), from which the
    runtime explains a shape mismatch.
    """
    args = [
        {"name": name, "shape": list(shape or ()), "dtype": arg_dtype(arg.type)}
        for name, shape, arg in zip(func.arg_names, func.buffer_shapes, func.args, strict=True)
    ]
    signature: dict[str, Any] = {"args": args, "asserts": assert_messages(func)}
    if shape_vars := func.shape_vars:
        signature["shape_vars"] = {n: [list(p) for p in axes] for n, axes in shape_vars.items()}
    return signature
