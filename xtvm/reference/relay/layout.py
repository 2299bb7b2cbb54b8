"""NumPy semantics of the layout ops: ``relay.broadcast_to``, ``relay.tile``,
``relay.reverse_sequence``, ``relay.nn.pad``, ``relay.nn.depth_to_space``,
``relay.nn.space_to_depth``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_NUMPY_PAD_MODES = {"edge": "edge", "reflect": "reflect", "wrap": "wrap"}


def tile(data: np.ndarray, reps: Sequence[int]) -> np.ndarray:
    return np.tile(data, tuple(reps))


def reverse_sequence(
    data: np.ndarray, seq_lengths: np.ndarray, seq_axis: int = 1, batch_axis: int = 0
) -> np.ndarray:
    """The first ``seq_lengths[b]`` (clamped to the axis) elements of each
    batch entry reversed along ``seq_axis``."""
    out = data.copy()
    seq_axis %= data.ndim
    batch_axis %= data.ndim
    for b, length in enumerate(seq_lengths):
        n = int(min(max(int(length), 0), data.shape[seq_axis]))
        index: list[slice | int] = [slice(None)] * data.ndim
        index[batch_axis] = b
        window = list(index)
        window[seq_axis] = slice(0, n)
        source = list(index)
        source[seq_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        out[tuple(window)] = data[tuple(source)]
    return out


def pad(
    data: np.ndarray, pad_value: np.ndarray, pad_width: Sequence[int], pad_mode: str = "constant"
) -> np.ndarray:
    """``np.pad`` with per-axis ``(before, after)`` pairs; negative widths crop first."""
    pairs = [(pad_width[2 * d], pad_width[2 * d + 1]) for d in range(data.ndim)]
    crop = tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pairs, data.shape))
    cropped = data[crop]
    widths = [(max(b, 0), max(a, 0)) for b, a in pairs]
    if pad_mode == "constant":
        return np.pad(cropped, widths, constant_values=pad_value[()])
    return np.pad(cropped, widths, mode=_NUMPY_PAD_MODES[pad_mode])


def depth_to_space(
    data: np.ndarray, block_size: int, layout: str = "NCHW", mode: str = "DCR"
) -> np.ndarray:
    b = block_size
    n, c, h, w = data.shape
    if mode == "DCR":
        tmp = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        tmp = data.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return tmp.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth(
    data: np.ndarray, block_size: int, layout: str = "NCHW", mode: str = "DCR"
) -> np.ndarray:
    b = block_size
    n, c, h, w = data.shape
    tmp = data.reshape(n, c, h // b, b, w // b, b)
    perm = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    return tmp.transpose(perm).reshape(n, c * b * b, h // b, w // b)


REFERENCES = {
    "relay.broadcast_to": lambda ins, attrs: np.broadcast_to(ins[0], attrs["shape"]).copy(),
    "relay.tile": lambda ins, attrs: tile(ins[0], attrs["reps"]),
    "relay.reverse_sequence": lambda ins, attrs: reverse_sequence(*ins, **attrs),
    "relay.nn.pad": lambda ins, attrs: pad(*ins, **attrs),
    "relay.nn.depth_to_space": lambda ins, attrs: depth_to_space(ins[0], **attrs),
    "relay.nn.space_to_depth": lambda ins, attrs: space_to_depth(ins[0], **attrs),
}
