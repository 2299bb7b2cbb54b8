"""The ``relay`` dialect: TVM's Relay ops on tensor values.

Ops are grouped by category, mirroring TVM: ``tensor`` (constants and
elementwise maths), ``nn`` (``relay.nn.*``), ``transform`` (shapes, tuples,
calls of lowered kernels). ``base`` holds what they share.
"""

from xdsl.ir import Dialect

from xtvm.dialects.relay.base import OpPattern, RelayOp, RelayTypeError
from xtvm.dialects.relay.nn import BiasAddOp, DenseOp, MatmulOp, ReluOp, SoftmaxOp
from xtvm.dialects.relay.tensor import (
    AddOp,
    BinaryOp,
    ConstOp,
    DivideOp,
    MultiplyOp,
    SubtractOp,
    UnaryOp,
)
from xtvm.dialects.relay.transform import (
    CallLoweredOp,
    ReshapeOp,
    TransposeOp,
    TupleGetOp,
    TupleOp,
)

RELAY_OPS: list[type[RelayOp]] = [
    ConstOp,
    AddOp,
    SubtractOp,
    MultiplyOp,
    DivideOp,
    ReluOp,
    DenseOp,
    MatmulOp,
    BiasAddOp,
    SoftmaxOp,
    ReshapeOp,
    TransposeOp,
    TupleOp,
    TupleGetOp,
    CallLoweredOp,
]

RELAY = Dialect("relay", RELAY_OPS, [])

__all__ = [
    "RELAY",
    "RELAY_OPS",
    "AddOp",
    "BiasAddOp",
    "BinaryOp",
    "CallLoweredOp",
    "ConstOp",
    "DenseOp",
    "DivideOp",
    "MatmulOp",
    "MultiplyOp",
    "OpPattern",
    "RelayOp",
    "RelayTypeError",
    "ReluOp",
    "ReshapeOp",
    "SoftmaxOp",
    "SubtractOp",
    "TransposeOp",
    "TupleGetOp",
    "TupleOp",
    "UnaryOp",
]
