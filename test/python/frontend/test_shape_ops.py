"""Shape and indexing converters (Concat, Split, Squeeze, Unsqueeze, Shape,
ConstantOfShape, Gather, Slice) against onnxruntime, and import-time
folding of shape subgraphs."""

from __future__ import annotations

import numpy as np
import pytest
from node_testing import node_model, randn
from onnx import TensorProto, helper
from onnx_testing import (
    arg_names,
    import_and_compare,
    import_error,
    op_names,
    run_ort,
)
from shape_op_testing import run_compiled

from xtvm.frontend import from_onnx

INT64_MAX = np.iinfo(np.int64).max


@pytest.mark.parametrize(
    ("shapes", "axis", "opset"),
    [
        ([(2, 3), (2, 5)], 1, 4),
        ([(2, 3, 4), (1, 3, 4), (3, 3, 4)], 0, 11),
        ([(2, 3), (2, 1), (2, 2)], -1, 13),
        ([(2, 3)], 0, 13),
    ],
)
def test_concat(shapes, axis, opset):
    feeds = {f"x{i}": randn(*s) for i, s in enumerate(shapes)}
    model = node_model("Concat", list(feeds), feeds, opset=opset, axis=axis)
    import_and_compare(model, feeds, ["relay.concatenate"])


def test_concat_with_a_weight():
    feeds = {"x": randn(2, 3)}
    model = node_model("Concat", ["x", "w"], feeds, {"w": randn(2, 2)}, axis=1)
    module = import_and_compare(model, feeds, ["relay.concatenate"])
    assert arg_names(module) == ["x", "w"]


@pytest.mark.parametrize(
    ("opset", "node_inputs", "inits", "attrs", "outputs", "expected"),
    [
        (2, ["x"], {}, {"axis": 1, "split": [1, 4, 1]}, 3, [[0, 1], [1, 5], [5, 6]]),
        (11, ["x"], {}, {"axis": -1}, 2, [[0, 3], [3, 6]]),
        (13, ["x", "s"], {"s": np.array([2, 0, 4])}, {"axis": 1}, 3, [[0, 2], [2, 2], [2, 6]]),
        (13, ["x"], {}, {"axis": 1}, 3, [[0, 2], [2, 4], [4, 6]]),
        (18, ["x"], {}, {"axis": 1, "num_outputs": 4}, 4, [[0, 2], [2, 4], [4, 6], [6, 6]]),
        (18, ["x"], {}, {"axis": 1, "num_outputs": 2}, 2, [[0, 3], [3, 6]]),
        (18, ["x", "s"], {"s": np.array([5, 1])}, {"axis": 1}, 2, [[0, 5], [5, 6]]),
    ],
)
def test_split(opset, node_inputs, inits, attrs, outputs, expected):
    feeds = {"x": randn(2, 6)}
    names = [f"y{k}" for k in range(outputs)]
    model = node_model("Split", node_inputs, feeds, inits, names, opset, **attrs)
    want = [feeds["x"][:, b:e] for b, e in expected]
    if opset < 18 or attrs.get("num_outputs", 2) != 4:  # onnxruntime rejects an empty chunk
        for got, ort in zip(want, run_ort(model, feeds)):
            np.testing.assert_array_equal(got, ort)
    import_and_compare(model, feeds, ["relay.split"], expected=want)


def test_split_uneven_num_outputs_against_onnxruntime():
    # Pieces of ceil(7 / 3) = 3: [3, 3, 1].
    feeds = {"x": randn(7, 2)}
    model = node_model("Split", ["x"], feeds, outputs=["a", "b", "c"], opset=18, num_outputs=3)
    import_and_compare(model, feeds, ["relay.split"])


def test_split_errors():
    feeds = {"x": randn(2, 6)}
    uneven = node_model("Split", ["x"], feeds, outputs=["a", "b", "c", "d"], axis=1)
    assert import_error(uneven) == (
        "node 'n' (Split, opset 13): cannot split axis 1 of size 6 into 4 equal outputs"
    )
    sizes = node_model("Split", ["x", "s"], feeds, {"s": np.array([2, 2])}, ["a", "b"], axis=1)
    assert import_error(sizes) == (
        "node 'n' (Split, opset 13): split sizes [2, 2] must be 2 non-negative sizes "
        "(one per output) summing to 6, the size of axis 1"
    )


