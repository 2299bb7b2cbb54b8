"""relay.nn.conv2d: builder, type rule and NumPy reference against onnxruntime ``Conv``."""

from __future__ import annotations

import numpy as np
import pytest
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects.relay import Conv2dOp, RelayTypeError
from xtvm.reference.relay.conv import conv2d

CASES = {
    # name: (data shape, weight shape, strides, padding [t, l, b, r], dilation, groups)
    "plain": ((2, 3, 8, 8), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "same_padding": ((1, 4, 7, 7), (6, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "strided": ((1, 3, 11, 9), (8, 3, 3, 3), (2, 3), (1, 1, 1, 1), (1, 1), 1),
    "asymmetric_pads": ((1, 2, 6, 7), (3, 2, 3, 2), (1, 1), (0, 2, 1, 0), (1, 1), 1),
    "dilated": ((1, 2, 10, 10), (3, 2, 3, 3), (1, 1), (2, 2, 2, 2), (2, 3), 1),
    "grouped": ((2, 6, 8, 8), (9, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3),
    "depthwise": ((1, 8, 9, 9), (8, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 8),
    "depthwise_multiplier": ((1, 4, 6, 6), (8, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 4),
    "pointwise": ((1, 16, 5, 5), (8, 16, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "everything": ((2, 6, 13, 12), (4, 3, 3, 2), (2, 1), (1, 0, 2, 1), (2, 2), 2),
}


@pytest.mark.parametrize("case", CASES)
def test_conv2d_matches_onnxruntime(case):
    dshape, wshape, strides, padding, dilation, groups = CASES[case]
    data, weight = random(dshape), random(wshape)
    ours = run_relay(
        lambda d, w: Conv2dOp(
            d, w, strides=strides, padding=padding, dilation=dilation, groups=groups
        ),
        [data, weight],
    )
    theirs = run_onnx(
        "Conv",
        [data, weight],
        strides=list(strides),
        pads=[padding[0], padding[1], padding[2], padding[3]],
        dilations=list(dilation),
        group=groups,
    )
    assert_same(ours, theirs)


def test_conv2d_int8_accumulates_in_out_dtype():
    data = random((1, 4, 5, 5), "int8", -128, 128)
    weight = random((2, 4, 3, 3), "int8", -128, 128)
    (out,) = run_relay(lambda d, w: Conv2dOp(d, w, out_dtype="int32"), [data, weight])
    assert out.dtype == np.int32
    (theirs,) = run_onnx("ConvInteger", [data, weight])
    assert_same([out], [theirs])


def test_conv2d_reference_is_a_direct_loop():
    """The im2col reference against the textbook six-loop definition."""
    data, weight = random((1, 4, 6, 5)), random((6, 2, 2, 3))
    got = conv2d(data, weight, strides=(2, 1), padding=(1, 0, 0, 2), dilation=(2, 1), groups=2)
    x = np.pad(data, ((0, 0), (0, 0), (1, 0), (0, 2)))
    want = np.zeros(got.shape)
    for o in range(6):
        g = o // 3
        for y in range(got.shape[2]):
            for z in range(got.shape[3]):
                for i in range(2):
                    for ky in range(2):
                        for kx in range(3):
                            want[0, o, y, z] += (
                                x[0, g * 2 + i, y * 2 + ky * 2, z + kx] * weight[o, i, ky, kx]
                            )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_conv2d_builder_rejects_bad_weights():
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.utils.test_value import create_ssa_value

    data = create_ssa_value(TensorType(f32, [1, 4, 8, 8]))
    weight = create_ssa_value(TensorType(f32, [8, 3, 3, 3]))
    with pytest.raises(RelayTypeError, match="has 3 input channels per group"):
        Conv2dOp(data, weight)


def test_equal_output_channels_are_bit_identical():
    # Output channels with equal weights sum the same products: the reference
    # gives them the same bits (float32 BLAS tiles did not, and the shipped
    # light SqueezeNet's softmax over logits near 1e10 turned that one-hot).
    rng = np.random.default_rng(0)
    data = (rng.random((1, 512, 13, 13)) * 1e6).astype(np.float32)
    weight = np.full((1000, 512, 1, 1), 0.02, np.float32)
    out = conv2d(data, weight)
    assert out.dtype == np.float32
    assert (out == out[:, :1]).all()
