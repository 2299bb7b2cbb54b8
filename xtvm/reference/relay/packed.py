"""NumPy semantics of the packed-layout ops: ``relay.layout_transform`` moves
the data between layouts (:mod:`xtvm.layout`); the packed ops unpack their
weight to its primal layout and run the unpacked op's reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xtvm.layout import Layout, transform_shape
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.nn import dense


def _to_primal(array: np.ndarray, layout: Layout) -> np.ndarray:
    """``array`` (in ``layout``) with its sub-axes merged back: primal axes in
    ``layout.primal`` order."""
    positions = {letter: k for k, (letter, _) in enumerate(layout.axes)}
    order, shape = [], []
    for letter in layout.primal:
        order.append(positions[letter])
        extent = array.shape[positions[letter]]
        if letter.lower() in positions:
            order.append(positions[letter.lower()])
            extent *= array.shape[positions[letter.lower()]]
        shape.append(extent)
    return array.transpose(order).reshape(shape)


def _from_primal(array: np.ndarray, primal: str, layout: Layout) -> np.ndarray:
    """``array`` (primal axes in ``primal`` order) split and permuted into ``layout``."""
    subs = {letter for letter, factor in layout.axes if factor}
    split, positions = [], {}
    for letter, extent in zip(primal, array.shape):
        positions[letter] = len(split)
        if letter.lower() in subs:
            factor = layout.factor(letter)
            split += [extent // factor, factor]
            positions[letter.lower()] = len(split) - 1
        else:
            split.append(extent)
    return array.reshape(split).transpose([positions[letter] for letter, _ in layout.axes])


def layout_transform(data: np.ndarray, src_layout: str, dst_layout: str) -> np.ndarray:
    """``data`` (in ``src_layout``) converted to ``dst_layout`` (a reshape and a
    transpose each way: no index arrays). Usually a strided view of ``data``,
    not a copy: ``relay-fold-constant`` writes it straight into the new
    constant's bytes, so packing a 400 MB weight costs that one copy."""
    src, dst = Layout.parse(src_layout), Layout.parse(dst_layout)
    transform_shape(data.shape, src_layout, dst_layout)  # checks compatibility and divisibility
    return _from_primal(_to_primal(np.asarray(data), src), src.primal, dst)


def conv2d_packed(ins: Sequence[np.ndarray], attrs: Mapping[str, Any]) -> np.ndarray:
    data, weight = ins
    blocked = attrs.get("data_layout", "NCHW") != "NCHW"
    if blocked:  # NCHW<c>c data, NCHW<b>c result
        data = layout_transform(data, attrs["data_layout"], "NCHW")
    oihw = layout_transform(weight, attrs["kernel_layout"], "OIHW")
    out = conv2d(
        data,
        oihw,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=attrs["groups"],
    )
    if attrs.get("out_shuffle", 0):  # a channel shuffle of the result
        n, o, h, w = out.shape
        shuffle = attrs["out_shuffle"]
        out = out.reshape(n, shuffle, o // shuffle, h, w).transpose(0, 2, 1, 3, 4).reshape(out.shape)
    blocked_out = blocked or attrs.get("out_layout", "") != ""
    return layout_transform(out, "NCHW", f"NCHW{weight.shape[4]}c") if blocked_out else out


def unpack_int8_words(words: np.ndarray, kernel_layout: str, channels: int) -> np.ndarray:
    """The ``OIHW`` (``NK``) ``int8`` weight of an ``"OIHW<b>o4i"``
    (``"NK<b>n4k"``) ``int32`` packing (four input channels a word, byte
    ``k`` = channel ``4·c + k``), cut to ``channels`` input channels."""
    as_bytes = np.ascontiguousarray(words, dtype="<i4").view(np.int8)
    grouped = as_bytes.reshape(*words.shape, 4)
    primal = Layout.parse(kernel_layout).primal
    return layout_transform(grouped, kernel_layout, primal)[:, :channels]


def conv2d_int8_packed(ins: Sequence[np.ndarray], attrs: Mapping[str, Any]) -> np.ndarray:
    data, words = ins
    blocked = attrs.get("data_layout", "NCHW") != "NCHW"
    if blocked:  # NCHW<c>c data, NCHW<b>c result
        data = layout_transform(data, attrs["data_layout"], "NCHW")
    oihw = unpack_int8_words(words, attrs["kernel_layout"], data.shape[1])
    top, left, bottom, right = attrs["padding"]
    widths = ((0, 0), (0, 0), (top, bottom), (left, right))
    data = np.pad(data, widths, constant_values=attrs.get("pad_value", 0))
    out = conv2d(
        data,
        oihw,
        strides=attrs["strides"],
        padding=(0, 0, 0, 0),
        dilation=attrs["dilation"],
        out_dtype="int32",
    )
    blocked_out = blocked or attrs.get("out_layout", "") != ""
    return layout_transform(out, "NCHW", f"NCHW{words.shape[4]}c") if blocked_out else out


def dense_int8_packed(ins: Sequence[np.ndarray], attrs: Mapping[str, Any]) -> np.ndarray:
    data, words = ins
    nk = unpack_int8_words(words, attrs["weight_layout"], data.shape[1])
    return dense(data, nk, "int32")


REFERENCES = {
    "relay.layout_transform": lambda ins, attrs: layout_transform(
        ins[0], attrs["src_layout"], attrs["dst_layout"]
    ),
    "relay.nn.contrib_conv2d_packed": conv2d_packed,
    "relay.nn.contrib_conv2d_int8_packed": conv2d_int8_packed,
    "relay.nn.contrib_dense_int8_packed": dense_int8_packed,
    "relay.nn.contrib_dense_pack": lambda ins, attrs: dense(
        ins[0], layout_transform(ins[1], attrs["weight_layout"], "NK")
    ),
}
