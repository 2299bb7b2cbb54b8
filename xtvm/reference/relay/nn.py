"""NumPy semantics of ``relay.nn.*`` ops."""

from __future__ import annotations

import numpy as np


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.zeros((), x.dtype))


def dense(data: np.ndarray, weight: np.ndarray) -> np.ndarray:
    return np.matmul(data, weight.T).astype(data.dtype)


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = False):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b).astype(a.dtype)


def bias_add(data: np.ndarray, bias: np.ndarray, axis: int = 1) -> np.ndarray:
    axis %= data.ndim
    shape = [1] * data.ndim
    shape[axis] = bias.shape[0]
    return (data + bias.reshape(shape)).astype(data.dtype)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype)


REFERENCES = {
    "relay.nn.relu": lambda ins, attrs: relu(ins[0]),
    "relay.nn.dense": lambda ins, attrs: dense(*ins),
    "relay.nn.matmul": lambda ins, attrs: matmul(*ins, **attrs),
    "relay.nn.bias_add": lambda ins, attrs: bias_add(*ins, **attrs),
    "relay.nn.softmax": lambda ins, attrs: softmax(ins[0], **attrs),
}
