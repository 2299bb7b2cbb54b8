"""NumPy semantics of ``relay.nn.*`` ops (convolution and pooling live in
``conv`` and ``pool``)."""

from __future__ import annotations

import numpy as np


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.zeros((), x.dtype))


def dense(data: np.ndarray, weight: np.ndarray, out_dtype: str | None = None) -> np.ndarray:
    """``data · weightᵀ``, accumulated in ``out_dtype`` (default: data's)."""
    acc = np.dtype(out_dtype or data.dtype)
    return np.matmul(data.astype(acc), weight.T.astype(acc)).astype(acc)


def matmul(
    a: np.ndarray,
    b: np.ndarray,
    transpose_a: bool = False,
    transpose_b: bool = False,
    out_dtype: str | None = None,
):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    acc = np.dtype(out_dtype or a.dtype)
    return np.matmul(a.astype(acc), b.astype(acc)).astype(acc)


def bias_add(data: np.ndarray, bias: np.ndarray, axis: int = 1) -> np.ndarray:
    axis %= data.ndim
    shape = [1] * data.ndim
    shape[axis] = bias.shape[0]
    return (data + bias.reshape(shape)).astype(data.dtype)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    if x.size == 0:  # NumPy's max has no value over an empty axis
        return x.copy()
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype)


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    if x.size == 0:
        return x.copy()
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(x.dtype)


def hardmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """1 at the first maximum along ``axis``, 0 elsewhere."""
    if x.size == 0:
        return x.copy()
    index = np.expand_dims(np.argmax(x, axis=axis), axis)
    out = np.zeros_like(x)
    np.put_along_axis(out, index, 1, axis=axis)
    return out


def batch_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    moving_mean: np.ndarray,
    moving_var: np.ndarray,
    axis: int = 1,
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
) -> np.ndarray:
    """Inference batch norm: ``(x - mean) / sqrt(var + eps) * gamma + beta``."""
    shape = [1] * data.ndim
    shape[axis % data.ndim] = -1

    def along(p: np.ndarray) -> np.ndarray:
        return p.astype(np.float64).reshape(shape)

    out = (data - along(moving_mean)) / np.sqrt(along(moving_var) + epsilon)
    if scale:
        out = out * along(gamma)
    if center:
        out = out + along(beta)
    return out.astype(data.dtype)


def lrn(
    x: np.ndarray,
    size: int = 5,
    axis: int = 1,
    alpha: float = 1e-5,
    beta: float = 0.75,
    bias: float = 2.0,
) -> np.ndarray:
    """ONNX LRN: ``x / (bias + alpha / size * window_sum(x²)) ** beta`` with the
    window ``[c - (size - 1) // 2, c + size // 2]`` along ``axis``."""
    axis %= x.ndim
    before = (size - 1) // 2
    pads = [(0, 0)] * x.ndim
    pads[axis] = (before, size - 1 - before)
    squares = np.pad(x.astype(np.float64) ** 2, pads)
    n = x.shape[axis]
    window_sum = sum(np.take(squares, range(k, k + n), axis=axis) for k in range(size))
    return (x / (bias + alpha / size * window_sum) ** beta).astype(x.dtype)


def batch_flatten(x: np.ndarray) -> np.ndarray:
    return x.reshape(x.shape[0], int(np.prod(x.shape[1:])))


REFERENCES = {
    "relay.nn.relu": lambda ins, attrs: relu(ins[0]),
    "relay.nn.dense": lambda ins, attrs: dense(*ins, attrs.get("out_dtype")),
    "relay.nn.matmul": lambda ins, attrs: matmul(*ins, **attrs),
    "relay.nn.bias_add": lambda ins, attrs: bias_add(*ins, **attrs),
    "relay.nn.softmax": lambda ins, attrs: softmax(ins[0], **attrs),
    "relay.nn.log_softmax": lambda ins, attrs: log_softmax(ins[0], **attrs),
    "relay.nn.hardmax": lambda ins, attrs: hardmax(ins[0], **attrs),
    "relay.nn.batch_norm": lambda ins, attrs: batch_norm(*ins, **attrs),
    "relay.nn.lrn": lambda ins, attrs: lrn(ins[0], **attrs),
    "relay.nn.dropout": lambda ins, attrs: ins[0].copy(),
    "relay.nn.batch_flatten": lambda ins, attrs: batch_flatten(ins[0]),
}
