"""NaN and infinities through every reduction the ONNX frontend supports.

Rows holding NaN, ``+inf``, ``-inf`` and mixes of them go through every
reduction (``Reduce*`` with axes/keepdims/noop variants, ``ArgMax``/``ArgMin``,
``Softmax``/``LogSoftmax``/``Hardmax``, ``CumSum``, ``TopK``, the variadic
``Max``/``Min``/``Mean``/``Sum`` and the pools). xtvm, both its NumPy
relay references and its compiled code, must equal onnx's
``ReferenceEvaluator``, except where ONNX's definition and the reference's
arithmetic part ways (``SPEC_NOT_REFERENCE``, and the pools: ``_pool``);
onnxruntime must agree with xtvm except where it is known to differ
(``ORT_DIFFERS``). The chosen semantics and onnxruntime's differences are
the table in docs/reliability.md.

All cases are nodes of one model, so the module is compiled once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_testing import run_ort, run_relay

from xtvm.frontend import from_onnx

nan, inf = np.nan, np.inf
ROWS = np.array(
    [
        [1, nan, 3, 2],  # one NaN
        [nan, nan, nan, nan],
        [inf, 1, 2, 3],
        [-inf, 1, 2, 3],
        [inf, -inf, 1, 2],  # inf - inf inside a sum
        [inf, inf, 1, 2],  # tied infinities
        [-inf, -inf, 1, 2],
        [nan, inf, -inf, 1],  # all three
        [1, 2, 3, 4],  # no special value
        [0, 0, -1, 0],  # a zero sum for ReduceLogSum
        [-inf, -inf, -inf, -inf],  # no finite value
        [inf, inf, inf, inf],
        [inf, -inf, inf, -inf],
        [-inf, -inf, -inf, 5],
    ],
    np.float32,
)
"""The rows reduced: along axis 1 each row alone, along axis 0 their mixes."""
OTHER = np.roll(ROWS, 1, axis=1)
"""The second operand of the variadic ops: NaN and inf meet numbers and each other."""

OPSET = 18
F, I64 = TensorProto.FLOAT, TensorProto.INT64


@dataclass
class Case:
    """One node of the model: ``op`` on ``inputs`` with ``attrs``; ``consts``
    are its constant inputs (axes, k, ...), appended after ``inputs``."""

    name: str
    op: str
    inputs: list[str] = field(default_factory=lambda: ["x"])
    consts: list[np.ndarray] = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    outputs: int = 1
    output_types: tuple[int, ...] = (F,)
    want: Callable[[], list[np.ndarray]] | None = None
    """Its outputs as ONNX specifies them, where onnx's reference cannot say
    (see _pool)."""


def _reduce_cases() -> list[Case]:
    ops = [
        "ReduceSum",
        "ReduceMean",
        "ReduceProd",
        "ReduceMax",
        "ReduceMin",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceSumSquare",
    ]
    variants: list[tuple[str, str, list[int] | None, dict]] = [
        ("row", "x", [1], {"keepdims": 1}),
        ("column", "x", [0], {"keepdims": 0}),
        ("all", "x", None, {"keepdims": 0}),
        ("last", "x", [-1], {"keepdims": 0}),
        ("axes0,2", "x3", [0, 2], {"keepdims": 1}),
        ("noop", "x", None, {"noop_with_empty_axes": 1}),
    ]
    return [
        Case(
            f"{op}-{label}",
            op,
            [source],
            [] if axes is None else [np.array(axes, np.int64)],
            attrs,
        )
        for op in ops
        for label, source, axes, attrs in variants
    ]


def _index_cases() -> list[Case]:
    cases = []
    for op in ("ArgMax", "ArgMin"):
        for label, attrs in [
            ("row", {"axis": 1}),
            ("column", {"axis": 0, "keepdims": 0}),
            ("row-last", {"axis": 1, "select_last_index": 1}),
            ("column-last", {"axis": 0, "select_last_index": 1}),
        ]:
            cases.append(Case(f"{op}-{label}", op, attrs=attrs, output_types=(I64,)))
    return cases


def _other_cases() -> list[Case]:
    cases = [
        Case(f"{op}-{label}", op, attrs={"axis": axis})
        for op in ("Softmax", "LogSoftmax", "Hardmax")
        for label, axis in [("row", -1), ("column", 0)]
    ]
    cases += [
        Case("CumSum-row", "CumSum", consts=[np.array(1, np.int64)]),
        Case("CumSum-column", "CumSum", consts=[np.array(0, np.int64)]),
        Case(
            "CumSum-row-exclusive",
            "CumSum",
            consts=[np.array(-1, np.int64)],
            attrs={"exclusive": 1},
        ),
        Case(
            "CumSum-column-exclusive-reverse",
            "CumSum",
            consts=[np.array(0, np.int64)],
            attrs={"exclusive": 1, "reverse": 1},
        ),
        Case("CumSum-row-reverse", "CumSum", consts=[np.array(1, np.int64)], attrs={"reverse": 1}),
    ]
    for label, k, attrs in [
        ("largest", 2, {}),
        ("smallest", 2, {"largest": 0}),
        ("sorted-row", 4, {}),
        ("column", 5, {"axis": 0}),
        ("column-smallest", 5, {"axis": 0, "largest": 0}),
    ]:
        topk = Case(f"TopK-{label}", "TopK", consts=[np.array([k], np.int64)], attrs=attrs)
        topk.outputs, topk.output_types = 2, (F, I64)
        cases.append(topk)
    cases += [Case(f"{op}-variadic", op, ["x", "y"]) for op in ("Max", "Min", "Mean", "Sum")]
    cases += [
        Case("GlobalMaxPool", "GlobalMaxPool", ["x4"]),
        Case("GlobalAveragePool", "GlobalAveragePool", ["x4"]),
    ]
    window = {"kernel_shape": [2, 2]}
    cases += [
        Case(op, op, ["x4"], attrs=window, want=_pool(row))
        for op, row in [
            ("MaxPool", lambda r: r.max(axis=1)),
            ("AveragePool", lambda r: r.mean(axis=1)),
            ("LpPool", lambda r: np.sqrt((r * r).sum(axis=1))),
        ]
    ]
    # the first NaN is the maximum's position, as in ArgMax
    first_max = _pool(lambda r: r.max(axis=1), lambda r: 4 * np.arange(14) + r.argmax(axis=1))
    indices = Case("MaxPool-indices", "MaxPool", ["x4"], attrs=window, want=first_max)
    indices.outputs, indices.output_types = 2, (F, I64)
    cases.append(indices)
    return cases


def _pool(*rows: Callable[[np.ndarray], np.ndarray]) -> Callable[[], list[np.ndarray]]:
    """A 2x2 window over x4's 2x2 planes: each of ``rows`` (one per output)
    applied to ROWS, as NCHW outputs. onnx's reference evaluator cannot be
    the judge here: its pools mark padding with NaN and drop every NaN of a
    window (a window of NaN only is a ValueError), so they are checked
    against the reductions they are, with NaN propagating as in
    GlobalMaxPool and ReduceMax."""

    def want() -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            outs = [np.asarray(row(ROWS)) for row in rows]
        return [
            o.astype(np.float32 if o.dtype.kind == "f" else np.int64).reshape(1, 14, 1, 1)
            for o in outs
        ]

    return want


CASES = _reduce_cases() + _index_cases() + _other_cases()


def _log_sum_exp(x: np.ndarray, axes: list[int] | None, keepdims: bool) -> np.ndarray:
    """ONNX's definition, ``log(sum(exp(x)))``, exactly (in float64, where
    ``exp`` of a float32 cannot overflow)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        axis = None if axes is None else tuple(axes)
        total = np.sum(np.exp(x.astype(np.float64)), axis=axis, keepdims=keepdims)
        return np.log(total).astype(np.float32)


