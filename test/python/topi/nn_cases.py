"""Numerical cases of the reductions, softmax family, convolutions, pools,
topk, cumsum and einsum for ``test_topi_relay_ops`` (same tuple format as
its ``CASES``). Integer inputs are random in [-50, 50), so small integer
tensors hold ties, which argmax/argmin and topk must break like the
references."""

from __future__ import annotations

from typing import Any

from xtvm.dialects import relay

F32, F64, I32, I64 = "float32", "float64", "int32", "int64"

Case = tuple[str, type[relay.RelayOp], list[tuple[tuple[int, ...], str]], dict[str, Any]]

REDUCE_CASES: list[Case] = [
    ("prod", relay.ProdOp, [((2, 3, 4), F32)], {"axis": (1,)}),
    ("prod-int64-keepdims", relay.ProdOp, [((2, 3), I64)], {"axis": (0,), "keepdims": True}),
    ("max-empty", relay.MaxOp, [((3, 0), F32)], {"axis": (1,)}),
    ("min-empty-keepdims", relay.MinOp, [((0, 2), F64)], {"axis": (0,), "keepdims": True}),
    ("argmax", relay.ArgMaxOp, [((3, 4, 5), F32)], {"axis": (1,)}),
    ("argmax-all", relay.ArgMaxOp, [((3, 4), F32)], {}),
    (
        "argmax-int32-ties-last",
        relay.ArgMaxOp,
        [((6, 3), I32)],
        {"axis": (0,), "keepdims": True, "select_last_index": True},
    ),
    ("argmin-two-axes", relay.ArgMinOp, [((2, 3, 4), F64)], {"axis": (0, 2)}),
    ("argmin-int64-ties", relay.ArgMinOp, [((3, 7), I64)], {"axis": (-1,)}),
]

NN_CASES: list[Case] = [
    ("log_softmax", relay.LogSoftmaxOp, [((3, 5), F32)], {"axis": -1}),
    ("log_softmax-axis0-float64", relay.LogSoftmaxOp, [((4, 2, 3), F64)], {"axis": 0}),
    ("hardmax", relay.HardmaxOp, [((3, 4, 5), F32)], {"axis": 1}),
    (
        "conv1d",
        relay.Conv1dOp,
        [((2, 4, 9), F32), ((6, 2, 3), F32)],
        {"strides": (2,), "padding": (1, 2), "groups": 2},
    ),
    (
        "conv3d",
        relay.Conv3dOp,
        [((1, 2, 5, 6, 5), F32), ((3, 2, 2, 3, 2), F32)],
        {"strides": (1, 2, 1), "padding": (1, 0, 1, 0, 1, 1), "dilation": (2, 1, 1)},
    ),
    (
        "conv2d_transpose",
        relay.Conv2dTransposeOp,
        [((1, 4, 5, 5), F32), ((4, 2, 3, 3), F32)],
        {"strides": (2, 2), "padding": (1, 1, 1, 1), "output_padding": (1, 1)},
    ),
    (
        "conv2d_transpose-grouped-dilated",
        relay.Conv2dTransposeOp,
        [((2, 4, 3, 4), F32), ((4, 3, 3, 2), F32)],
        {"strides": (3, 2), "padding": (0, 1, 2, 0), "dilation": (2, 1), "groups": 2},
    ),
    ("conv1d_transpose", relay.Conv1dTransposeOp, [((1, 3, 5), F32), ((3, 2, 3), F32)], {}),
    (
        "conv3d_transpose-float64",
        relay.Conv3dTransposeOp,
        [((1, 2, 3, 4, 3), F64), ((2, 3, 3, 2, 2), F64)],
        {"strides": (2, 1, 2), "output_padding": (1, 0, 0)},
    ),
    (
        "max_pool1d-pad-ceil",
        relay.MaxPool1dOp,
        [((2, 3, 9), F32)],
        {"pool_size": (3,), "strides": (2,), "padding": (1, 1), "ceil_mode": True},
    ),
    (
        "avg_pool1d-count-pad",
        relay.AvgPool1dOp,
        [((2, 3, 9), F32)],
        {"pool_size": (3,), "strides": (2,), "padding": (1, 2), "count_include_pad": True},
    ),
    (
        "max_pool2d_with_argmax",
        relay.MaxPool2dWithArgmaxOp,
        [((2, 3, 7, 6), F32)],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1), "ceil_mode": True},
    ),
    (
        "max_pool2d_with_argmax-int32-column-major",
        relay.MaxPool2dWithArgmaxOp,
        [((1, 2, 5, 5), I32)],
        {"pool_size": (2, 2), "dilation": (2, 2), "column_major": True},
    ),
    (
        "max_pool3d-dilation",
        relay.MaxPool3dOp,
        [((1, 2, 5, 6, 7), F32)],
        {"pool_size": (2, 3, 2), "strides": (2, 1, 2), "dilation": (1, 2, 1)},
    ),
    (
        "avg_pool3d-pad-ceil",
        relay.AvgPool3dOp,
        [((1, 2, 5, 6, 7), F32)],
        {
            "pool_size": (2, 3, 2),
            "strides": (2, 2, 2),
            "padding": (1, 1, 1, 1, 1, 0),
            "ceil_mode": True,
        },
    ),
]

ALGORITHM_CASES: list[Case] = [
    ("topk", relay.TopKOp, [((3, 6), F32)], {"k": 3, "axis": 1}),
    (
        "topk-int64-ties-ascend",
        relay.TopKOp,
        [((8, 3), I64)],
        {"k": 5, "axis": 0, "is_ascend": True},
    ),
    ("topk-int32-ties-all", relay.TopKOp, [((2, 9), I32)], {"k": 9}),
    ("cumsum", relay.CumsumOp, [((3, 6), F32)], {"axis": 1}),
    (
        "cumsum-exclusive-reverse",
        relay.CumsumOp,
        [((4, 3), F64)],
        {"axis": 0, "exclusive": True, "reverse": True},
    ),
    ("cumsum-int32-reverse", relay.CumsumOp, [((2, 5), I32)], {"axis": -1, "reverse": True}),
    ("cumprod", relay.CumprodOp, [((3, 6), F32)], {"axis": 1}),
    (
        "cumprod-exclusive-reverse",
        relay.CumprodOp,
        [((4, 3), F64)],
        {"axis": 0, "exclusive": True, "reverse": True},
    ),
    ("cumprod-int32", relay.CumprodOp, [((2, 5), I32)], {"axis": -1}),
    (
        "einsum-batch-matmul",
        relay.EinsumOp,
        [((5, 2, 3), F32), ((5, 3, 4), F32)],
        {"equation": "bij,bjk->bik"},
    ),
    ("einsum-batch-diagonal", relay.EinsumOp, [((3, 5, 5), F64)], {"equation": "...ii->...i"}),
    ("einsum-inner", relay.EinsumOp, [((5,), F32), ((5,), F32)], {"equation": "i,i"}),
    ("einsum-transpose-int32", relay.EinsumOp, [((3, 4), I32)], {"equation": "ij->ji"}),
    (
        "einsum-broadcast-ellipsis",
        relay.EinsumOp,
        [((2, 1, 3, 4), F32), ((5, 4, 2), F32)],
        {"equation": "...ij,...jk"},
    ),
    (
        "einsum-three-operands",
        relay.EinsumOp,
        [((3,), F32), ((4,), F32), ((3, 4), F32)],
        {"equation": "i,j,ij->"},
    ),
]

HNN_CASES: list[Case] = REDUCE_CASES + NN_CASES + ALGORITHM_CASES
