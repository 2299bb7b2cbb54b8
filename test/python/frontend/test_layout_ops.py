"""Converters of Expand, Tile, Pad, CenterCropPad, DepthToSpace,
SpaceToDepth and ReverseSequence against onnxruntime, by the NumPy
references and compiled."""

from __future__ import annotations

import numpy as np
import pytest
from shape_op_testing import check
from node_testing import node_model, randn
from onnx_testing import import_error

I64 = np.int64


@pytest.mark.parametrize(
    ("x_shape", "shape", "ops"),
    [
        ((3, 1), [2, 3, 4], ["relay.broadcast_to"]),
        ((2, 1, 6), [3, 1], ["relay.broadcast_to"]),  # a 1 keeps the input's size
        ((2, 3), [1, 1], []),  # nothing to broadcast: the input itself
    ],
)
def test_expand(x_shape, shape, ops):
    feeds = {"x": randn(*x_shape)}
    model = node_model("Expand", ["x", "s"], feeds, {"s": np.array(shape, I64)})
    check(model, feeds, ops)


def test_expand_shapes_must_broadcast():
    model = node_model("Expand", ["x", "s"], {"x": randn(3, 2)}, {"s": np.array([4], I64)})
    assert import_error(model) == (
        "node 'n' (Expand, opset 13): input shape [3, 2] and input 'shape' ('s') = [4] "
        "do not broadcast"
    )


@pytest.mark.parametrize(("repeats", "opset"), [([2, 3], 6), ([1, 4], 13), ([3, 1], 13)])
def test_tile(repeats, opset):
    feeds = {"x": randn(2, 3)}
    model = node_model("Tile", ["x", "r"], feeds, {"r": np.array(repeats, I64)}, opset=opset)
    check(model, feeds, ["relay.tile"])


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_opset2_attributes(mode):
    feeds = {"x": randn(3, 4)}
    model = node_model("Pad", ["x"], feeds, opset=2, pads=[1, 2, 2, 0], mode=mode, value=1.5)
    ops = ["relay.const", "relay.nn.pad"]
    check(model, feeds, ops)


@pytest.mark.parametrize(
    ("pads", "mode", "opset"),
    [
        ([0, 1, 2, 1], "constant", 11),
        ([1, -1, 0, 2], "constant", 13),  # negative pads crop
        ([2, 2, 2, 2], "reflect", 13),
        ([3, 0, 1, 5], "edge", 18),
        ([2, 5, 3, 1], "wrap", 19),
    ],
)
def test_pad_inputs(pads, mode, opset):
    feeds = {"x": randn(3, 4), "v": np.array(-2.5, np.float32)}
    inits = {"p": np.array(pads, I64)}
    model = node_model("Pad", ["x", "p", "v"], feeds, inits, opset=opset, mode=mode)
    check(model, feeds, ["relay.nn.pad"])


def test_pad_axes_and_default_value():
    feeds = {"x": np.arange(24, dtype=np.int32).reshape(2, 3, 4)}
    inits = {"p": np.array([1, 0, 2, 3], I64), "a": np.array([-1, 0], I64)}
    model = node_model("Pad", ["x", "p", "", "a"], feeds, inits, opset=18)
    check(model, feeds, ["relay.const", "relay.nn.pad"])


def test_pad_errors():
    model = node_model("Pad", ["x", "p"], {"x": randn(3)}, {"p": np.array([1], I64)}, opset=13)
    assert import_error(model) == (
        "node 'n' (Pad, opset 13): pads [1] must hold 2 values per padded axis (1)"
    )
    value = {"x": randn(3), "v": np.array([1, 2], np.float32)}
    model = node_model("Pad", ["x", "p", "v"], value, {"p": np.array([1, 1], I64)}, opset=13)
    assert import_error(model) == (
        "node 'n' (Pad, opset 13): input 'constant_value' ('v') must be one value of the "
        "data's element type, got tensor<2xf32>"
    )


@pytest.mark.parametrize(
    ("x_shape", "shape", "axes", "ops"),
    [
        ((6, 5), [4, 5], None, ["relay.strided_slice"]),
        ((3, 4), [6, 7], None, ["relay.const", "relay.nn.pad"]),
        ((5, 2, 3), [2, 5], [0, -1], ["relay.strided_slice", "relay.const", "relay.nn.pad"]),
        ((2, 3), [2, 3], None, []),
    ],
)
def test_center_crop_pad(x_shape, shape, axes, ops):
    feeds = {"x": randn(*x_shape)}
    attrs = {} if axes is None else {"axes": axes}
    inits = {"s": np.array(shape, I64)}
    model = node_model("CenterCropPad", ["x", "s"], feeds, inits, opset=18, **attrs)
    x = feeds["x"]
    want = np.zeros([*shape] if axes is None else _resized(x.shape, axes, shape), np.float32)
    src = [slice(None)] * x.ndim
    dst = [slice(None)] * x.ndim
    for axis, size in zip(range(x.ndim) if axes is None else axes, shape):
        n = x.shape[axis]
        if size < n:
            src[axis] = slice((n - size) // 2, (n - size) // 2 + size)
        elif size > n:
            dst[axis] = slice((size - n) // 2, (size - n) // 2 + n)
    want[tuple(dst)] = x[tuple(src)]
    check(model, feeds, ops, expected=[want])


def _resized(shape, axes, sizes):
    out = list(shape)
    for axis, size in zip(axes, sizes):
        out[axis] = size
    return out


@pytest.mark.parametrize(("mode", "opset"), [(None, 1), ("DCR", 11), ("CRD", 13)])
def test_depth_to_space(mode, opset):
    feeds = {"x": randn(2, 8, 2, 3)}
    attrs = {"blocksize": 2} | ({} if mode is None else {"mode": mode})
    model = node_model("DepthToSpace", ["x"], feeds, opset=opset, **attrs)
    check(model, feeds, ["relay.nn.depth_to_space"])


def test_space_to_depth():
    feeds = {"x": randn(1, 3, 4, 6)}
    model = node_model("SpaceToDepth", ["x"], feeds, blocksize=2)
    check(model, feeds, ["relay.nn.space_to_depth"])


def test_space_to_depth_crd_mode():
    """Opset 28 adds ``mode`` (onnxruntime does not run it yet)."""
    x = randn(1, 2, 4, 2)
    model = node_model("SpaceToDepth", ["x"], {"x": x}, opset=28, blocksize=2, mode="CRD")
    want = x.reshape(1, 2, 2, 2, 1, 2).transpose(0, 1, 3, 5, 2, 4).reshape(1, 8, 2, 1)
    check(model, {"x": x}, ["relay.nn.space_to_depth"], expected=[want])


@pytest.mark.parametrize(("time_axis", "batch_axis"), [(0, 1), (1, 0)])
def test_reverse_sequence(time_axis, batch_axis):
    feeds = {"x": randn(4, 4), "l": np.array([4, 1, 0, 3], I64)}
    model = node_model(
        "ReverseSequence", ["x", "l"], feeds, opset=10, time_axis=time_axis, batch_axis=batch_axis
    )
    check(model, feeds, ["relay.reverse_sequence"])