@pytest.mark.parametrize(
    ("opset", "node_inputs", "inits", "attrs", "x_shape"),
    [
        (1, ["x"], {}, {"axes": [0, 2]}, (1, 3, 1, 2)),
        (11, ["x"], {}, {"axes": [-2]}, (1, 3, 1, 2)),
        (11, ["x"], {}, {}, (1, 3, 1, 2)),
        (13, ["x", "a"], {"a": np.array([2, 0])}, {}, (1, 3, 1, 2)),
        (13, ["x"], {}, {}, (1, 1)),
        (21, ["x", "a"], {"a": np.array([-1])}, {}, (3, 1)),
    ],
)
def test_squeeze(opset, node_inputs, inits, attrs, x_shape):
    feeds = {"x": randn(*x_shape)}
    model = node_model("Squeeze", node_inputs, feeds, inits, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.squeeze"])


@pytest.mark.parametrize(
    ("opset", "axes", "expected_ops"),
    [
        (1, [0], ["relay.expand_dims"]),
        (11, [-1], ["relay.expand_dims"]),
        (11, [1, 2], ["relay.expand_dims"]),
        (13, [0, 3], ["relay.expand_dims", "relay.expand_dims"]),
        (13, [4, 0, 1], ["relay.expand_dims", "relay.expand_dims"]),
        (21, [-1, -4], ["relay.expand_dims", "relay.expand_dims"]),
    ],
)
def test_unsqueeze(opset, axes, expected_ops):
    feeds = {"x": randn(2, 3)}
    if opset < 13:
        model = node_model("Unsqueeze", ["x"], feeds, opset=opset, axes=axes)
    else:
        model = node_model("Unsqueeze", ["x", "a"], feeds, {"a": np.array(axes)}, opset=opset)
    import_and_compare(model, feeds, expected_ops)


def test_squeeze_and_unsqueeze_errors():
    feeds = {"x": randn(2, 1)}
    size2 = node_model("Squeeze", ["x"], feeds, opset=11, axes=[0])
    assert import_error(size2) == (
        "node 'n' (Squeeze, opset 11): 'relay.squeeze' cannot squeeze axis 0 of size 2 (shape 2x1)"
    )
    repeated = node_model("Unsqueeze", ["x", "a"], feeds, {"a": np.array([1, 1])})
    assert import_error(repeated) == (
        "node 'n' (Unsqueeze, opset 13): input 'axes' ('a') = [1, 1] repeats an axis"
    )
    out_of_range = node_model("Unsqueeze", ["x"], feeds, opset=11, axes=[4])
    assert import_error(out_of_range) == (
        "node 'n' (Unsqueeze, opset 11): attribute 'axes' = [4] has axis 4 out of range for rank 3"
    )


@pytest.mark.parametrize(
    ("opset", "attrs", "expected"),
    [
        (1, {}, [2, 3, 4]),
        (15, {}, [2, 3, 4]),
        (15, {"start": 1}, [3, 4]),
        (15, {"start": -2, "end": -1}, [3]),
        (19, {"start": -9, "end": 9}, [2, 3, 4]),
        (21, {"start": 2, "end": 1}, []),
    ],
)
def test_shape_is_a_constant(opset, attrs, expected):
    feeds = {"x": randn(2, 3, 4)}
    model = node_model("Shape", ["x"], feeds, opset=opset, **attrs)
    module = import_and_compare(model, feeds, ["relay.const"])
    assert "relay.shape_of" not in str(module)
    np.testing.assert_array_equal(run_ort(model, feeds)[0], expected)


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        (None, [2, 3]),
        (np.array([7], np.int64), [4]),
        (np.array([1.5], np.float64), [1, 2, 1]),
        (np.array([2], np.int32), []),
    ],
)
@pytest.mark.parametrize("opset", [9, 21])
def test_constant_of_shape(value, shape, opset):
    attrs = {}
    if value is not None:
        elem = helper.np_dtype_to_tensor_dtype(value.dtype)
        attrs["value"] = helper.make_tensor("v", elem, [1], value)
    model = node_model(
        "ConstantOfShape", ["s"], {}, {"s": np.array(shape, np.int64)}, opset=opset, **attrs
    )
    import_and_compare(model, {}, ["relay.const"])


def test_constant_of_shape_of_a_run_time_shape_is_computed():
    """A shape the import is specialized for gives relay.full, run compiled."""
    shape = np.array([2, 3], np.int64)
    value = helper.make_tensor("v", TensorProto.INT32, [1], [7])
    model = node_model("ConstantOfShape", ["s"], {"s": shape}, value=value)
    module, _ = from_onnx(model, input_values={"s": shape})
    assert op_names(module) == ["relay.const", "relay.full"]
    (got,) = run_compiled(model, {"s": shape})
    np.testing.assert_array_equal(got, np.full((2, 3), 7, np.int32))
    assert got.dtype == np.int32


