"""Zero-size tensors (a dimension of 0) through every op family the ONNX
frontend supports: each case is a one-node model run by onnxruntime and by
xtvm (``XtvmBackend``: import, build, graph executor). Where onnxruntime
accepts the case, xtvm must give the same outputs (empty ones, or the
values a reduction over nothing gives: 0 for a sum, -inf for a max); where
onnxruntime refuses it, xtvm must refuse it with an ``OnnxImportError``
(a message, not a traceback)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from xtvm.frontend import OnnxImportError
from xtvm.frontend.onnx.backend import XtvmBackend

ort.set_default_logger_severity(3)

F = np.float32


@dataclass
class Case:
    """One node ``op(*inputs, **attrs)``; ``consts`` become initializers."""

    id: str
    op: str
    inputs: dict[str, np.ndarray]
    attrs: dict = field(default_factory=dict)
    consts: dict[str, np.ndarray] = field(default_factory=dict)
    opset: int = 13
    outputs: int = 1

    def model(self) -> onnx.ModelProto:
        names = [*self.inputs, *self.consts]
        outs = [f"y{i}" for i in range(self.outputs)]
        node = helper.make_node(self.op, names, outs, name=f"{self.op.lower()}0", **self.attrs)
        graph = helper.make_graph(
            [node],
            self.id,
            [
                helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                for n, a in self.inputs.items()
            ],
            [helper.make_empty_tensor_value_info(o) for o in outs],
            [numpy_helper.from_array(a, n) for n, a in self.consts.items()],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        model = onnx.shape_inference.infer_shapes(model)
        for out in model.graph.output:
            if out.type.WhichOneof("value") is None:  # inference failed (a refused case)
                out.CopyFrom(helper.make_tensor_value_info(out.name, TensorProto.FLOAT, None))
                out.type.tensor_type.shape.dim.add().dim_param = "n"
                continue  # a type without a shape (MVN's): the input's rank
            if out.type.HasField("tensor_type") and not out.type.tensor_type.HasField("shape"):
                first = next(iter({**self.inputs, **self.consts}.values()))
                dims = [f"d{i}" for i in range(first.ndim)]
                out.CopyFrom(
                    helper.make_tensor_value_info(out.name, out.type.tensor_type.elem_type, dims)
                )
        return model


def z(*shape: int, dtype=F) -> np.ndarray:
    """A tensor of ``shape`` (zero-size when a dim is 0) with small values."""
    size = int(np.prod(shape))
    return (np.arange(size) % 5 - 2).astype(dtype).reshape(shape)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


CASES = [
    # elementwise unary and binary (with broadcasting)
    Case("relu", "Relu", {"x": z(0, 3)}),
    Case("exp", "Exp", {"x": z(2, 0, 4)}),
    Case("sigmoid", "Sigmoid", {"x": z(0)}),
    Case("add_broadcast", "Add", {"a": z(0, 3), "b": z(3)}),
    Case("mul_broadcast_1", "Mul", {"a": z(0, 1), "b": z(1, 4)}),
    Case("sub_both_empty", "Sub", {"a": z(2, 0), "b": z(2, 0)}),
    Case("add_0_vs_1", "Add", {"a": z(0, 3), "b": z(1, 3)}),
    Case("equal", "Equal", {"a": z(0, 3), "b": z(3)}),
    Case("cast", "Cast", {"x": z(0, 3)}, {"to": TensorProto.INT32}),
    Case("where", "Where", {"c": z(0, 3, dtype=bool), "a": z(0, 3), "b": z(3)}),
    Case("clip", "Clip", {"x": z(0, 2)}, consts={"lo": np.array(0, F), "hi": np.array(1, F)}),
    # reductions: over a nonempty axis of an empty tensor, and over an empty axis
    Case("reduce_sum_keep", "ReduceSum", {"x": z(0, 3)}, {"keepdims": 1}, {"axes": i64(1)}),
    Case("reduce_sum_empty_axis", "ReduceSum", {"x": z(3, 0)}, {"keepdims": 1}, {"axes": i64(1)}),
    Case(
        "reduce_sum_empty_axis_nokeep",
        "ReduceSum",
        {"x": z(3, 0)},
        {"keepdims": 0},
        {"axes": i64(1)},
    ),
    Case("reduce_sum_all", "ReduceSum", {"x": z(2, 0)}, {"keepdims": 0}),
    Case("reduce_max_empty_axis", "ReduceMax", {"x": z(3, 0)}, {"axes": [1], "keepdims": 1}),
    Case("reduce_min_empty_axis", "ReduceMin", {"x": z(3, 0)}, {"axes": [1], "keepdims": 0}),
    Case(
        "reduce_log_sum_exp_rows", "ReduceLogSumExp", {"x": z(0, 4)}, {"axes": [1], "keepdims": 0}
    ),
    Case("reduce_max_keep_rows", "ReduceMax", {"x": z(0, 4)}, {"axes": [1], "keepdims": 1}),
    Case("reduce_mean_rows", "ReduceMean", {"x": z(0, 4)}, {"axes": [1], "keepdims": 0}),
    Case("reduce_prod_empty_axis", "ReduceProd", {"x": z(2, 0)}, {"axes": [1], "keepdims": 0}),
    Case("argmax_rows", "ArgMax", {"x": z(0, 4)}, {"axis": 1}),
    # shape and layout
    Case("flatten", "Flatten", {"x": z(0, 3, 4)}, {"axis": 1}),
    Case("flatten_axis2", "Flatten", {"x": z(2, 0, 4)}, {"axis": 2}),
    Case("reshape", "Reshape", {"x": z(0, 6)}, consts={"s": i64(0, 2, 3)}),
    Case("reshape_minus1", "Reshape", {"x": z(2, 0, 3)}, consts={"s": i64(-1, 3)}),
    Case("reshape_allowzero", "Reshape", {"x": z(0, 3)}, {"allowzero": 1}, {"s": i64(3, 0)}, 14),
    Case("reshape_copy_0_and_minus1", "Reshape", {"x": z(2, 0, 3)}, consts={"s": i64(-1, 0)}),
    Case("reshape_minus1_ambiguous", "Reshape", {"x": z(2, 0, 3)}, consts={"s": i64(0, -1)}),
    Case("transpose", "Transpose", {"x": z(0, 2, 3)}, {"perm": [2, 0, 1]}),
    Case("squeeze", "Squeeze", {"x": z(0, 1, 3)}, consts={"axes": i64(1)}),
    Case("unsqueeze", "Unsqueeze", {"x": z(0, 3)}, consts={"axes": i64(0)}),
    Case("concat_one_empty", "Concat", {"a": z(0, 3), "b": z(2, 3)}, {"axis": 0}),
    Case("concat_all_empty", "Concat", {"a": z(2, 0), "b": z(2, 0)}, {"axis": 1}),
    Case("slice_empty", "Slice", {"x": z(4, 3)}, consts={"s": i64(2), "e": i64(2), "a": i64(0)}),
    Case("slice_of_empty", "Slice", {"x": z(0, 3)}, consts={"s": i64(1), "e": i64(3), "a": i64(1)}),
    Case("split", "Split", {"x": z(0, 4)}, {"axis": 1}, outputs=2),
    Case(
        "gather_empty_indices", "Gather", {"x": z(4, 3)}, {"axis": 0}, {"i": np.zeros(0, np.int64)}
    ),
    Case("gather_of_empty", "Gather", {"x": z(0, 3)}, {"axis": 1}, {"i": i64(0, 2)}),
    Case("expand", "Expand", {"x": z(1, 3)}, consts={"s": i64(0, 3)}),
    Case("tile", "Tile", {"x": z(2, 3)}, consts={"r": i64(0, 1)}),
    Case("tile_of_empty", "Tile", {"x": z(0, 3)}, consts={"r": i64(2, 2)}),
    Case("pad", "Pad", {"x": z(0, 3)}, consts={"p": i64(0, 1, 0, 1)}),
    Case("pad_empty_to_nonempty", "Pad", {"x": z(0, 3)}, consts={"p": i64(1, 0, 1, 0)}),
    Case("shape", "Shape", {"x": z(0, 3)}),
    Case("size", "Size", {"x": z(0, 3)}),
    # matrix products: K = 0 gives zeros (plus the bias), M = 0 gives nothing
    Case("matmul_k0", "MatMul", {"a": z(2, 0), "b": z(0, 3)}),
    Case("matmul_1d_k0", "MatMul", {"a": z(0), "b": z(0, 3)}),
    Case("matmul_m0", "MatMul", {"a": z(0, 4), "b": z(4, 3)}),
    Case("matmul_batched_0", "MatMul", {"a": z(0, 2, 4), "b": z(4, 3)}),
    Case("gemm_k0_bias", "Gemm", {"a": z(2, 0), "b": z(0, 3), "c": z(3)}),
    Case("gemm_m0", "Gemm", {"a": z(0, 4), "b": z(3, 4), "c": z(3)}, {"transB": 1}),
    # convolution, pooling, normalization with batch 0
    Case("conv_batch0", "Conv", {"x": z(0, 2, 5, 5)}, {"pads": [1, 1, 1, 1]}, {"w": z(3, 2, 3, 3)}),
    Case("conv_batch0_bias", "Conv", {"x": z(0, 2, 5, 5)}, {}, {"w": z(3, 2, 3, 3), "b": z(3)}),
    Case("maxpool_batch0", "MaxPool", {"x": z(0, 2, 4, 4)}, {"kernel_shape": [2, 2]}),
    Case("avgpool_batch0", "AveragePool", {"x": z(0, 2, 4, 4)}, {"kernel_shape": [2, 2]}),
    Case("global_avgpool_batch0", "GlobalAveragePool", {"x": z(0, 2, 4, 4)}),
    Case(
        "batchnorm_batch0",
        "BatchNormalization",
        {"x": z(0, 2, 3, 3)},
        consts={"s": z(2) + 3, "b": z(2), "m": z(2), "v": z(2) + 3},
    ),
    Case("softmax", "Softmax", {"x": z(0, 4)}, {"axis": 1}),
    Case("softmax_empty_axis", "Softmax", {"x": z(3, 0)}, {"axis": 1}),
    Case("softmax_v11_flattens", "Softmax", {"x": z(2, 0, 3)}, {"axis": 1}, opset=11),
    Case("logsoftmax", "LogSoftmax", {"x": z(0, 4)}, {"axis": -1}),
    Case("dense_relu_like", "Gemm", {"a": z(0, 784), "b": z(784, 8)}),
    # more families: activations, indexing, scatter, algorithms, normalizations
    Case("leaky_relu", "LeakyRelu", {"x": z(0, 3)}),
    Case("prelu", "PRelu", {"x": z(0, 3)}, consts={"s": z(3)}),
    Case("hardswish", "HardSwish", {"x": z(3, 0)}, opset=14),
    Case("gelu", "Gelu", {"x": z(0, 3)}, opset=20),
    Case("pow", "Pow", {"a": z(0, 3), "b": z(3)}),
    Case("mod", "Mod", {"a": z(0, 3, dtype=np.int32), "b": z(3, dtype=np.int32) + 3}),
    Case("max_variadic", "Max", {"a": z(0, 3), "b": z(3), "c": z(1, 3)}),
    Case("sum_variadic", "Sum", {"a": z(0, 3), "b": z(0, 3)}),
    Case("not", "Not", {"x": z(0, 2, dtype=bool)}),
    Case("isnan", "IsNaN", {"x": z(0, 2)}),
    Case("round", "Round", {"x": z(0, 2)}),
    Case("castlike", "CastLike", {"x": z(0, 2)}, consts={"t": np.zeros(1, np.int64)}, opset=15),
    Case("topk_rows", "TopK", {"x": z(0, 5)}, {"axis": 1}, {"k": i64(2)}, outputs=2),
    Case("topk_k0", "TopK", {"x": z(3, 5)}, {"axis": 1}, {"k": i64(0)}, outputs=2),
    Case("cumsum", "CumSum", {"x": z(0, 4)}, consts={"a": np.array(1, np.int64)}),
    Case("cumsum_empty_axis", "CumSum", {"x": z(3, 0)}, consts={"a": np.array(1, np.int64)}),
    Case("einsum", "Einsum", {"a": z(2, 0), "b": z(0, 3)}, {"equation": "ij,jk->ik"}),
    Case(
        "gather_elements",
        "GatherElements",
        {"x": z(0, 3)},
        {"axis": 0},
        {"i": np.zeros((0, 3), np.int64)},
    ),
    Case("gather_nd", "GatherND", {"x": z(4, 3)}, consts={"i": np.zeros((0, 1), np.int64)}),
    Case(
        "scatter_elements",
        "ScatterElements",
        {"x": z(3, 3)},
        {"axis": 0},
        {"i": np.zeros((0, 3), np.int64), "u": z(0, 3)},
    ),
    Case(
        "scatter_nd_empty",
        "ScatterND",
        {"x": z(4, 3)},
        consts={"i": np.zeros((0, 1), np.int64), "u": z(0, 3)},
    ),
    Case("onehot", "OneHot", {"i": np.zeros(0, np.int64)}, {"axis": -1}, {"d": i64(4), "v": z(2)}),
    Case("trilu", "Trilu", {"x": z(0, 3, 3)}, opset=14),
    Case(
        "range_empty",
        "Range",
        {},
        consts={"a": np.array(3, np.int64), "b": np.array(3, np.int64), "d": np.array(1, np.int64)},
    ),
    Case("constant_of_shape", "ConstantOfShape", {}, consts={"s": i64(0, 3)}),
    Case("depth_to_space_b0", "DepthToSpace", {"x": z(0, 4, 2, 2)}, {"blocksize": 2}),
    Case("space_to_depth_b0", "SpaceToDepth", {"x": z(0, 1, 4, 4)}, {"blocksize": 2}),
    Case(
        "resize_b0",
        "Resize",
        {"x": z(0, 1, 2, 2)},
        {"mode": "nearest"},
        {"r": np.zeros(0, F), "sc": np.array([1, 1, 2, 2], F)},
    ),
    Case(
        "layernorm_rows",
        "LayerNormalization",
        {"x": z(0, 4)},
        {"axis": -1},
        {"s": z(4) + 3, "b": z(4)},
        opset=17,
    ),
    Case(
        "instancenorm_b0",
        "InstanceNormalization",
        {"x": z(0, 2, 3)},
        consts={"s": z(2) + 3, "b": z(2)},
    ),
    Case("lrn_b0", "LRN", {"x": z(0, 4, 3, 3)}, {"size": 3}),
    Case("lp_norm_rows", "LpNormalization", {"x": z(0, 4)}, {"axis": 1}),
    Case("mvn_b0", "MeanVarianceNormalization", {"x": z(0, 2, 3, 3)}),
    Case("hardmax_rows", "Hardmax", {"x": z(0, 4)}),
    Case("conv_transpose_b0", "ConvTranspose", {"x": z(0, 2, 3, 3)}, consts={"w": z(2, 3, 3, 3)}),
    Case(
        "reverse_sequence",
        "ReverseSequence",
        {"x": z(0, 2)},
        {"batch_axis": 1, "time_axis": 0},
        {"l": i64(0, 0)},
    ),
    Case("dropout", "Dropout", {"x": z(0, 3)}),
    Case(
        "reduce_sum_square_empty_axis",
        "ReduceSumSquare",
        {"x": z(2, 0)},
        {"axes": [1], "keepdims": 0},
    ),
    Case("reduce_log_sum_empty_axis", "ReduceLogSum", {"x": z(2, 0)}, {"axes": [1], "keepdims": 0}),
    Case("argmax_empty_axis", "ArgMax", {"x": z(3, 0)}, {"axis": 1}),
    Case(
        "max_pool_indices_b0", "MaxPool", {"x": z(0, 2, 4, 4)}, {"kernel_shape": [2, 2]}, outputs=2
    ),
    Case("global_maxpool_spatial0", "GlobalMaxPool", {"x": z(1, 2, 0, 3)}),
    Case("global_avgpool_spatial0", "GlobalAveragePool", {"x": z(1, 2, 0, 3)}),
    Case("global_avgpool_3d_spatial0", "GlobalAveragePool", {"x": z(1, 2, 2, 0, 3)}),
    Case("maxpool_spatial0", "MaxPool", {"x": z(1, 2, 0, 4)}, {"kernel_shape": [1, 1]}),
    Case("avgpool_spatial0", "AveragePool", {"x": z(1, 2, 4, 0)}, {"kernel_shape": [1, 1]}),
    Case("maxpool_c0", "MaxPool", {"x": z(1, 0, 4, 4)}, {"kernel_shape": [2, 2]}),
    Case("lppool_b0", "LpPool", {"x": z(0, 2, 4, 4)}, {"kernel_shape": [2, 2]}),
    Case("reduce_max_all_empty", "ReduceMax", {"x": z(0, 3)}, {"keepdims": 0}),
    # quantization
    Case(
        "quantize",
        "QuantizeLinear",
        {"x": z(0, 3)},
        consts={"s": np.array(0.5, F), "zp": np.array(3, np.uint8)},
    ),
    Case(
        "dequantize",
        "DequantizeLinear",
        {"x": z(0, 3, dtype=np.uint8)},
        consts={"s": np.array(0.5, F), "zp": np.array(3, np.uint8)},
    ),
    Case(
        "qlinear_matmul_m0",
        "QLinearMatMul",
        {"a": z(0, 4, dtype=np.uint8)},
        consts={
            "as": np.array(0.5, F),
            "az": np.array(1, np.uint8),
            "b": z(4, 3, dtype=np.uint8),
            "bs": np.array(0.25, F),
            "bz": np.array(2, np.uint8),
            "ys": np.array(1.0, F),
            "yz": np.array(0, np.uint8),
        },
    ),
    Case(
        "qlinear_conv_b0",
        "QLinearConv",
        {"x": z(0, 2, 5, 5, dtype=np.uint8)},
        consts={
            "xs": np.array(0.5, F),
            "xz": np.array(1, np.uint8),
            "w": z(4, 2, 3, 3, dtype=np.uint8),
            "ws": np.array(0.25, F),
            "wz": np.array(2, np.uint8),
            "ys": np.array(1.0, F),
            "yz": np.array(0, np.uint8),
        },
    ),
    # constant weights: the x86 schedules (packed dense, NCHWc conv) see batch 0
    Case("gemm_m0_const", "Gemm", {"a": z(0, 64)}, {"transB": 1}, {"b": z(32, 64), "c": z(32)}),
    Case("gemm_k0_const", "Gemm", {"a": z(4, 0)}, {"transB": 1}, {"b": z(32, 0), "c": z(32)}),
    Case("matmul_m0_const", "MatMul", {"a": z(0, 64)}, consts={"b": z(64, 32)}),
    Case("matmul_batched_m0_const", "MatMul", {"a": z(2, 0, 64)}, consts={"b": z(64, 32)}),
    Case("conv_batch0_wide", "Conv", {"x": z(0, 16, 8, 8)}, {}, {"w": z(32, 16, 3, 3)}),
    Case("conv_1x1_batch0", "Conv", {"x": z(0, 16, 8, 8)}, {}, {"w": z(32, 16, 1, 1), "b": z(32)}),
    Case(
        "conv_depthwise_batch0", "Conv", {"x": z(0, 16, 8, 8)}, {"group": 16}, {"w": z(16, 1, 3, 3)}
    ),
    Case("conv_c0", "Conv", {"x": z(1, 0, 8, 8)}, {}, {"w": z(4, 0, 3, 3)}),
    Case("conv_spatial0", "Conv", {"x": z(1, 4, 0, 8)}, {}, {"w": z(4, 4, 1, 1)}),
]


def ort_outputs(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """onnxruntime's outputs, or None when it refuses the model or inputs."""
    try:
        session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        return session.run(None, feeds)
    except Exception:  # noqa: BLE001 - any refusal of onnxruntime
        return None


@pytest.mark.parametrize("folded", [False, True], ids=["run", "folded"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_zero_size(case: Case, folded: bool):
    """``folded``: the inputs are initializers, so the import folds the node
    with the NumPy references (whose max, -1 reshapes and mean have no
    value over nothing)."""
    if folded:
        if not case.inputs:
            pytest.skip("no graph input to fold")
        case = replace(case, inputs={}, consts={**case.inputs, **case.consts})
    model = case.model()
    feeds = dict(case.inputs)
    expected = ort_outputs(model, feeds)
    if expected is None:
        with pytest.raises(OnnxImportError, match=f"^node '{case.op.lower()}0' "):
            XtvmBackend.prepare(model).run(feeds)
        return
    got = XtvmBackend.prepare(model).run(feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        assert g.shape == e.shape, (g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
