"""The CI subset of the ONNX backend node tests: every case listed in
``conformance_ci_cases.txt`` (per operator, the first cases that passed
when the list was written) must still pass through xtvm's compiled code.

Regenerate the list after fixing or adding ops:
``python -m xtvm.frontend.onnx.conformance --write-ci-subset``.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from xtvm.frontend.onnx import conformance

CI_CASES = conformance.read_ci_cases()


@pytest.fixture(scope="module")
def cases() -> dict:
    everything = conformance.collect_cases()
    return {"by_name": {c.name: c for c in everything}, "ops": conformance.operators(everything)}


def test_list_is_sorted_and_unique():
    assert CI_CASES == sorted(set(CI_CASES))


@pytest.mark.parametrize("name", CI_CASES)
def test_case_passes(name: str, cases: dict):
    case = cases["by_name"].get(name)
    assert case is not None, f"'{name}' is not an onnx node test case any more"
    result = conformance.run_case(case, cases["ops"][name])
    assert result.status == "pass", result.error


# The runner itself.


def _result(name: str, op: str, status: str) -> conformance.CaseResult:
    return conformance.CaseResult(name, op, [op], status, "", 0.0)


def test_compare_outputs_like_onnx_runner():
    a = np.array([1.0, 2.0], np.float32)
    conformance.compare_outputs([a], [a + 1e-7], rtol=1e-3, atol=1e-7)
    failures = [
        ([a], [], "expected 1 output(s), got 0"),
        ([a], [a.reshape(2, 1)], "output 0 has shape (2, 1), expected (2,)"),
        ([a], [a.astype(np.float64)], "output 0 has dtype float64, expected float32"),
        ([a], [a + 1], "output 0 differs: Mismatched elements: 2 / 2 (100%)"),
    ]
    for expected, actual, message in failures:
        with pytest.raises(AssertionError) as info:
            conformance.compare_outputs(expected, actual, rtol=1e-3, atol=1e-7)
        assert str(info.value).startswith(message)


def test_operators_of_expanded_cases(cases: dict):
    ops = cases["ops"]
    assert ops["test_relu"] == "Relu"
    assert ops["test_softmax_axis_0_expanded"] == "Softmax"


def test_ci_subset_takes_first_passing_per_op():
    results = [
        _result("test_b2", "B", "pass"),
        _result("test_a1", "A", "fail"),
        _result("test_a3", "A", "pass"),
        _result("test_a2", "A", "pass"),
        _result("test_a4", "A", "pass"),
        _result("test_c", "C", "unsupported"),
    ]
    assert conformance.ci_subset(results) == ["test_a2", "test_a3", "test_b2"]
    table = conformance.operator_table(results)
    assert table.splitlines()[1].split()[:4] == ["A", "4", "3", "1"]
    assert "[unsupported] test_c" in table
    assert conformance.summary(results).endswith("passed 4 of 6")


def test_ci_subset_keeps_each_ops_first_case_per_sub_byte_type():
    results = [
        _result("test_cast_FLOAT_to_DOUBLE", "Cast", "pass"),
        _result("test_cast_FLOAT_to_INT4", "Cast", "pass"),
        _result("test_cast_FLOAT_to_UINT4", "Cast", "fail"),
        _result("test_cast_INT4_to_FLOAT", "Cast", "pass"),
        _result("test_cast_UINT4_to_FLOAT", "Cast", "pass"),
        _result("test_cast_UINT4_to_UINT8", "Cast", "pass"),
        _result("test_quantizelinear_int4", "QuantizeLinear", "pass"),
        _result("test_quantizelinear_int16", "QuantizeLinear", "pass"),
    ]
    assert conformance.ci_subset(results, per_op=1) == [
        "test_cast_FLOAT_to_DOUBLE",
        "test_cast_FLOAT_to_INT4",
        "test_cast_INT4_to_FLOAT",
        "test_cast_UINT4_to_FLOAT",
        "test_quantizelinear_int16",
        "test_quantizelinear_int4",
    ]


def _crash_on_abs(case, op="", verbose=False, target=None):
    if case.name == "test_abs":
        os.kill(os.getpid(), signal.SIGKILL)  # as a segfault would, silently
    return _result(case.name, op, "pass")


def test_crash_loses_one_case(monkeypatch: pytest.MonkeyPatch, cases: dict):
    monkeypatch.setattr(conformance, "run_case", _crash_on_abs)
    chosen = [cases["by_name"][n] for n in ("test_abs", "test_relu")]
    results = conformance.run_cases(chosen, cases["ops"])
    assert [(r.name, r.status) for r in results] == [("test_abs", "error"), ("test_relu", "pass")]
    assert results[0].error == "WorkerCrash: the worker process died (exit code -9)"


def _hang_on_abs(case, op="", verbose=False, target=None):
    if case.name == "test_abs":
        time.sleep(60)
    return _result(case.name, op, "pass")


def test_timeout_loses_one_case(monkeypatch: pytest.MonkeyPatch, cases: dict):
    monkeypatch.setattr(conformance, "run_case", _hang_on_abs)
    chosen = [cases["by_name"][n] for n in ("test_abs", "test_relu")]
    results = conformance.run_cases(chosen, cases["ops"], timeout=1.0)
    assert [(r.name, r.status) for r in results] == [("test_abs", "error"), ("test_relu", "pass")]
    assert results[0].error == "Timeout: no result after 1 s"