def test_constant_of_shape_errors():
    # A graph-input shape is read at run time (docs/data-dependent-ops.md).
    run_time = node_model("ConstantOfShape", ["s"], {"s": np.array([2], np.int64)})
    assert "relay.dyn.full" in str(from_onnx(run_time)[0])
    negative = node_model("ConstantOfShape", ["s"], {}, {"s": np.array([2, -1])})
    assert import_error(negative) == (
        "node 'n' (ConstantOfShape, opset 13): input 'input' ('s') = [2, -1] has a negative size"
    )
    text = helper.make_tensor("v", TensorProto.STRING, [1], [b"a"])
    strings = node_model("ConstantOfShape", ["s"], {}, {"s": np.array([2])}, value=text)
    assert import_error(strings).startswith(
        "node 'n' (ConstantOfShape, opset 13): attribute 'value' has element type "
    )


@pytest.mark.parametrize(
    ("axis", "indices"),
    [
        (0, np.array([2, 0, 2])),
        (1, np.array([[0, -1], [-4, 3]])),
        (-1, np.array(-2)),
        (2, np.array([1], np.int32)),
    ],
)
@pytest.mark.parametrize("opset", [1, 13])
def test_gather_constant_indices(axis, indices, opset):
    feeds = {"x": randn(3, 4, 5)}
    model = node_model("Gather", ["x", "i"], feeds, {"i": indices}, opset=opset, axis=axis)
    module = import_and_compare(model, feeds, ["relay.const", "relay.take"])
    assert 'mode = "wrap"' not in str(module)
    assert arg_names(module) == ["x"]  # the indices are no parameter


def test_gather_computed_indices_wrap_negative_ones():
    feeds = {"x": randn(4, 3), "i": np.array([[-1, 0], [3, -4]], np.int64)}
    model = node_model("Gather", ["x", "i"], feeds)
    module = import_and_compare(model, feeds, ["relay.take"])
    assert 'mode = "wrap"' in str(module)


def test_gather_index_out_of_range():
    model = node_model("Gather", ["x", "i"], {"x": randn(3, 2)}, {"i": np.array([0, 3])})
    assert import_error(model) == (
        "node 'n' (Gather, opset 13): input 'indices' ('i') has an index out of range "
        "[-3, 2] for axis 0: [0, 3]"
    )


@pytest.mark.parametrize(
    ("starts", "ends", "axes", "steps"),
    [
        ([1, 0], [3, -1], None, None),
        ([1], [INT64_MAX], [1], None),
        ([-1], [-INT64_MAX], [-1], [-1]),
        ([5, 0], [0, 10], [2, 0], [-2, 3]),
        ([0, 1, 0], [2, 3, 5], [0, 1, 2], [1, 1, 2]),
        ([10], [20], [0], None),
    ],
)
@pytest.mark.parametrize("opset", [10, 13])
def test_slice_inputs(starts, ends, axes, steps, opset):
    feeds = {"x": randn(3, 4, 6)}
    inits = {"s": np.array(starts), "e": np.array(ends)}
    names = ["x", "s", "e"]
    if axes is not None:
        inits["a"], names = np.array(axes), [*names, "a"]
    if steps is not None:
        inits["t"] = np.array(steps)
        names = [*names, "t"] if axes is not None else [*names, "", "t"]
    model = node_model("Slice", names, feeds, inits, opset=opset)
    import_and_compare(model, feeds, ["relay.strided_slice"])


@pytest.mark.parametrize(
    "attrs",
    [
        {"starts": [1, 0], "ends": [3, -1]},
        {"starts": [0, 2], "ends": [1, 100], "axes": [0, 2]},
        {"starts": [-3], "ends": [-1], "axes": [-2]},
    ],
)
def test_slice_attributes(attrs):
    feeds = {"x": randn(3, 4, 6)}
    model = node_model("Slice", ["x"], feeds, opset=1, **attrs)
    x, index = feeds["x"], [slice(None)] * 3
    for k, (b, e) in enumerate(zip(attrs["starts"], attrs["ends"])):
        index[attrs.get("axes", range(3))[k]] = slice(b, e)
    want = [x[tuple(index)]]
    import_and_compare(model, feeds, ["relay.strided_slice"], expected=want)


def test_slice_bounds_must_be_constants():
    feeds = {"x": randn(3), "s": np.array([0])}
    model = node_model("Slice", ["x", "s", "e"], feeds, {"e": np.array([2])})
    assert "input 'starts' ('s') must be known at compile time" in import_error(model)
