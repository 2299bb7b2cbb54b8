"""The conformance table's support marks and the onnxruntime comparison
(``--compare-ort``): per operator full / partial / none for xtvm and for
onnxruntime, and the cases one passes and the other does not."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.backend.test.case.test_case import TestCase

from xtvm.frontend.onnx import conformance
from xtvm.frontend.onnx.conformance import CaseResult


def _r(name: str, op: str, status: str, ort: str = "") -> CaseResult:
    return CaseResult(name, op, [op], status, "" if status == "pass" else "E: x", 0.0, ort)


def test_support_marks():
    assert conformance.support(3, 3) == "full"
    assert conformance.support(1, 3) == "partial"
    assert conformance.support(0, 3) == "none"


def test_table_without_ort_has_no_ort_columns():
    table = conformance.operator_table([_r("test_a", "A", "pass"), _r("test_b", "B", "fail")])
    lines = table.splitlines()
    assert lines[0].split() == ["op", "cases", "passed", "failed", "support", "first", "error"]
    assert lines[1].split() == ["A", "1", "1", "0", "full"]
    assert lines[2].split()[:5] == ["B", "1", "0", "1", "none"]
    assert "onnxruntime" not in conformance.summary([_r("test_a", "A", "pass")])


def test_table_and_summary_with_ort():
    results = [
        _r("test_a1", "A", "pass", "pass"),
        _r("test_a2", "A", "unsupported", "pass"),
        _r("test_b1", "B", "pass", "fail"),
        _r("test_b2", "B", "pass", "unsupported"),
        _r("test_c1", "C", "fail", "error"),
    ]
    rows = {
        line.split()[0]: line.split() for line in conformance.operator_table(results).splitlines()
    }
    assert rows["op"][:7] == ["op", "cases", "passed", "failed", "support", "ort", "passed"]
    assert rows["A"][:7] == ["A", "2", "1", "1", "partial", "2", "full"]
    assert rows["B"][:7] == ["B", "2", "2", "0", "full", "0", "none"]
    assert rows["C"][:7] == ["C", "1", "0", "1", "none", "0", "none"]
    only_xtvm, only_ort = conformance.ort_differences(results)
    assert only_xtvm == ["test_b1", "test_b2"]
    assert only_ort == ["test_a2"]
    text = conformance.summary(results)
    assert "onnxruntime passed 2 of 5" in text
    assert "xtvm passes, onnxruntime does not (2): test_b1 test_b2" in text
    assert "onnxruntime passes, xtvm does not (1): test_a2" in text
    assert text.endswith("passed 3 of 5")


def _case(node: onnx.NodeProto, x: np.ndarray, y: np.ndarray, opsets: dict) -> TestCase:
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()]
    )
    return TestCase("test_x", "x", None, None, model, [([x], [y])], "node", 1e-6, 1e-7)


def test_ort_status_of_a_case():
    x = np.array([-1.0, 2.0], np.float32)
    relu = helper.make_node("Relu", ["x"], ["y"])
    assert conformance.run_ort_case(_case(relu, x, np.maximum(x, 0), {"": 17})) == ("pass", "")
    status, error = conformance.run_ort_case(_case(relu, x, x, {"": 17}))
    assert status == "fail" and "differs" in error
    unknown = helper.make_node("Frobnicate", ["x"], ["y"], domain="my.domain")
    status, error = conformance.run_ort_case(_case(unknown, x, x, {"": 17, "my.domain": 1}))
    assert status == "unsupported" and error


def test_onnxruntime_crash_is_not_xtvms(monkeypatch):
    import os
    import signal

    def fake_xtvm(case, op="", verbose=False, target=None):
        return _r(case.name, op, "pass")

    def crash_ort(case):
        if case.name == "test_x":
            os.kill(os.getpid(), signal.SIGKILL)  # as a segfault in onnxruntime would
        return "pass", ""

    monkeypatch.setattr(conformance, "run_case", fake_xtvm)
    monkeypatch.setattr(conformance, "run_ort_case", crash_ort)
    x = np.zeros(2, np.float32)
    relu = helper.make_node("Relu", ["x"], ["y"])
    first, second = _case(relu, x, x, {"": 17}), _case(relu, x, x, {"": 17})
    second.name = "test_y"
    results = conformance.run_cases([first, second], {}, compare_ort=True)
    assert [(r.name, r.status, r.ort_status) for r in results] == [
        ("test_x", "pass", "error"),
        ("test_y", "pass", "pass"),
    ]
    assert results[0].ort_error.startswith("WorkerCrash: onnxruntime ended the worker")
