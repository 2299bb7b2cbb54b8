"""Converters for the optimizers of the ``ai.onnx.preview.training`` domain:
``Adagrad``, ``Adam`` and ``Momentum``, decomposed into elementwise relay
ops as onnx's reference formulas are written.

Each optimizer updates ``n`` tensors at once: its inputs are the learning
rate ``R`` (a scalar), the update count ``T`` (an int64 scalar), then ``n``
tensors ``X``, ``n`` gradients ``G`` and ``n`` of each state (``H`` for
Adagrad; ``V`` for Momentum; ``V`` and ``H`` for Adam); its outputs are the
``n`` new ``X``, then the new states in the same order. ``R`` and ``T`` are
run-time values: the ``T > 0`` branches are ``relay.where`` selections and
``alpha ** T`` a ``relay.power``, so one compiled model serves every step.
Arithmetic is in the element type of each ``X``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    CastOp,
    DivideOp,
    GreaterOp,
    MultiplyOp,
    PowerOp,
    SqrtOp,
    SubtractOp,
    WhereOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _dtype(value: SSAValue) -> np.dtype:
    ty = value.type
    assert isinstance(ty, TensorType)
    return numpy_dtype(ty.get_element_type())


class _Math:
    """Elementwise arithmetic on one node's values, with Python floats as
    constants of the element type ``dtype``."""

    def __init__(self, node: OnnxNode, dtype: np.dtype):
        self.node, self.dtype = node, dtype

    def v(self, x: SSAValue | float) -> SSAValue:
        if isinstance(x, SSAValue):
            return x
        return self.node.const(np.array(x, self.dtype))

    def _bin(self, op: Callable[..., object], a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.node.emit(op(self.v(a), self.v(b)))  # type: ignore[arg-type]

    def add(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self._bin(AddOp, a, b)

    def sub(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self._bin(SubtractOp, a, b)

    def mul(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self._bin(MultiplyOp, a, b)

    def div(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self._bin(DivideOp, a, b)

    def pow(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self._bin(PowerOp, a, b)

    def sqrt(self, a: SSAValue) -> SSAValue:
        return self.node.emit(SqrtOp(a))

    def cast(self, a: SSAValue) -> SSAValue:
        return a if _dtype(a) == self.dtype else self.node.emit(CastOp(a, str(self.dtype)))

    def where_positive(
        self, t: SSAValue, then: SSAValue | float, other: SSAValue | float
    ) -> SSAValue:
        """``then`` where the update count ``t`` is > 0, else ``other``."""
        positive = self.node.emit(GreaterOp(t, self.node.const(np.array(0, _dtype(t)))))
        return self.node.emit(WhereOp(positive, self.v(then), self.v(other)))

    def regularized(self, x: SSAValue, g: SSAValue, norm: float) -> SSAValue:
        """``norm * x + g`` (the gradient with the L2 term)."""
        return g if norm == 0 else self.add(self.mul(norm, x), g)


def _groups(node: OnnxNode, states: int) -> int:
    """The number ``n`` of optimized tensors: the inputs after ``R`` and
    ``T`` are ``X``, ``G`` and ``states`` state tensors, ``n`` each."""
    rest = len(node.proto.input) - 2
    if rest <= 0 or rest % (2 + states):
        raise node.error(
            f"expected R, T and {2 + states} groups of equally many tensors, "
            f"got {len(node.proto.input)} inputs"
        )
    n = rest // (2 + states)
    for i in range(n):
        shapes = {node.input_shape(2 + i + k * n) for k in range(2 + states)}
        if len(shapes) != 1:
            raise node.error(f"tensor {i}: X, its gradient and states differ in shape: {shapes}")
    return n


class Adagrad(OnnxOpConverter):
    """``Adagrad(R, T, X..., G..., H...)`` → ``X_new..., H_new...``:

    ```text
    r = R / (1 + T * decay_factor)
    g = norm_coefficient * X + G
    H_new = H + g * g
    X_new = X - r * g / (sqrt(H_new) + epsilon)
    ```
    """

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[SSAValue]:
        n = _groups(node, 1)
        decay, eps = float(node.attr("decay_factor", 0.0)), float(node.attr("epsilon", 1e-6))
        norm = float(node.attr("norm_coefficient", 0.0))
        xs, hs = [], []
        for i in range(n):
            x, g, h = (node.input(2 + i + k * n) for k in range(3))
            m = _Math(node, _dtype(x))
            r, t = m.cast(node.input(0)), m.cast(node.input(1))
            r = m.div(r, m.add(1.0, m.mul(t, decay)))
            g = m.regularized(x, g, norm)
            h_new = m.add(h, m.mul(g, g))
            xs.append(m.sub(x, m.div(m.mul(r, g), m.add(m.sqrt(h_new), eps))))
            hs.append(h_new)
        return xs + hs


class Momentum(OnnxOpConverter):
    """``Momentum(R, T, X..., G..., V...)`` → ``X_new..., V_new...``:

    ```text
    g = norm_coefficient * X + G
    V_new = alpha * V + (beta if T > 0 else 1) * g
    X_new = X - R * V_new                      (mode "standard")
    X_new = X - R * (g + alpha * V_new)        (mode "nesterov")
    ```
    """

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[SSAValue]:
        n = _groups(node, 1)
        alpha, beta = float(node.attr("alpha", 0.0)), float(node.attr("beta", 0.0))
        norm = float(node.attr("norm_coefficient", 0.0))
        mode = node.attr("mode", "standard")
        if mode not in ("standard", "nesterov"):
            raise node.unsupported_attr("mode", "expected 'standard' or 'nesterov'")
        xs, vs = [], []
        for i in range(n):
            x, g, v = (node.input(2 + i + k * n) for k in range(3))
            m = _Math(node, _dtype(x))
            r, t = m.cast(node.input(0)), node.input(1)
            g = m.regularized(x, g, norm)
            v_new = m.add(m.mul(alpha, v), m.mul(m.where_positive(t, beta, 1.0), g))
            step = v_new if mode == "standard" else m.add(g, m.mul(alpha, v_new))
            xs.append(m.sub(x, m.mul(r, step)))
            vs.append(v_new)
        return xs + vs


class Adam(OnnxOpConverter):
    """``Adam(R, T, X..., G..., V..., H...)`` → ``X_new..., V_new..., H_new...``:

    ```text
    g = norm_coefficient * X + G
    V_new = alpha * V + (1 - alpha) * g
    H_new = beta * H + (1 - beta) * g * g
    r = R * sqrt(1 - beta ** T) / (1 - alpha ** T) if T > 0 else R
    X_new = (1 - norm_coefficient_post) * (X - r * V_new / (sqrt(H_new) + epsilon))
    ```
    """

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[SSAValue]:
        n = _groups(node, 2)
        alpha, beta = float(node.attr("alpha", 0.9)), float(node.attr("beta", 0.999))
        eps = float(node.attr("epsilon", 1e-6))
        norm = float(node.attr("norm_coefficient", 0.0))
        post = float(node.attr("norm_coefficient_post", 0.0))
        xs, vs, hs = [], [], []
        for i in range(n):
            x, g, v, h = (node.input(2 + i + k * n) for k in range(4))
            m = _Math(node, _dtype(x))
            r, t_int = m.cast(node.input(0)), node.input(1)
            t = m.cast(t_int)
            g = m.regularized(x, g, norm)
            v_new = m.add(m.mul(alpha, v), m.mul(1.0 - alpha, g))
            h_new = m.add(m.mul(beta, h), m.mul(1.0 - beta, m.mul(g, g)))
            # The bias correction; at T = 0 its NaN (0/0) is never selected.
            corrected = m.div(
                m.mul(r, m.sqrt(m.sub(1.0, m.pow(beta, t)))), m.sub(1.0, m.pow(alpha, t))
            )
            r = m.where_positive(t_int, corrected, r)
            x_new = m.sub(x, m.mul(r, m.div(v_new, m.add(m.sqrt(h_new), eps))))
            xs.append(x_new if post == 0 else m.mul(1.0 - post, x_new))
            vs.append(v_new)
            hs.append(h_new)
        return xs + vs + hs


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Adagrad": Adagrad,
    "Adam": Adam,
    "Momentum": Momentum,
}
