"""Converters of the recurrent layers ``RNN``, ``GRU`` and ``LSTM``, unrolled
over the static sequence length into relay ops, as TVM's ONNX importer does.

Shapes (``layout = 0``; ``layout = 1`` swaps the batch and sequence axes of
``X``, ``Y``, ``initial_h``/``_c`` and ``Y_h``/``_c``)::

    X [T, B, I]   W [D, G·H, I]   R [D, G·H, H]   B [D, 2·G·H]
    Y [T, D, B, H]   Y_h, Y_c [D, B, H]

with ``D`` = 2 for ``direction = "bidirectional"``, else 1, and ``G`` the
gate count (RNN 1, GRU 3, LSTM 4). Each direction is unrolled on its own:
the input projection of every step is one ``relay.nn.dense`` of ``X``
(``[T·B, I] · Wᵀ``, both biases added once); each step adds ``H_{t-1} ·
Rᵀ`` and computes the cell (formulas on the cell functions below). A
reverse direction runs ``t = T-1 … 0`` and writes ``Y[t]`` at its own time.

``sequence_lens`` (run-time values allowed): step ``t`` of batch entry
``b`` takes effect only where ``t < sequence_lens[b]``: the state is kept
(``relay.where``) and ``Y`` is 0 past the end, as onnxruntime computes it
(a reverse direction then starts at ``sequence_lens[b] - 1``). A constant
``sequence_lens`` equal to ``T`` everywhere needs no masks.

``activations``/``activation_alpha``/``activation_beta``: per direction
the cell's functions (RNN ``f``; GRU ``f, g``; LSTM ``f, g, h``), forward
then reverse; alphas and betas are consumed in that order by the functions
that take them (as onnxruntime does), defaults as the ONNX ops'. ``clip``
clips every activation's input to ``[-clip, clip]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AbsOp,
    AddOp,
    ClipOp,
    ConcatenateOp,
    DenseOp,
    DivideOp,
    ExpandDimsOp,
    GreaterOp,
    LessOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    SigmoidOp,
    SplitOp,
    SubtractOp,
    TanhOp,
    TransposeOp,
    WhereOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.activation import _const, _exp_minus_one, _hard_sigmoid, _softplus
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.tensor import element_dtype

Activation = Callable[[OnnxNode, SSAValue], SSAValue]


def _affine(alpha: float, beta: float) -> Activation:
    def apply(node: OnnxNode, x: SSAValue) -> SSAValue:
        scaled = node.emit(MultiplyOp(x, _const(node, alpha, x)))
        return node.emit(AddOp(scaled, _const(node, beta, x)))

    return apply


def _leaky_relu(alpha: float, beta: float) -> Activation:
    def apply(node: OnnxNode, x: SSAValue) -> SSAValue:
        negative = node.emit(LessOp(x, _const(node, 0.0, x)))
        return node.emit(WhereOp(negative, node.emit(MultiplyOp(x, _const(node, alpha, x))), x))

    return apply


def _thresholded_relu(alpha: float, beta: float) -> Activation:
    def apply(node: OnnxNode, x: SSAValue) -> SSAValue:
        above = node.emit(GreaterOp(x, _const(node, alpha, x)))
        return node.emit(WhereOp(above, x, _const(node, 0.0, x)))

    return apply


def _scaled_tanh(alpha: float, beta: float) -> Activation:
    def apply(node: OnnxNode, x: SSAValue) -> SSAValue:
        inner = node.emit(TanhOp(node.emit(MultiplyOp(x, _const(node, beta, x)))))
        return node.emit(MultiplyOp(inner, _const(node, alpha, x)))

    return apply


def _elu(alpha: float, beta: float) -> Activation:
    def apply(node: OnnxNode, x: SSAValue) -> SSAValue:
        negative = node.emit(MultiplyOp(_const(node, alpha, x), _exp_minus_one(node, x)))
        positive = node.emit(GreaterOp(x, _const(node, 0.0, x)))
        return node.emit(WhereOp(positive, x, negative))

    return apply


def _softsign(node: OnnxNode, x: SSAValue) -> SSAValue:
    denominator = node.emit(AddOp(_const(node, 1.0, x), node.emit(AbsOp(x))))
    return node.emit(DivideOp(x, denominator))


def _plain(op: type) -> Callable[[float, float], Activation]:
    return lambda alpha, beta: lambda node, x: node.emit(op(x))


ACTIVATIONS: dict[str, tuple[Callable[[float, float], Activation], float | None, float | None]] = {
    # lower-case name: (builder from (alpha, beta), default alpha, default beta);
    # None: the function takes no such parameter
    "relu": (_plain(ReluOp), None, None),
    "tanh": (_plain(TanhOp), None, None),
    "sigmoid": (_plain(SigmoidOp), None, None),
    "affine": (_affine, 1.0, 0.0),
    "leakyrelu": (_leaky_relu, 0.01, None),
    "thresholdedrelu": (_thresholded_relu, 1.0, None),
    "scaledtanh": (_scaled_tanh, 1.0, 1.0),
    "hardsigmoid": (lambda a, b: lambda node, x: _hard_sigmoid(node, x, a, b), 0.2, 0.5),
    "elu": (_elu, 1.0, None),
    "softsign": (lambda a, b: _softsign, None, None),
    "softplus": (lambda a, b: _softplus, None, None),
}
"""The activation functions an RNN cell may use (onnxruntime's set)."""


def _activations(
    node: OnnxNode, defaults: Sequence[str], directions: int
) -> list[list[Activation]]:
    """The cell's activation functions for each direction."""
    names = node.attr("activations")
    count = len(defaults) * directions
    if names is None:
        names = list(defaults) * directions
    elif len(names) != count:
        raise node.error(
            f"attribute 'activations' must name {count} functions "
            f"({len(defaults)} per direction), got {len(names)}"
        )
    alphas = list(node.attr("activation_alpha", []))
    betas = list(node.attr("activation_beta", []))
    functions = []
    for name in names:
        if name.lower() not in ACTIVATIONS:
            known = ", ".join(sorted(ACTIVATIONS))
            raise node.unsupported_attr("activations", f"'{name}' is not one of {known}")
        build, alpha, beta = ACTIVATIONS[name.lower()]
        if alpha is not None and alphas:
            alpha = alphas.pop(0)
        if beta is not None and betas:
            beta = betas.pop(0)
        functions.append(build(alpha or 0.0, beta or 0.0))
    per = len(defaults)
    return [functions[d * per : (d + 1) * per] for d in range(directions)]


@dataclass
class _Direction:
    """What one direction's cell reads: its recurrence weight, biases,
    peepholes and activations, and how errors name the node."""

    node: OnnxNode
    r: SSAValue
    """``R`` of this direction, ``[G·H, H]``."""
    recurrence_bias: SSAValue | None
    """GRU with ``linear_before_reset``: ``Rb`` of the ``h`` gate, ``[H]``."""
    peepholes: list[SSAValue]
    """LSTM: ``P`` split into ``p_i, p_o, p_f`` (``[H]`` each), or empty."""
    activations: list[Activation]
    clip: float | None
    _reset_rows: tuple[SSAValue, SSAValue] | None = None

    def emit(self, op) -> SSAValue:
        return self.node.emit(op)

    def act(self, k: int, x: SSAValue) -> SSAValue:
        """Activation ``k`` of the cell on ``x``, after ``clip``."""
        if self.clip is not None:
            x = self.emit(ClipOp(x, -self.clip, self.clip))
        return self.activations[k](self.node, x)

    def gates(self, x_t: SSAValue, h: SSAValue, count: int) -> list[SSAValue]:
        """``x_t + h · Rᵀ`` split into ``count`` gates."""
        pre = self.emit(AddOp(x_t, self.emit(DenseOp(h, self.r))))
        return list(self.emit_split(pre, count))

    def emit_split(self, value: SSAValue, count: int) -> Sequence[SSAValue]:
        """``value`` split into ``count`` equal parts along its last axis."""
        if count == 1:
            return [value]
        split = SplitOp(value, count, axis=-1)
        self.emit(split)
        return split.results

    def reset_rows(self) -> tuple[SSAValue, SSAValue]:
        """GRU: ``R`` split into the rows of gates ``z, r`` and of ``h``
        (split once per direction)."""
        if self._reset_rows is None:
            hidden = static_shape(self.r)[1]
            first, second = _split(self.node, self.r, [2 * hidden])
            self._reset_rows = (first, second)
        return self._reset_rows


State = list[SSAValue]
"""The recurrent state: ``[H]`` (RNN, GRU) or ``[H, C]`` (LSTM), ``[B, H]`` each."""


def _rnn_cell(cell: _Direction, x_t: SSAValue, state: State) -> State:
    """``H = f(x_t + H·Rᵀ)`` (``x_t`` holds ``X·Wᵀ + Wb + Rb``)."""
    (pre,) = cell.gates(x_t, state[0], 1)
    return [cell.act(0, pre)]


def _gru_cell(cell: _Direction, x_t: SSAValue, state: State) -> State:
    """``z = f(x_z + H·R_zᵀ)``, ``r = f(x_r + H·R_rᵀ)``,
    ``h~ = g(x_h + (r ⊙ H)·R_hᵀ)`` — or with ``linear_before_reset``,
    ``g(x_h + r ⊙ (H·R_hᵀ + Rb_h))`` — and ``H' = (1 - z) ⊙ h~ + z ⊙ H``
    (``x_*`` hold ``X·Wᵀ + Wb`` and, except the second form's ``h``, ``Rb``)."""
    (h,) = state
    x_z, x_r, x_h = cell.emit_split(x_t, 3)
    if cell.recurrence_bias is not None:  # linear_before_reset
        rec_z, rec_r, rec_h = cell.emit_split(cell.emit(DenseOp(h, cell.r)), 3)
        z = cell.act(0, cell.emit(AddOp(x_z, rec_z)))
        r = cell.act(0, cell.emit(AddOp(x_r, rec_r)))
        reset = cell.emit(MultiplyOp(r, cell.emit(AddOp(rec_h, cell.recurrence_bias))))
    else:
        r_zr, r_h = cell.reset_rows()
        rec_z, rec_r = cell.emit_split(cell.emit(DenseOp(h, r_zr)), 2)
        z = cell.act(0, cell.emit(AddOp(x_z, rec_z)))
        r = cell.act(0, cell.emit(AddOp(x_r, rec_r)))
        reset = cell.emit(DenseOp(cell.emit(MultiplyOp(r, h)), r_h))
    candidate = cell.act(1, cell.emit(AddOp(x_h, reset)))
    one_minus_z = cell.emit(SubtractOp(_const(cell.node, 1.0, z), z))
    kept = cell.emit(MultiplyOp(z, h))
    return [cell.emit(AddOp(cell.emit(MultiplyOp(one_minus_z, candidate)), kept))]


def _lstm_cell(cell: _Direction, x_t: SSAValue, state: State) -> State:
    """``i = f(x_i + H·R_iᵀ + p_i ⊙ C)``, ``f = f(x_f + H·R_fᵀ + p_f ⊙ C)``
    (with ``input_forget``: ``1 - i``), ``c = g(x_c + H·R_cᵀ)``,
    ``C' = f ⊙ C + i ⊙ c``, ``o = f(x_o + H·R_oᵀ + p_o ⊙ C')``,
    ``H' = o ⊙ h(C')`` (gates in ONNX's order ``i, o, f, c``)."""
    h, c = state
    pre_i, pre_o, pre_f, pre_c = cell.gates(x_t, h, 4)
    if cell.peepholes:
        p_i, p_o, p_f = cell.peepholes
        pre_i = cell.emit(AddOp(pre_i, cell.emit(MultiplyOp(p_i, c))))
        pre_f = cell.emit(AddOp(pre_f, cell.emit(MultiplyOp(p_f, c))))
    i = cell.act(0, pre_i)
    if cell.node.attr("input_forget", 0):
        f = cell.emit(SubtractOp(_const(cell.node, 1.0, i), i))
    else:
        f = cell.act(0, pre_f)
    candidate = cell.act(1, pre_c)
    c_next = cell.emit(AddOp(cell.emit(MultiplyOp(f, c)), cell.emit(MultiplyOp(i, candidate))))
    if cell.peepholes:
        pre_o = cell.emit(AddOp(pre_o, cell.emit(MultiplyOp(p_o, c_next))))
    o = cell.act(0, pre_o)
    h_next = cell.emit(MultiplyOp(o, cell.activations[2](cell.node, c_next)))
    return [h_next, c_next]


Cell = Callable[[_Direction, SSAValue, State], State]


class _Recurrent(OnnxOpConverter):
    """The unrolling every recurrent layer shares; a subclass names its
    gate count, cell, default activations and state count (1, or 2 for
    LSTM's ``C``)."""

    GATES: int
    CELL: Cell
    DEFAULT_ACTIVATIONS: tuple[str, ...]
    STATES = 1

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[SSAValue]:
        x = node.input(0)
        if not np.issubdtype(element_dtype(x), np.floating):
            raise node.error(
                f"{node.input_label(0)} must be a float tensor, got {element_dtype(x)}"
            )
        x_shape = static_shape(x)
        if len(x_shape) != 3:
            raise node.error(f"{node.input_label(0)} must be 3-d, got {shape_str(x_shape)}")
        layout = node.attr("layout", 0)
        if layout not in (0, 1):
            raise node.unsupported_attr("layout", "it must be 0 or 1", 0)
        if layout == 1:
            x = node.emit(TransposeOp(x, axes=[1, 0, 2]))
        steps, batch, inputs = static_shape(x)
        direction = node.attr("direction", "forward")
        if direction not in ("forward", "reverse", "bidirectional"):
            raise node.unsupported_attr(
                "direction", "it must be forward, reverse or bidirectional", "forward"
            )
        directions = 2 if direction == "bidirectional" else 1
        r_shape = node.input_shape(2)
        hidden = node.attr("hidden_size", r_shape[-1] if len(r_shape) == 3 else 0)
        gh = cls.GATES * hidden
        for i, want in ((1, (directions, gh, inputs)), (2, (directions, gh, hidden))):
            if node.input_shape(i) != want:
                raise node.error(
                    f"{node.input_label(i)} must have shape {shape_str(want)} "
                    f"(directions, {cls.GATES}·hidden_size, ...), "
                    f"got {shape_str(node.input_shape(i))}"
                )
        functions = _activations(node, cls.DEFAULT_ACTIVATIONS, directions)
        clip = node.attr("clip")
        masks = cls._masks(node, steps, batch)

        ys, finals = [], []
        for d in range(directions):
            reverse = direction == "reverse" or d == 1
            y, states = cls._direction(node, x, d, directions, functions[d], clip, masks, reverse)
            ys.append(y)
            finals.append(states)

        def stack(values: Sequence[SSAValue], axis: int) -> SSAValue:
            expanded = [node.emit(ExpandDimsOp(v, axis)) for v in values]
            return expanded[0] if len(expanded) == 1 else node.emit(ConcatenateOp(expanded, axis))

        y = stack([stack(per_step, 0) for per_step in ys], 1)  # [T, D, B, H]
        outputs = [y] + [stack([f[k] for f in finals], 0) for k in range(cls.STATES)]
        if layout == 1:
            y = node.emit(TransposeOp(outputs[0], axes=[2, 0, 1, 3]))
            outputs = [y] + [node.emit(TransposeOp(s, axes=[1, 0, 2])) for s in outputs[1:]]
        return outputs

    @classmethod
    def _masks(cls, node: OnnxNode, steps: int, batch: int) -> list[SSAValue] | None:
        """Per step, ``t < sequence_lens`` as ``[B, 1]`` bools; None when every
        sequence is known to be full."""
        if not node.has_input(4):
            return None
        lens_shape = node.input_shape(4)
        if lens_shape != (batch,):
            raise node.error(
                f"{node.input_label(4)} must have shape {shape_str((batch,))}, "
                f"got {shape_str(lens_shape)}"
            )
        if node.is_constant(4) and bool(np.all(node.constant_input(4) == steps)):
            return None
        lens = node.input(4)
        masks = []
        for t in range(steps):
            inside = node.emit(LessOp(node.const(np.array(t, element_dtype(lens))), lens))
            masks.append(node.emit(ExpandDimsOp(inside, 1)))
        return masks

    @classmethod
    def _direction(
        cls,
        node: OnnxNode,
        x: SSAValue,
        d: int,
        directions: int,
        activations: list[Activation],
        clip: float | None,
        masks: list[SSAValue] | None,
        reverse: bool,
    ) -> tuple[list[SSAValue], State]:
        """Unrolls direction ``d``: its ``Y`` per step (time order, ``[B,
        H]`` each) and its final state."""
        steps, batch, inputs = static_shape(x)
        w = _slice(node, node.input(1), d, directions)  # [G·H, I]
        r = _slice(node, node.input(2), d, directions)  # [G·H, H]
        gh, hidden = static_shape(r)
        projected = node.emit(DenseOp(node.emit(ReshapeOp(x, [steps * batch, inputs])), w))
        recurrence_bias = None
        if node.has_input(3):
            wb, rb = _split(node, _slice(node, node.input(3), d, directions), 2)
            linear_before_reset = cls.GATES == 3 and node.attr("linear_before_reset", 0)
            if linear_before_reset:
                rb_zr, recurrence_bias = _split(node, rb, [2 * hidden])
                wb_zr, wb_h = _split(node, wb, [2 * hidden])
                bias = node.emit(ConcatenateOp([node.emit(AddOp(wb_zr, rb_zr)), wb_h]))
            else:
                bias = node.emit(AddOp(wb, rb))
            projected = node.emit(AddOp(projected, bias))
        elif cls.GATES == 3 and node.attr("linear_before_reset", 0):
            recurrence_bias = node.const(np.zeros(hidden, element_dtype(x)))
        per_step = _split(node, node.emit(ReshapeOp(projected, [steps, batch * gh])), steps)
        xs = [node.emit(ReshapeOp(p, [batch, gh])) for p in per_step]

        peepholes: list[SSAValue] = []
        if cls.STATES == 2 and node.has_input(7):
            peepholes = _split(node, _slice(node, node.input(7), d, directions), 3)
        cell = _Direction(node, r, recurrence_bias, peepholes, activations, clip)
        state = [
            cls._initial(node, 5 + k, d, directions, batch, hidden, x) for k in range(cls.STATES)
        ]
        ys: list[SSAValue | None] = [None] * steps
        zero = None
        for t in reversed(range(steps)) if reverse else range(steps):
            updated = cls.CELL(cell, xs[t], state)
            if masks is None:
                state, ys[t] = updated, updated[0]
                continue
            zero = zero or node.const(np.zeros((), element_dtype(x)))
            state = [node.emit(WhereOp(masks[t], u, s)) for u, s in zip(updated, state)]
            ys[t] = node.emit(WhereOp(masks[t], updated[0], zero))
        return [y for y in ys if y is not None], state

    @classmethod
    def _initial(
        cls,
        node: OnnxNode,
        i: int,
        d: int,
        directions: int,
        batch: int,
        hidden: int,
        like: SSAValue,
    ) -> SSAValue:
        """``initial_h`` (``i`` = 5) or ``initial_c`` (6) of direction ``d``,
        ``[B, H]``; zeros when absent."""
        if not node.has_input(i):
            return node.const(np.zeros((batch, hidden), element_dtype(like)))
        layout = node.attr("layout", 0)
        want = (batch, directions, hidden) if layout else (directions, batch, hidden)
        if node.input_shape(i) != want:
            raise node.error(
                f"{node.input_label(i)} must have shape {shape_str(want)}, "
                f"got {shape_str(node.input_shape(i))}"
            )
        value = node.input(i)
        if layout:
            value = node.emit(TransposeOp(value, axes=[1, 0, 2]))
        return _slice(node, value, d, directions)


def _split(node: OnnxNode, value: SSAValue, parts: int | list[int]) -> list[SSAValue]:
    """``value`` split along axis 0 (``parts`` sections, or at the indices)."""
    if parts == 1:
        return [value]
    split = SplitOp(value, parts, axis=0)
    node.emit(split)
    return list(split.results)


def _slice(node: OnnxNode, value: SSAValue, d: int, directions: int) -> SSAValue:
    """Entry ``d`` of ``value``'s first (direction) axis, without that axis."""
    shape = static_shape(value)
    piece = _split(node, value, directions)[d]
    return node.emit(ReshapeOp(piece, list(shape[1:])))


class RNN(_Recurrent):
    """``RNN``: ``H_t = f(X_t·Wᵀ + H_{t-1}·Rᵀ + Wb + Rb)``, ``f`` = Tanh by default."""

    GATES = 1
    CELL = staticmethod(_rnn_cell)
    DEFAULT_ACTIVATIONS = ("Tanh",)


class GRU(_Recurrent):
    """``GRU``: gates ``z, r, h`` (see :func:`_gru_cell`), ``f, g`` = Sigmoid, Tanh."""

    GATES = 3
    CELL = staticmethod(_gru_cell)
    DEFAULT_ACTIVATIONS = ("Sigmoid", "Tanh")


class LSTM(_Recurrent):
    """``LSTM``: gates ``i, o, f, c`` and the cell state ``C`` (see
    :func:`_lstm_cell`), ``f, g, h`` = Sigmoid, Tanh, Tanh; outputs ``Y,
    Y_h, Y_c``."""

    GATES = 4
    CELL = staticmethod(_lstm_cell)
    DEFAULT_ACTIVATIONS = ("Sigmoid", "Tanh", "Tanh")
    STATES = 2


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"RNN": RNN, "GRU": GRU, "LSTM": LSTM}
