"""Every relay op, lowered by convert-relay-to-tir through its topi compute and
compiled to native code, against its NumPy reference on random inputs.

A generic test fails when a relay op lacks a compute, a reference or a case
here."""

from typing import Any

import numpy as np
import pytest
from elemwise_cases import ELEMWISE_CASES
from nn_cases import HNN_CASES
from shape_cases import RESIZE_CASES, SHAPE_CASES
from topi_testing import random, relay_op_module, run_relay, tensor_type

from xtvm.dialects import relay
from xtvm.dialects.relay import RELAY_OPS
from xtvm.dialects.relay.dynamic import DYNAMIC_OPS
from xtvm.lowering.conversion import ConversionError, apply_conversion
from xtvm.lowering.relay_to_tir import (
    COMPUTES,
    GRAPH_OPS,
    PATTERNS,
    populate_relay_to_tir_patterns,
)
from xtvm.lowering.relay_to_tir.convert_relay_to_tir import TARGET
from xtvm.dialects.relay.primitive import kernel_name
from xtvm.reference.relay import REFERENCES, evaluate_results

F32, F64, I32, I64 = "float32", "float64", "int32", "int64"

# (case id, op class, operand (shape, dtype) list, constructor keyword arguments)
CASES: list[tuple[str, type[relay.RelayOp], list[tuple[tuple[int, ...], str]], dict[str, Any]]] = [
    ("add", relay.AddOp, [((4, 3), F32), ((3,), F32)], {}),
    ("add-both-broadcast", relay.AddOp, [((4, 1), F32), ((1, 5), F32)], {}),
    ("add-scalar", relay.AddOp, [((2, 3), F64), ((), F64)], {}),
    ("add-int32", relay.AddOp, [((2, 3), I32), ((2, 3), I32)], {}),
    ("subtract", relay.SubtractOp, [((3, 1, 4), F32), ((2, 1), F32)], {}),
    ("subtract-int64", relay.SubtractOp, [((3, 1, 4), I64), ((2, 1), I64)], {}),
    ("multiply", relay.MultiplyOp, [((2, 3, 4), F32), ((4,), F32)], {}),
    ("multiply-int32", relay.MultiplyOp, [((5,), I32), ((1,), I32)], {}),
    ("divide", relay.DivideOp, [((2, 3), F32), ((3,), F32)], {}),
    ("divide-float64", relay.DivideOp, [((6,), F64), ((6,), F64)], {}),
    ("divide-int32", relay.DivideOp, [((4, 5), I32), ((5,), I32)], {}),
    ("divide-int64", relay.DivideOp, [((8,), I64), ((8,), I64)], {}),
    ("relu", relay.ReluOp, [((3, 7), F32)], {}),
    ("relu-float64", relay.ReluOp, [((5,), F64)], {}),
    ("relu-int32", relay.ReluOp, [((2, 2, 2), I32)], {}),
    ("relu-int64", relay.ReluOp, [((9,), I64)], {}),
    ("dense", relay.DenseOp, [((3, 8), F32), ((5, 8), F32)], {}),
    ("dense-3d-data", relay.DenseOp, [((2, 3, 8), F32), ((5, 8), F32)], {}),
    ("dense-float64", relay.DenseOp, [((1, 16), F64), ((4, 16), F64)], {}),
    ("dense-u8-s8-int32", relay.DenseOp, [((3, 20), "uint8"), ((5, 20), "int8")], {"out_dtype": "int32"}),
    (
        "matmul-s8-int32",
        relay.MatmulOp,
        [((2, 3, 6), "int8"), ((6, 4), "int8")],
        {"out_dtype": "int32"},
    ),
    ("matmul", relay.MatmulOp, [((3, 4), F32), ((4, 5), F32)], {}),
    ("matmul-batch-broadcast", relay.MatmulOp, [((2, 1, 3, 4), F32), ((5, 4, 6), F32)], {}),
    ("matmul-transpose-a", relay.MatmulOp, [((4, 3), F32), ((4, 5), F32)], {"transpose_a": True}),
    ("matmul-transpose-b", relay.MatmulOp, [((2, 3, 4), F32), ((5, 4), F32)], {"transpose_b": True}),
    (
        "matmul-transpose-both",
        relay.MatmulOp,
        [((2, 4, 3), F64), ((2, 5, 4), F64)],
        {"transpose_a": True, "transpose_b": True},
    ),
    ("bias_add", relay.BiasAddOp, [((2, 4, 3), F32), ((4,), F32)], {"axis": 1}),
    ("bias_add-last-axis", relay.BiasAddOp, [((2, 3), F32), ((3,), F32)], {"axis": -1}),
    ("softmax", relay.SoftmaxOp, [((3, 5), F32)], {"axis": -1}),
    ("softmax-axis0", relay.SoftmaxOp, [((4, 2, 3), F32)], {"axis": 0}),
    ("softmax-float64", relay.SoftmaxOp, [((2, 6), F64)], {"axis": 1}),
    ("reshape", relay.ReshapeOp, [((2, 3, 4), F32)], {"newshape": (0, -1)}),
    ("reshape-int32", relay.ReshapeOp, [((2, 3, 4), I32)], {"newshape": (4, 3, 2)}),
    ("transpose", relay.TransposeOp, [((2, 3, 4), F32)], {}),
    ("transpose-axes", relay.TransposeOp, [((2, 3, 4), I64)], {"axes": (1, 2, 0)}),
    ("transpose-negative-axes", relay.TransposeOp, [((2, 3, 4), F32)], {"axes": (-1, 0, 1)}),
    # elementwise maths
    ("maximum", relay.MaximumOp, [((3, 4), F32), ((4,), F32)], {}),
    ("minimum-int32", relay.MinimumOp, [((3, 1), I32), ((1, 4), I32)], {}),
    ("power", relay.PowerOp, [((2, 5), F32), ((5,), F32)], {}),
    ("sigmoid", relay.SigmoidOp, [((4, 5), F32)], {}),
    ("tanh", relay.TanhOp, [((7,), F64)], {}),
    ("exp", relay.ExpOp, [((2, 3), F32)], {}),
    ("sqrt", relay.SqrtOp, [((6,), F32)], {}),
    ("log", relay.LogOp, [((6,), F64)], {}),
    ("negative", relay.NegativeOp, [((2, 3), F32)], {}),
    ("negative-int64", relay.NegativeOp, [((5,), I64)], {}),
    ("abs", relay.AbsOp, [((4, 2), F32)], {}),
    ("abs-int32", relay.AbsOp, [((8,), I32)], {}),
    ("clip", relay.ClipOp, [((3, 4), F32)], {"a_min": -0.5, "a_max": 1.0}),
    ("clip-unbounded", relay.ClipOp, [((5,), F32)], {"a_min": 0.0, "a_max": float("inf")}),
    ("clip-int32", relay.ClipOp, [((9,), I32)], {"a_min": -10.5, "a_max": 20.7}),
    ("cast-float-to-int", relay.CastOp, [((2, 4), F32)], {"dtype": "int32"}),
    ("cast-int-to-double", relay.CastOp, [((5,), I64)], {"dtype": "float64"}),
    ("cast-narrow", relay.CastOp, [((5,), I32)], {"dtype": "int8"}),
    ("reinterpret-float-bits", relay.ReinterpretOp, [((2, 4), F32)], {"dtype": "int32"}),
    ("reinterpret-int-as-double", relay.ReinterpretOp, [((5,), I64)], {"dtype": "float64"}),
    ("det", relay.DetOp, [((3, 4, 4), F32)], {}),
    ("det-float64-1x1", relay.DetOp, [((2, 1, 1), F64)], {}),
    ("det-float16", relay.DetOp, [((3, 3), "float16")], {}),
    ("shape_of", relay.ShapeOfOp, [((2, 3, 5), F32)], {}),
    ("shape_of-int32", relay.ShapeOfOp, [((7, 1), F32)], {"dtype": "int32"}),
    # reductions
    ("sum", relay.SumOp, [((2, 3, 4), F32)], {"axis": (1,)}),
    ("sum-all", relay.SumOp, [((3, 4), I32)], {}),
    ("sum-keepdims", relay.SumOp, [((2, 3, 4), F64)], {"axis": (0, 2), "keepdims": True}),
    ("mean", relay.MeanOp, [((2, 3, 4), F32)], {"axis": (-1,)}),
    ("mean-int32-exclude", relay.MeanOp, [((2, 3, 4), I32)], {"axis": (1,), "exclude": True}),
    ("max", relay.MaxOp, [((3, 5), F32)], {"axis": (1,), "keepdims": True}),
    ("min-int64", relay.MinOp, [((4, 3), I64)], {"axis": (0,)}),
    # nn
    ("batch_norm", relay.BatchNormOp, [((2, 3, 4, 4), F32)] + [((3,), F32)] * 4, {}),
    (
        "batch_norm-no-scale",
        relay.BatchNormOp,
        [((4, 5), F32)] + [((5,), F32)] * 4,
        {"axis": -1, "epsilon": 1e-3, "scale": False},
    ),
    ("lrn", relay.LrnOp, [((1, 6, 3, 3), F32)], {"size": 3, "alpha": 1e-2, "beta": 0.75, "bias": 1.0}),
    ("dropout", relay.DropoutOp, [((3, 4), F32)], {"rate": 0.25}),
    ("batch_flatten", relay.BatchFlattenOp, [((2, 3, 2, 2), F32)], {}),
    ("conv2d", relay.Conv2dOp, [((1, 3, 7, 7), F32), ((4, 3, 3, 3), F32)], {}),
    (
        "conv2d-pad-stride-dilation",
        relay.Conv2dOp,
        [((2, 2, 9, 8), F32), ((3, 2, 3, 2), F32)],
        {"strides": (2, 1), "padding": (1, 2, 0, 1), "dilation": (2, 1)},
    ),
    (
        "conv2d-depthwise",
        relay.Conv2dOp,
        [((1, 4, 6, 6), F32), ((4, 1, 3, 3), F32)],
        {"groups": 4, "padding": (1, 1, 1, 1)},
    ),
    (
        "conv2d-grouped-int8",
        relay.Conv2dOp,
        [((1, 4, 5, 5), "int8"), ((6, 2, 2, 2), "int8")],
        {"groups": 2, "out_dtype": "int32"},
    ),
    ("max_pool2d", relay.MaxPool2dOp, [((1, 2, 6, 6), F32)], {"pool_size": (2, 2), "strides": (2, 2)}),
    (
        "max_pool2d-pad-ceil",
        relay.MaxPool2dOp,
        [((2, 3, 7, 6), F32)],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1), "ceil_mode": True},
    ),
    (
        "max_pool2d-dilation-int32",
        relay.MaxPool2dOp,
        [((1, 1, 7, 7), I32)],
        {"pool_size": (2, 2), "dilation": (2, 2)},
    ),
    (
        "avg_pool2d",
        relay.AvgPool2dOp,
        [((1, 2, 7, 7), F32)],
        {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1)},
    ),
    (
        "avg_pool2d-count-pad-ceil",
        relay.AvgPool2dOp,
        [((1, 2, 6, 7), F32)],
        {
            "pool_size": (3, 2),
            "strides": (2, 2),
            "padding": (1, 0, 1, 1),
            "ceil_mode": True,
            "count_include_pad": True,
        },
    ),
    ("global_max_pool2d", relay.GlobalMaxPool2dOp, [((2, 3, 4, 5), F32)], {}),
    ("global_avg_pool2d", relay.GlobalAvgPool2dOp, [((2, 3, 4, 5), F32)], {}),
    # shapes and layouts
    ("concatenate", relay.ConcatenateOp, [((2, 3), F32), ((2, 1), F32), ((2, 4), F32)], {"axis": 1}),
    ("concatenate-int64", relay.ConcatenateOp, [((1, 2), I64), ((3, 2), I64)], {}),
    ("split", relay.SplitOp, [((2, 6), F32)], {"indices_or_sections": 3, "axis": 1}),
    ("split-indices", relay.SplitOp, [((5, 2), I32)], {"indices_or_sections": (1, 4)}),
    ("squeeze", relay.SqueezeOp, [((1, 3, 1, 2), F32)], {"axis": (0, 2)}),
    ("squeeze-all", relay.SqueezeOp, [((1, 3, 1, 2), F32)], {}),
    ("expand_dims", relay.ExpandDimsOp, [((3, 2), F32)], {"axis": 1, "num_newaxis": 2}),
    ("expand_dims-last", relay.ExpandDimsOp, [((3,), I32)], {"axis": -1}),
    ("full", relay.FullOp, [((), F32)], {"shape": (2, 3)}),
    ("full-cast", relay.FullOp, [((), I64)], {"shape": (4,), "dtype": "float32"}),
    # indexing
    ("take", relay.TakeOp, [((5, 3), F32), ((2, 2), I64)], {"axis": 0}),
    ("take-wrap", relay.TakeOp, [((4, 6), F32), ((3,), I32)], {"axis": 1, "mode": "wrap"}),
    ("take-flat", relay.TakeOp, [((2, 3, 2), F32), ((4,), I64)], {}),
    (
        "strided_slice",
        relay.StridedSliceOp,
        [((4, 9), F32)],
        {"begin": (1, 0), "end": (3, -1), "strides": (1, 2)},
    ),
    (
        "strided_slice-reverse",
        relay.StridedSliceOp,
        [((4, 9), I32)],
        {"begin": (-1,), "end": (-10,), "strides": (-1,), "axes": (1,)},
    ),
    (
        "strided_slice-clamped",
        relay.StridedSliceOp,
        [((3, 4, 5), F32)],
        {"begin": (-100, 1), "end": (2**63 - 1, 3), "axes": (2, 0)},
    ),
]

