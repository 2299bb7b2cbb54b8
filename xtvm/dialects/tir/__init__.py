"""The `tir` dialect: TVM's TensorIR loop programs over buffers.

Scalar arithmetic uses xDSL's `arith` and `math` dialects; loop variables and
buffer indices are `index` values; buffers are memrefs, statically shaped or
with dynamic axes whose extents are the function's shape variables
(`tir.shape_vars`, read with `tir.shape_var`; docs/dynamic-shapes.md).

    tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>)
        attributes {arg_names = ["A", "B"]} {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      tir.for %i = %c0 to %c3 kind "serial" {
        %v = tir.load %A[%i] : memref<3xf32>
        %one = arith.constant 1.0 : f32
        %s = arith.addf %v, %one : f32
        tir.store %s, %B[%i] : memref<3xf32>
      }
      tir.return
    }
"""

from xdsl.ir import Dialect

from xtvm.dialects.tir.call import PREFETCH, CallExternOp, CallIntrinOp
from xtvm.dialects.tir.control import LOOP_KINDS, AssertOp, ForOp, IfOp, YieldOp
from xtvm.dialects.tir.func import (
    BUFFER_SHAPES_ATTR,
    DYNAMIC,
    SHAPE_VARS_ATTR,
    PrimFuncOp,
    ReturnOp,
    ShapeVarOp,
)
from xtvm.dialects.tir.memory import ALLOCATE_SCOPES, AllocateOp, LoadOp, StoreOp

TIR = Dialect(
    "tir",
    [
        PrimFuncOp,
        ReturnOp,
        ShapeVarOp,
        ForOp,
        IfOp,
        YieldOp,
        AssertOp,
        LoadOp,
        StoreOp,
        AllocateOp,
        CallExternOp,
        CallIntrinOp,
    ],
    [],
)

__all__ = [
    "ALLOCATE_SCOPES",
    "BUFFER_SHAPES_ATTR",
    "DYNAMIC",
    "LOOP_KINDS",
    "PREFETCH",
    "SHAPE_VARS_ATTR",
    "TIR",
    "AllocateOp",
    "AssertOp",
    "CallExternOp",
    "CallIntrinOp",
    "ForOp",
    "IfOp",
    "LoadOp",
    "PrimFuncOp",
    "ReturnOp",
    "ShapeVarOp",
    "StoreOp",
    "YieldOp",
]
