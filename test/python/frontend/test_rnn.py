"""The recurrent layers RNN, GRU and LSTM (unrolled into relay ops) against
onnxruntime: every attribute variant evaluated with the NumPy references,
a few compiled and run by the graph executor."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model, randn
from onnx.reference import ReferenceEvaluator
from onnx_testing import arg_names, init, import_error, run_ort, run_relay

from xtvm.frontend import from_onnx

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
SEQ, BATCH, INPUT, HIDDEN = 4, 3, 5, 6


def recurrent_model(
    op: str,
    directions: int = 1,
    layout: int = 0,
    bias: bool = True,
    initial: bool = False,
    lens: np.ndarray | None = None,
    peepholes: bool = False,
    outputs: tuple[str, ...] = ("y", "y_h"),
    dtype=np.float32,
    reference: bool = True,
    **attrs,
):
    """A one-node model of ``op``, its feeds (every input a graph input) and
    onnxruntime's outputs. onnxruntime refuses ``layout = 1``: its outputs
    are those of the ``layout = 0`` model on transposed inputs, transposed."""
    g = GATES[op]
    state_shape = (directions, BATCH, HIDDEN)
    feeds = {
        "x": randn(SEQ, BATCH, INPUT, dtype=dtype),
        "w": randn(directions, g * HIDDEN, INPUT, dtype=dtype),
        "r": randn(directions, g * HIDDEN, HIDDEN, dtype=dtype),
    }
    inputs = ["x", "w", "r", "", "", "", "", ""]
    if bias:
        feeds["b"] = randn(directions, 2 * g * HIDDEN, dtype=dtype)
        inputs[3] = "b"
    if lens is not None:
        feeds["lens"] = lens.astype(np.int32)
        inputs[4] = "lens"
    if initial:
        feeds["h0"] = randn(*state_shape, dtype=dtype)
        inputs[5] = "h0"
        if op == "LSTM":
            feeds["c0"] = randn(*state_shape, dtype=dtype)
            inputs[6] = "c0"
    if peepholes:
        feeds["p"] = randn(directions, 3 * HIDDEN, dtype=dtype)
        inputs[7] = "p"
    while inputs[-1] == "":
        inputs.pop()
    if directions == 2:
        attrs["direction"] = "bidirectional"
    model = node_model(op, inputs, feeds, outputs=outputs, opset=14, hidden_size=HIDDEN, **attrs)
    expected = run_ort(model, feeds) if reference else []
    if layout:
        batch_major = {"x": (1, 0, 2), "h0": (1, 0, 2), "c0": (1, 0, 2)}
        feeds = {k: v.transpose(batch_major.get(k, range(v.ndim))) for k, v in feeds.items()}
        model = node_model(
            op, inputs, feeds, outputs=outputs, opset=14, hidden_size=HIDDEN, layout=1, **attrs
        )
        expected = [e.transpose((2, 0, 1, 3) if e.ndim == 4 else (1, 0, 2)) for e in expected]
    return model, feeds, expected


def check_relay(model, feeds, expected, rtol=1e-4, atol=1e-5):
    """The imported relay module, evaluated with the NumPy references, equals onnxruntime."""
    module, params = from_onnx(model)
    module.verify()
    got = run_relay(module, {**feeds, **params})
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return module


def check_compiled(model, feeds, expected, rtol=1e-4, atol=1e-5):
    got = run_compiled(model, feeds)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_directions(op, direction):
    directions = 2 if direction == "bidirectional" else 1
    attrs = {"direction": direction} if direction == "reverse" else {}
    outputs = ("y", "y_h", "y_c") if op == "LSTM" else ("y", "y_h")
    model, feeds, expected = recurrent_model(op, directions, initial=True, outputs=outputs, **attrs)
    check_relay(model, feeds, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_layout_1_with_initial_states(op):
    outputs = ("y", "y_h", "y_c") if op == "LSTM" else ("y", "y_h")
    model, feeds, expected = recurrent_model(op, 2, layout=1, initial=True, outputs=outputs)
    check_relay(model, feeds, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("directions", [1, 2])
def test_sequence_lens_at_run_time(op, directions):
    """Shorter sequences keep their state past their end and give Y = 0
    there (a reverse direction starts at each sequence's own end)."""
    lens = np.array([SEQ, 1, 3])
    model, feeds, expected = recurrent_model(op, directions, initial=True, lens=lens)
    module = check_relay(model, feeds, expected)
    assert "lens" in arg_names(module)  # masks at run time, no specialization


def test_full_constant_sequence_lens_needs_no_masks():
    model, feeds, expected = recurrent_model("GRU", lens=np.full(BATCH, SEQ))
    lens = feeds.pop("lens")
    (position,) = [i for i, v in enumerate(model.graph.input) if v.name == "lens"]
    model.graph.input.pop(position)
    model.graph.initializer.append(init("lens", lens))
    module = check_relay(model, feeds, expected)
    assert "relay.where" not in str(module)


@pytest.mark.parametrize("linear_before_reset", [0, 1])
@pytest.mark.parametrize("bias", [False, True])
def test_gru_linear_before_reset(linear_before_reset, bias):
    model, feeds, expected = recurrent_model(
        "GRU", 2, bias=bias, initial=True, linear_before_reset=linear_before_reset
    )
    check_relay(model, feeds, expected)


@pytest.mark.parametrize("input_forget", [0, 1])
def test_lstm_peepholes_and_input_forget(input_forget):
    model, feeds, expected = recurrent_model(
        "LSTM", 2, initial=True, peepholes=True, input_forget=input_forget,
        outputs=("y", "y_h", "y_c"),
    )
    check_relay(model, feeds, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_clip(op):
    model, feeds, expected = recurrent_model(op, initial=True, clip=0.5)
    check_relay(model, feeds, expected)


ACTIVATION_CASES = [
    # (activation, alpha, beta) — alpha/beta None: the function takes none
    ("Relu", None, None),
    ("Tanh", None, None),
    ("Sigmoid", None, None),
    ("Affine", 0.5, 0.25),
    ("LeakyRelu", 0.3, None),
    ("ThresholdedRelu", 0.2, None),
    ("ScaledTanh", 0.7, 1.3),
    ("HardSigmoid", 0.3, 0.4),
    ("Elu", 0.8, None),
    ("Softsign", None, None),
    ("Softplus", None, None),
]


@pytest.mark.parametrize("name,alpha,beta", ACTIVATION_CASES)
def test_rnn_activations(name, alpha, beta):
    """Each activation with its alpha/beta; the reverse direction's function
    (Tanh) takes none, so the lists hold only the first one's."""
    attrs = {"activations": [name, "Tanh"]}
    if alpha is not None:
        attrs["activation_alpha"] = [alpha]
    if beta is not None:
        attrs["activation_beta"] = [beta]
    model, feeds, expected = recurrent_model("RNN", 2, initial=True, **attrs)
    check_relay(model, feeds, expected)


def test_alphas_are_consumed_by_the_functions_that_take_them():
    """LSTM f, g, h = HardSigmoid, Tanh, LeakyRelu: alphas [0.3, 0.1] go to
    HardSigmoid and LeakyRelu (Tanh takes none), betas [0.6] to HardSigmoid."""
    attrs = {
        "activations": ["HardSigmoid", "Tanh", "LeakyRelu"],
        "activation_alpha": [0.3, 0.1],
        "activation_beta": [0.6],
    }
    model, feeds, expected = recurrent_model("LSTM", initial=True, **attrs)
    check_relay(model, feeds, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_float64(op):
    """Against onnx's reference evaluator (onnxruntime has no float64 kernels)."""
    model, feeds, _ = recurrent_model(op, initial=True, dtype=np.float64, reference=False)
    expected = ReferenceEvaluator(model).run(None, feeds)
    check_relay(model, feeds, expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_compiled(op):
    """Compiled and run by the graph executor: bidirectional, batch-major,
    run-time sequence lengths, initial states."""
    outputs = ("y", "y_h", "y_c") if op == "LSTM" else ("y", "y_h")
    model, feeds, expected = recurrent_model(
        op, 2, layout=1, initial=True, lens=np.array([SEQ, 2, 1]), outputs=outputs,
        **({"linear_before_reset": 1} if op == "GRU" else {}),
    )
    check_compiled(model, feeds, expected)


def test_errors():
    model, _, _ = recurrent_model("LSTM", reference=False, activations=["Sigmoid", "Tanh"])
    assert "attribute 'activations' must name 3 functions (3 per direction), got 2" in (
        import_error(model)
    )
    model, _, _ = recurrent_model("RNN", reference=False, activations=["Swish"])
    assert "attribute 'activations' = ['Swish'] is not supported: 'Swish' is not one of" in (
        import_error(model)
    )
    model, _, _ = recurrent_model("GRU", reference=False)
    model.graph.node[0].attribute[0].i = HIDDEN + 1  # hidden_size no longer fits W
    assert "input 'W' ('w') must have shape 1x21x5" in import_error(model)
