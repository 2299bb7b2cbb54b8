"""TOPI: the tensor-expression computes of relay ops, by category as the
relay dialect: ``tensor`` (elementwise maths), ``reduce``, ``nn``, ``conv``,
``pool``, ``transform`` (shapes and layouts), ``indexing`` (take, slices).

Each function takes ``te.Tensor`` inputs and Python attribute values and
returns the output ``te.Tensor`` (a list for ``split``);
``te.create_prim_func`` lowers the result.
"""

from xtvm.topi import indexing, reduce
from xtvm.topi.conv import conv2d_nchw
from xtvm.topi.indexing import strided_slice, take
from xtvm.topi.nn import (
    batch_flatten,
    batch_norm,
    bias_add,
    dense,
    dropout,
    lrn,
    matmul,
    relu,
    softmax,
)
from xtvm.topi.pool import avg_pool2d, global_avg_pool2d, global_max_pool2d, max_pool2d
from xtvm.topi.tensor import (
    abs,
    add,
    broadcast_compute,
    broadcast_indices,
    broadcast_shape,
    cast,
    clip,
    divide,
    elemwise,
    exp,
    full,
    identity,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    power,
    shape_of,
    sigmoid,
    sqrt,
    subtract,
    tanh,
)
from xtvm.topi.transform import concatenate, expand_dims, reshape, split, squeeze, transpose

__all__ = [
    "abs",
    "add",
    "avg_pool2d",
    "batch_flatten",
    "batch_norm",
    "bias_add",
    "broadcast_compute",
    "broadcast_indices",
    "broadcast_shape",
    "cast",
    "clip",
    "concatenate",
    "conv2d_nchw",
    "dense",
    "divide",
    "dropout",
    "elemwise",
    "exp",
    "expand_dims",
    "full",
    "global_avg_pool2d",
    "global_max_pool2d",
    "identity",
    "indexing",
    "log",
    "lrn",
    "matmul",
    "max_pool2d",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "power",
    "reduce",
    "relu",
    "reshape",
    "shape_of",
    "sigmoid",
    "softmax",
    "split",
    "sqrt",
    "squeeze",
    "strided_slice",
    "subtract",
    "take",
    "tanh",
    "transpose",
]