SPEC_NOT_REFERENCE: dict[str, Callable[[Case, dict[str, np.ndarray]], np.ndarray]] = {
    op: lambda case, feeds: _log_sum_exp(
        feeds[case.inputs[0]],
        []
        if case.attrs.get("noop_with_empty_axes")
        else [int(a) for a in case.consts[0]]
        if case.consts
        else None,
        bool(case.attrs.get("keepdims", 1)),
    )
    for op in ("ReduceLogSumExp",)
}
"""Ops whose wanted result is ONNX's definition rather than the reference
evaluator's: the reference shifts by the max of the finite values, which is
``-inf`` in a row without one, and ``±inf - (-inf)`` makes NaN where the
definition gives ``-inf`` (all ``-inf``) or ``inf``; with
``noop_with_empty_axes`` it is ``log(exp(x))``, ``x`` itself."""

ORT_DIFFERS = {
    "ReduceMax": "a NaN counts only as a row's first element (x > max is false for NaN)",
    "ReduceMin": "a NaN counts only as a row's first element",
    "ArgMax": "a NaN counts only as a row's first element",
    "ArgMin": "a NaN counts only as a row's first element",
    "Hardmax": "a NaN counts only as a row's first element",
    "ReduceLogSumExp": "over every axis, NaN among infinities gives inf",
    "GlobalMaxPool": "skips NaN; a plane of -inf gives the lowest finite float",
    "MaxPool": "skips NaN; a window of -inf gives the lowest finite float",
}
"""Where onnxruntime (1.x) departs from ONNX on these rows: onnxruntime is
not asserted for these ops (it is compared for the record, not obeyed);
everywhere else it must agree."""


