"""The ``memory`` dialect: explicit allocation after lowering (TVM's Relay
memory dialect), the input and output of memory planning.

``memory-manifest-alloc`` turns the graph function's ``relay.call_lowered``
ops into these ops; ``memory-plan`` then shares storage between tensors whose
lifetimes do not overlap:

```mlir
%s = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
%t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
memory.invoke_kernel @fused_nn_dense_nn_relu ins(%x, %w : tensor<1x784xf32>, tensor<256x784xf32>) outs(%t : tensor<1x256xf32>)
memory.kill %t : tensor<1x256xf32>
```
"""

from xdsl.ir import Dialect

from xtvm.dialects.memory.ops import (
    DEFAULT_ALIGNMENT,
    MAX_STORAGE_BYTES,
    AllocStorageOp,
    AllocTensorOp,
    InvokeKernelOp,
    KillOp,
    StorageType,
    format_bytes,
    tensor_nbytes,
)

MEMORY = Dialect("memory", [AllocStorageOp, AllocTensorOp, InvokeKernelOp, KillOp], [StorageType])

__all__ = [
    "DEFAULT_ALIGNMENT",
    "MAX_STORAGE_BYTES",
    "MEMORY",
    "AllocStorageOp",
    "AllocTensorOp",
    "InvokeKernelOp",
    "KillOp",
    "StorageType",
    "format_bytes",
    "tensor_nbytes",
]