CASES += SHAPE_CASES + RESIZE_CASES
CASES += HNN_CASES
CASES += ELEMWISE_CASES
CASES += [  # the packed-layout ops of the x86 kernels (test_x86_kernels.py has more)
    (
        "layout_transform-pack",
        relay.LayoutTransformOp,
        [((24, 3, 2, 2), F32)],
        {"src_layout": "OIHW", "dst_layout": "OIHW8o"},
    ),
    (
        "layout_transform-unpack",
        relay.LayoutTransformOp,
        [((2, 5, 16), F32)],
        {"src_layout": "NK16n", "dst_layout": "NK"},
    ),
    (
        "contrib_conv2d_packed",
        relay.Conv2dPackedOp,
        [((1, 4, 9, 11), F32), ((2, 4, 3, 3, 16), F32)],
        {"kernel_layout": "OIHW16o", "strides": (2, 1), "padding": (1, 0, 2, 1)},
    ),
    (
        "contrib_conv2d_int8_packed",
        relay.Conv2dInt8PackedOp,
        [((1, 6, 9, 11), "uint8"), ((2, 2, 3, 3, 16), I32)],
        {"kernel_layout": "OIHW16o4i", "strides": (2, 1), "padding": (1, 0, 2, 1)},
    ),
    (
        "contrib_dense_int8_packed",
        relay.DenseInt8PackedOp,
        [((3, 10), "uint8"), ((3, 3, 8), I32)],
        {"weight_layout": "NK8n4k"},
    ),
    (
        "contrib_dense_pack",
        relay.DensePackOp,
        [((3, 7), F32), ((5, 7, 8), F32)],
        {"weight_layout": "NK8n"},
    ),
    (
        "contrib_conv2d_winograd_weight_transform",
        relay.WinogradWeightTransformOp,
        [((32, 8, 3, 3), F32)],
        {"tile_size": 4, "block": 16},
    ),
    (
        "contrib_conv2d_winograd_without_weight_transform",
        relay.Conv2dWinogradOp,
        [((1, 1, 6, 7, 4), F32), ((4, 4, 1, 4, 8), F32)],
        {"tile_size": 2, "data_layout": "NCHW4c", "padding": (1, 0, 2, 1)},
    ),
]