def _model(cases: list[Case]) -> onnx.ModelProto:
    nodes = [
        helper.make_node("Reshape", ["x", "shape3"], ["x3"]),
        helper.make_node("Reshape", ["x", "shape4"], ["x4"]),
    ]
    initializers = [
        numpy_helper.from_array(np.array([2, 7, 4], np.int64), "shape3"),
        numpy_helper.from_array(np.array([1, 14, 2, 2], np.int64), "shape4"),
    ]
    outputs = []
    for k, case in enumerate(cases):
        names = [f"c{k}_{j}" for j in range(len(case.consts))]
        initializers += [numpy_helper.from_array(c, n) for c, n in zip(case.consts, names)]
        outs = [f"{case.name}:{j}" for j in range(case.outputs)]
        nodes.append(helper.make_node(case.op, case.inputs + names, outs, **case.attrs))
        outputs += [
            helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, case.output_types)
        ]
    graph = helper.make_graph(
        nodes,
        "reductions_with_nan",
        [helper.make_tensor_value_info(n, F, list(ROWS.shape)) for n in ("x", "y")],
        outputs,
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)  # the outputs' shapes
    onnx.checker.check_model(model)
    return model


@pytest.fixture(scope="module")
def results() -> dict[str, list[np.ndarray]]:
    """Every output name → [onnx's reference (None for a case with its own
    ``want``), relay references, compiled, onnxruntime]."""
    model = _model(CASES)
    judged = _model([c for c in CASES if c.want is None])
    feeds = {"x": ROWS, "y": OTHER}
    with np.errstate(all="ignore"):
        reference = dict(
            zip([o.name for o in judged.graph.output], ReferenceEvaluator(judged).run(None, feeds))
        )
        module, params = from_onnx(model)
        relay = run_relay(module, {**feeds, **params})
    compiled = run_compiled(model, feeds)
    ort = run_ort(model, feeds)
    names = [o.name for o in model.graph.output]
    return {n: [reference.get(n), *r] for n, *r in zip(names, relay, compiled, ort)}


VALUES = {"x": ROWS, "y": OTHER, "x3": ROWS.reshape(2, 7, 4), "x4": ROWS.reshape(1, 14, 2, 2)}
"""The value of every tensor a case reads (its graph inputs and reshapes)."""


def _want(case: Case, output: int, reference: np.ndarray | None) -> np.ndarray:
    if case.want is not None:
        return case.want()[output]
    spec = SPEC_NOT_REFERENCE.get(case.op)
    if spec is None:
        return reference
    return spec(case, VALUES)


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind != "f":
        return bool((got == want).all())
    return bool(
        np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
        and (np.isinf(got) == np.isinf(want)).all()
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_xtvm_follows_onnx(case: Case, results) -> None:
    for j in range(case.outputs):
        reference, relay, compiled, ort = results[f"{case.name}:{j}"]
        want = _want(case, j, reference)
        assert _same(relay, want), f"relay references: {relay.ravel()} instead of {want.ravel()}"
        assert _same(compiled, want), f"compiled: {compiled.ravel()} instead of {want.ravel()}"
        if case.op not in ORT_DIFFERS:
            assert _same(ort, want), f"onnxruntime: {ort.ravel()} vs {want.ravel()}"
        if case.output_types[j] == I64:  # an index inside its axis (the tensor for pools)
            default_axis = {"TopK": -1, "ArgMax": 0, "ArgMin": 0}.get(case.op)
            axis = case.attrs.get("axis", default_axis)
            size = ROWS.size if axis is None else ROWS.shape[axis]
            assert ((compiled >= 0) & (compiled < size)).all()


def test_reference_departs_from_the_definition_only_without_a_finite_value(results) -> None:
    # The one place the reference is not what ONNX defines: ReduceLogSumExp
    # of a row with no finite value (see SPEC_NOT_REFERENCE).
    case = next(c for c in CASES if c.name == "ReduceLogSumExp-row")
    reference = results[f"{case.name}:0"][0].ravel()
    want = _want(case, 0, reference).ravel()
    differ = ~np.isclose(reference, want, equal_nan=True)
    no_finite = ~np.isfinite(ROWS).any(axis=1)
    assert differ.any() and (differ <= no_finite).all()
    assert np.isnan(reference[differ]).all()
