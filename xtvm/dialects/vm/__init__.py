"""The ``vm`` dialect: TVM's Relay VM bytecode as IR (docs/vm.md).

``convert-memory-to-vm`` turns the memory stage's ``@main`` into a
``vm.func``; the kernels stay ``tir.prim_func``s and become the kernel
library. ``xtvm.runtime.vm`` runs the executable made from a ``vm.func``:

```mlir
vm.func @main(%x: tensor<2x784xf32>) -> tensor<2x10xf32> {
  %s = vm.alloc_storage {size = 80 : i64, alignment = 64 : i64, dtype_hint = f32} : !vm.storage
  %y = vm.alloc_tensor %s {offset = 0 : i64} : tensor<2x10xf32>
  vm.invoke_packed @fused_dense ins(%x : tensor<2x784xf32>) outs(%y : tensor<2x10xf32>)
  vm.ret %y : tensor<2x10xf32>
}
```
"""

from xdsl.ir import Dialect

from xtvm.dialects.vm.ops import (
    DEFAULT_ALIGNMENT,
    NAME_ATTR,
    ADTType,
    AllocADTOp,
    AllocStorageOp,
    AllocTensorOp,
    FuncOp,
    GetFieldOp,
    GetTagOp,
    GotoOp,
    IfOp,
    InvokeOp,
    InvokePackedOp,
    KillOp,
    LoadConstIOp,
    LoadConstOp,
    ReshapeTensorOp,
    RetOp,
    ShapeFromOp,
    ShapeOfOp,
    StorageType,
)

VM = Dialect(
    "vm",
    [
        FuncOp,
        RetOp,
        IfOp,
        GotoOp,
        InvokeOp,
        InvokePackedOp,
        AllocStorageOp,
        AllocTensorOp,
        KillOp,
        LoadConstOp,
        LoadConstIOp,
        ShapeOfOp,
        ShapeFromOp,
        ReshapeTensorOp,
        AllocADTOp,
        GetFieldOp,
        GetTagOp,
    ],
    [StorageType, ADTType],
)

__all__ = [
    "DEFAULT_ALIGNMENT",
    "NAME_ATTR",
    "VM",
    "ADTType",
    "AllocADTOp",
    "AllocStorageOp",
    "AllocTensorOp",
    "FuncOp",
    "GetFieldOp",
    "GetTagOp",
    "GotoOp",
    "IfOp",
    "InvokeOp",
    "InvokePackedOp",
    "KillOp",
    "LoadConstIOp",
    "LoadConstOp",
    "ReshapeTensorOp",
    "RetOp",
    "ShapeFromOp",
    "ShapeOfOp",
    "StorageType",
]
