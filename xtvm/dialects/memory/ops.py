"""The ``memory`` dialect's type and ops: explicit storage, tensors placed in
it, destination-passing kernel calls and lifetime ends.

Sizes and offsets are in bytes. Tensors placed in storage have static shapes
and a fixed-width element type (``i1`` takes one byte, as in DLPack): dynamic
shapes take the ``vm`` path, whose allocation ops take sizes as values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    FixedBitwidthType,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryAllocEffect, MemoryFreeEffect, MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from xtvm.dtypes import storage_nbytes

DEFAULT_ALIGNMENT = 64
"""Byte alignment of storage (the runtime's ``NDArray`` alignment)."""

MAX_STORAGE_BYTES = 1 << 47
"""The largest storage that can exist: x86-64's user address space (128 TiB).
Larger sizes are refused when they are planned, not when a run allocates."""


def format_bytes(n: int) -> str:
    """``n`` bytes for people: ``425.0 TiB``."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{n} B"
        size /= 1024
    return f"{n} B"


def tensor_nbytes(ty: Attribute) -> int | None:
    """Bytes of a statically shaped tensor with a fixed-width element type
    (``tensor<1x256xf32>`` -> 1024; sub-byte elements packed:
    ``tensor<5xi4>`` -> 3); ``None`` for any other type."""
    if not isinstance(ty, TensorType) or not ty.has_static_shape():
        return None
    element = ty.element_type
    if not isinstance(element, FixedBitwidthType):
        return None
    count = math.prod(ty.get_shape())
    packed = storage_nbytes(element, count)
    return count * element.size if packed is None else packed


@irdl_attr_definition
class StorageType(ParametrizedAttribute, TypeAttribute):
    """A block of raw bytes that tensors are placed in: ``!memory.storage``."""

    name = "memory.storage"


@irdl_op_definition
class AllocStorageOp(IRDLOperation):
    """Allocates ``size`` bytes aligned to ``alignment`` (TVM's
    ``memory.alloc_storage``). Before planning each tensor has its own
    storage; after ``memory-plan`` one arena (or one storage per storage id)
    holds every planned tensor.

    ```mlir
    %s = memory.alloc_storage {size = 4096 : i64, alignment = 64 : i64} : !memory.storage
    ```
    """

    name = "memory.alloc_storage"
    size = prop_def(IntegerAttr.constr(type=i64))
    alignment = prop_def(IntegerAttr.constr(type=i64))
    storage = result_def(StorageType)
    traits = traits_def(MemoryAllocEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($storage)"

    def __init__(self, size: int, alignment: int = DEFAULT_ALIGNMENT):
        super().__init__(
            properties={"size": IntegerAttr(size, i64), "alignment": IntegerAttr(alignment, i64)},
            result_types=[StorageType()],
        )

    def verify_(self) -> None:
        size = self.size.value.data
        if size < 0:
            raise VerifyException(f"memory.alloc_storage size {size} is negative")
        if size > MAX_STORAGE_BYTES:
            raise VerifyException(
                f"memory.alloc_storage of {format_bytes(size)} cannot be allocated (more than the "
                f"{format_bytes(MAX_STORAGE_BYTES)} address space)"
            )
        align = self.alignment.value.data
        if align <= 0 or align & (align - 1):
            raise VerifyException(f"memory.alloc_storage alignment {align} is not a power of two")


@irdl_op_definition
class AllocTensorOp(IRDLOperation):
    """A tensor living in ``storage`` at byte ``offset`` (TVM's
    ``memory.alloc_tensor``). It allocates nothing itself: its bytes are
    ``[offset, offset + nbytes)`` of the storage, and the verifier checks they
    fit when the storage's size is known here.

    ```mlir
    %t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
    ```
    """

    name = "memory.alloc_tensor"
    storage = operand_def(StorageType)
    offset = prop_def(IntegerAttr.constr(type=i64))
    result = result_def(TensorType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$storage attr-dict `:` type($result)"

    def __init__(self, storage: SSAValue, offset: int, result_type: TensorType):
        super().__init__(
            operands=[storage],
            properties={"offset": IntegerAttr(offset, i64)},
            result_types=[result_type],
        )

    @property
    def nbytes(self) -> int:
        """The tensor's size in bytes (the verifier guarantees it is static)."""
        n = tensor_nbytes(self.result.type)
        assert n is not None
        return n

    def verify_(self) -> None:
        ty = self.result.type
        nbytes = tensor_nbytes(ty)
        if nbytes is None:
            raise VerifyException(
                f"memory.alloc_tensor needs a statically shaped tensor of a fixed-width "
                f"element type, got {ty} (dynamic shapes take the vm path)"
            )
        offset = self.offset.value.data
        if offset < 0:
            raise VerifyException(f"memory.alloc_tensor offset {offset} is negative")
        element_size = ty.element_type.size
        if offset % element_size:
            raise VerifyException(
                f"memory.alloc_tensor offset {offset} is not a multiple of the element size "
                f"{element_size} of {ty}"
            )
        owner = self.storage.owner
        if isinstance(owner, AllocStorageOp) and offset + nbytes > owner.size.value.data:
            raise VerifyException(
                f"memory.alloc_tensor {ty} at offset {offset} needs bytes up to "
                f"{offset + nbytes}, but its storage has {owner.size.value.data}"
            )


class DestinationCallOp(IRDLOperation):
    """A call of the kernel ``callee`` on its inputs, then the tensors it
    writes (destination passing): the fields, syntax and checks that
    ``memory.invoke_kernel`` and ``vm.invoke_packed`` share."""

    callee = prop_def(FlatSymbolRefAttrConstr)
    inputs = var_operand_def(TensorType)
    outputs = var_operand_def(TensorType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$callee (`ins` `(` $inputs^ `:` type($inputs) `)`)? "
        "`outs` `(` $outputs `:` type($outputs) `)` attr-dict"
    )

    def __init__(self, callee: str, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]):
        super().__init__(operands=[inputs, outputs], properties={"callee": SymbolRefAttr(callee)})

    def verify_(self) -> None:
        what = f"{self.name} @{self.callee.string_value()}"
        if not self.outputs:
            raise VerifyException(f"{what} has no output tensor")
        written = set(self.outputs)
        if len(written) != len(self.outputs):
            raise VerifyException(f"{what} writes one tensor twice")
        if any(v in written for v in self.inputs):
            raise VerifyException(f"{what} writes into one of its own inputs")