POSITIVE = {"relay.sqrt": [0], "relay.log": [0], "relay.power": [0], "relay.nn.batch_norm": [4]}
"""Operands that must be positive, by op."""


def _inputs(op_name: str, operands: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    rng = np.random.default_rng(sum(map(ord, op_name)))
    arrays = [random(shape, dtype, rng) for shape, dtype in operands]
    if op_name == "relay.divide":  # keep denominators away from zero
        d = arrays[1]
        arrays[1] = np.where(np.abs(d) < 0.5, np.ones_like(d), d).astype(d.dtype)
    for k in POSITIVE.get(op_name, []):
        arrays[k] = (np.abs(arrays[k]) + 0.1).astype(arrays[k].dtype)
    return arrays


@pytest.mark.parametrize(
    "op_cls, operands, kwargs", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_relay_op_matches_reference(
    op_cls: type[relay.RelayOp],
    operands: list[tuple[tuple[int, ...], str]],
    kwargs: dict[str, Any],
) -> None:
    module, op = relay_op_module(op_cls, [tensor_type(s, d) for s, d in operands], **kwargs)
    inputs = _inputs(op.name, operands)
    expected = evaluate_results(op.name, inputs, op.attrs)
    results = run_relay(module, kernel_name(op.name), inputs)
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)


def test_every_relay_op_has_a_compute_a_reference_and_a_case() -> None:
    covered = {c[1].name for c in CASES}
    # Data-dependent ops take their result's shape as an operand: their
    # numerical cases run through the VM, in test/python/dynamic_ops/.
    covered |= {op.name for op in DYNAMIC_OPS}
    for op in RELAY_OPS:
        if issubclass(op, GRAPH_OPS):
            continue
        assert op.name in COMPUTES, f"{op.name} has no compute in convert-relay-to-tir"
        assert op.name in REFERENCES, f"{op.name} has no NumPy reference"
        assert op.name in covered, f"{op.name} has no numerical case in {__file__}"


def test_an_op_without_lowering_is_reported_by_name() -> None:
    module, _ = relay_op_module(relay.ReluOp, [tensor_type((4,), F32)])
    without_relu = [p for p in PATTERNS if relay.ReluOp not in p.ops]
    with pytest.raises(ConversionError) as info:
        apply_conversion(
            module, populate_relay_to_tir_patterns(without_relu), TARGET, pass_name="test"
        )
    message = str(info.value)
    assert "test: 1 op(s) left unlowered" in message
    assert "'relay.nn.relu'" in message
    assert "relay.nn.relu %" in message  # the op is printed
