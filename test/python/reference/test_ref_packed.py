"""Layouts (xtvm.layout) and the packed ops' references (layout_transform moves the data)."""

import numpy as np
import pytest

from xtvm.layout import Layout, transform_shape
from xtvm.reference.relay import evaluate
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.packed import layout_transform


def test_packing_places_each_element_by_its_block():
    w = np.arange(32 * 3 * 2 * 2, dtype=np.float32).reshape(32, 3, 2, 2)
    p = layout_transform(w, "OIHW", "OIHW16o")
    assert p.shape == (2, 3, 2, 2, 16)
    for o, i, h, x in [(0, 0, 0, 0), (21, 2, 1, 0), (31, 1, 0, 1)]:
        assert p[o // 16, i, h, x, o % 16] == w[o, i, h, x]
    np.testing.assert_array_equal(layout_transform(p, "OIHW16o", "OIHW"), w)


def test_layouts_between_two_packings():
    x = np.random.default_rng(0).standard_normal((1, 32, 3, 3)).astype(np.float32)
    a = layout_transform(x, "NCHW", "NCHW16c")
    b = layout_transform(a, "NCHW16c", "NCHW8c")
    np.testing.assert_array_equal(b, layout_transform(x, "NCHW", "NCHW8c"))
    assert transform_shape([1, 32, 3, 3], "NCHW", "NHWC") == [1, 3, 3, 32]


@pytest.mark.parametrize(
    "bad", ["", "N16", "NCHW16", "NN", "NCH16w", "16NC", "NC0c"]
)
def test_malformed_layouts_are_rejected(bad):
    with pytest.raises(ValueError, match="layout"):
        Layout.parse(bad)


def test_packed_conv_and_dense_references_match_unpacked_ops():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((16, 2, 3, 3)).astype(np.float32)
    attrs = {"kernel_layout": "OIHW8o", "strides": (1, 1), "padding": (1, 1, 1, 1),
             "dilation": (1, 1), "groups": 2}
    packed = layout_transform(w, "OIHW", "OIHW8o")
    out = evaluate("relay.nn.contrib_conv2d_packed", [x, packed], attrs)
    np.testing.assert_allclose(out, conv2d(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 2), rtol=1e-6)
    d = rng.standard_normal((3, 5)).astype(np.float32)
    dw = rng.standard_normal((24, 5)).astype(np.float32)
    dp = evaluate("relay.layout_transform", [dw], {"src_layout": "NK", "dst_layout": "NK8n"})
    out = evaluate("relay.nn.contrib_dense_pack", [d, dp], {"weight_layout": "NK8n"})
    np.testing.assert_allclose(out, d @ dw.T, rtol=1e-6)