@irdl_op_definition
class InvokeKernelOp(DestinationCallOp):
    """Calls the kernel ``callee`` (a ``tir.prim_func``) with its inputs, then
    the tensors it writes (TVM's ``invoke_tvm_op``, destination passing). The
    callee's signature is checked by the lowering that creates the call.

    ```mlir
    memory.invoke_kernel @fused_nn_dense_nn_relu ins(%x, %w : tensor<1x784xf32>, tensor<256x784xf32>) outs(%t : tensor<1x256xf32>)
    ```
    A kernel without inputs omits ``ins(...)``.
    """

    name = "memory.invoke_kernel"


@irdl_op_definition
class KillOp(IRDLOperation):
    """Ends the lifetime of a tensor from ``memory.alloc_tensor``: nothing
    uses it afterwards, so its bytes may hold another tensor (TVM's
    ``memory.kill``).

    ```mlir
    memory.kill %t : tensor<1x256xf32>
    ```
    """

    name = "memory.kill"
    tensor = operand_def(TensorType)
    traits = traits_def(MemoryFreeEffect())
    assembly_format = "$tensor attr-dict `:` type($tensor)"

    def __init__(self, tensor: SSAValue):
        super().__init__(operands=[tensor])

    def verify_(self) -> None:
        if not isinstance(self.tensor.owner, AllocTensorOp):
            raise VerifyException("memory.kill expects a tensor from memory.alloc_tensor")
        block = self.parent_block()
        for use in self.tensor.uses:
            user = use.operation
            # Walk forward from the user: short when it precedes the kill.
            if (
                user is not self
                and user.parent_block() is block
                and not user.is_before_in_block(self)
            ):
                raise VerifyException(
                    f"memory.kill ends a tensor that '{user.name}' uses afterwards"
                )
