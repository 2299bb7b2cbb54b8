"""The fuzzers' own machinery: RUN-line flags, mutations, line reduction,
graph reduction and the worker's crash and hang reports."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import onnx
import pytest

from xtvm.testing.fuzz import ir
from xtvm.testing.fuzz.onnx_graphs import compare, reduce_graph
from xtvm.testing.fuzz.onnx_ops import OPS, GraphBuilder, Skip, random_graph
from xtvm.testing.fuzz.report import traceback_signature
from xtvm.testing.fuzz.worker import Worker


def test_run_flags_keep_the_pipeline_and_diagnostic_flags() -> None:
    assert ir.run_flags("// RUN: xtvm-opt %s -p 'a{x=1},b' | filecheck %s") == ("-p", "a{x=1},b")
    assert ir.run_flags("// RUN: not xtvm-opt %s --split-input-file 2>&1 | filecheck %s") == (
        "--split-input-file",
    )
    assert ir.run_flags("// RUN: xtvm-opt --list-passes | filecheck %s") is None


def test_the_corpus_is_the_lit_tree() -> None:
    corpus = ir.load_corpus()
    assert len(corpus) > 50
    assert any("--verify-diagnostics" in lit.flags for lit in corpus)


def test_every_mutation_changes_a_lit_file() -> None:
    text = (ir.REPO / "test/lit/passes/relay/relay-fold-constant.mlir").read_bytes()
    for name, mutation in ir.MUTATIONS.items():
        changed = [mutation(random.Random(seed), text) != text for seed in range(5)]
        assert any(changed), name


def test_reduce_lines_keeps_the_failure() -> None:
    lines = [b"a", b"b", b"BAD", b"c", b"d", b"e", b"WORSE"]
    small = ir.reduce_lines(lines, lambda ls: b"BAD" in ls and b"WORSE" in ls, budget=100)
    assert small == [b"BAD", b"WORSE"]


def test_traceback_signature_names_the_exception_and_the_xtvm_frame() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/w/xtvm/ir/parse.py", line 3, in parse_operation\n'
        '  File "/v/site-packages/xdsl/parser/base.py", line 9, in parse_dense\n'
        "MemoryError\n"
    )
    assert (
        traceback_signature(text)
        == "MemoryError at ir/parse.py:parse_operation (in xdsl/parser/base.py:parse_dense)"
    )


def test_random_graphs_are_valid_and_seeded() -> None:
    for seed in range(20):
        model, feeds, drawn = random_graph(seed)
        onnx.checker.check_model(model, full_check=True)
        assert drawn and set(feeds) == {i.name for i in model.graph.input}
        again, _, _ = random_graph(seed)
        assert again.SerializeToString() == model.SerializeToString()


@pytest.mark.parametrize("op", ["GatherElements", "GatherND", "ScatterElements", "ScatterND"])
def test_index_drawing_generators_skip_zero_sized_tensors(op: str) -> None:
    """They draw positions along every axis: a tensor with an empty axis is
    no candidate (seed 115 of the fast subset drew ScatterElements on one
    and the generator died with randrange's ValueError)."""
    for seed in range(10):
        b = GraphBuilder(random.Random(seed), 18)
        b.add_input([3, 0, 2])
        with pytest.raises(Skip):
            OPS[op](b)


def test_compare_tolerates_rounding_not_errors() -> None:
    want = np.array([1.0, 1000.0, np.nan], np.float32)
    assert compare(want * np.float32(1 + 1e-6), want) is None
    assert compare(want + np.float32(0.5), want) is not None
    assert compare(want.astype(np.float64), want) is not None


def test_reduce_graph_finds_the_failing_node() -> None:
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Neg", ["a"], ["b"]),
        helper.make_node("Exp", ["b"], ["c"]),
        helper.make_node("Abs", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": np.array([1.0, -2.0, 3.0], np.float32)}
    small, small_feeds = reduce_graph(
        model, feeds, lambda m, f: any(n.op_type == "Exp" for n in m.graph.node)
    )
    assert [n.op_type for n in small.graph.node] == ["Exp"]
    assert set(small_feeds) == {"b"}


def test_the_worker_reports_crashes_and_hangs(tmp_path: Path) -> None:
    module = tmp_path / "fuzz_victim.py"
    module.write_text(
        "import os, signal, time\n"
        "def handle(task):\n"
        "    if task['do'] == 'crash': os.kill(os.getpid(), signal.SIGSEGV)\n"
        "    if task['do'] == 'hang': time.sleep(60)\n"
        "    if task['do'] == 'slow' and 'time_scale' not in task: time.sleep(60)\n"
        "    if task['do'] == 'raise': raise KeyError('x')\n"
        "    return {'status': 'ok'}\n"
    )
    import os

    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = f"{tmp_path}:{old}" if old else str(tmp_path)
    try:
        with Worker("fuzz_victim", timeout=1) as worker:
            assert worker.call({"do": "ok"}) == {"status": "ok"}
            crash = worker.call({"do": "crash"})
            assert crash["status"] == "crash" and crash["returncode"] == -11
            hang = worker.call({"do": "hang"})  # tried twice: 1 s, then 3 s
            assert hang["status"] == "hang" and "tried twice" in hang["detail"], hang
            # a case slower than the timeout (a loaded machine) gets a second,
            # longer try with time_scale 3 for its own timeouts: not a hang
            assert worker.call({"do": "slow"}) == {"status": "ok"}
            raised = worker.call({"do": "raise"})
            assert raised["status"] == "traceback" and "KeyError" in raised["traceback"]
            assert worker.call({"do": "ok"}) == {"status": "ok"}
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
