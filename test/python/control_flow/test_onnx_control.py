"""ONNX If, Loop and Scan import to relay.if / relay.while: the imported
module, evaluated with the NumPy references, equals onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from control_testing import BOOL, FLOAT, INT64, check, const, info, model
from onnx import helper

from xtvm.frontend import OnnxImportError, from_onnx

RNG = np.random.default_rng(0)


def if_model(then_op: str = "Add", outputs: int = 2):
    """``If(c)``: then ``x + y`` (reading outer values) and ``x * 2``,
    else ``x - y`` and ``relu(x)``."""
    then_graph = helper.make_graph(
        [
            helper.make_node(then_op, ["x", "y"], ["t0"]),
            const("two", np.float32(2)),
            helper.make_node("Mul", ["x", "two"], ["t1"]),
        ],
        "then",
        [],
        [info("t0", FLOAT, [3, 4]), info("t1", FLOAT, [3, 4])][:outputs],
    )
    else_graph = helper.make_graph(
        [helper.make_node("Sub", ["x", "y"], ["e0"]), helper.make_node("Relu", ["x"], ["e1"])],
        "else",
        [],
        [info("e0", FLOAT, [3, 4]), info("e1", FLOAT, [3, 4])][:outputs],
    )
    node = helper.make_node(
        "If", ["c"], ["r0", "r1"][:outputs], then_branch=then_graph, else_branch=else_graph
    )
    return model(
        [node],
        [info("c", BOOL, []), info("x", FLOAT, [3, 4]), info("y", FLOAT, [3, 4])],
        [info("r0", FLOAT, [3, 4]), info("r1", FLOAT, [3, 4])][:outputs],
    )


@pytest.mark.parametrize("cond", [True, False])
def test_if_at_run_time(cond):
    feeds = {
        "c": np.array(cond),
        "x": RNG.standard_normal((3, 4)).astype(np.float32),
        "y": RNG.standard_normal((3, 4)).astype(np.float32),
    }
    module = check(if_model(), feeds)
    assert "relay.if" in str(module)


def test_if_with_constant_condition_imports_one_branch():
    proto = if_model()
    proto.graph.node.insert(0, const("c", np.array(False)))
    del proto.graph.input[0]
    feeds = {
        "x": RNG.standard_normal((3, 4)).astype(np.float32),
        "y": RNG.standard_normal((3, 4)).astype(np.float32),
    }
    module = check(proto, feeds)
    assert "relay.if" not in str(module) and "relay.subtract" in str(module)


def test_if_branch_error_names_the_subgraph():
    proto = if_model(then_op="MatMul")  # [3, 4] x [3, 4]: no product
    with pytest.raises(OnnxImportError, match=r"node #0 \(If, opset 16\), subgraph 'then': "):
        from_onnx(proto)


def counting_loop(with_scan: bool, body_cond: bool):
    """``Loop(M, cond, x)``: ``x = x * 1.5 + i``; the body's condition is
    ``sum(x) < 50`` when ``body_cond``, else passed through; with
    ``with_scan`` each iteration's ``x`` is a scan output."""
    nodes = [
        const("k", np.float32(1.5)),
        helper.make_node("Mul", ["x_in", "k"], ["scaled"]),
        helper.make_node("Cast", ["i"], ["i_f"], to=FLOAT),
        helper.make_node("Add", ["scaled", "i_f"], ["x_out"]),
    ]
    if body_cond:
        nodes += [
            helper.make_node("ReduceSum", ["x_out"], ["total"], keepdims=0),
            const("limit", np.float32(50)),
            helper.make_node("Less", ["total", "limit"], ["c_out"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["c_in"], ["c_out"]))
    outputs = [info("c_out", BOOL, []), info("x_out", FLOAT, [2])]
    if with_scan:
        nodes.append(helper.make_node("Identity", ["x_out"], ["scan"]))
        outputs.append(info("scan", FLOAT, [2]))
    body = helper.make_graph(
        nodes,
        "body",
        [info("i", INT64, []), info("c_in", BOOL, []), info("x_in", FLOAT, [2])],
        outputs,
    )
    results = ["x_final", "xs"] if with_scan else ["x_final"]
    node = helper.make_node("Loop", ["m", "c", "x"], results, body=body)
    graph_outputs = [info("x_final", FLOAT, [2])]
    if with_scan:
        graph_outputs.append(info("xs", FLOAT, ["n", 2]))
    return model(
        [node],
        [info("m", INT64, []), info("c", BOOL, []), info("x", FLOAT, [2])],
        graph_outputs,
    )


@pytest.mark.parametrize("trips", [0, 1, 6, 20])
@pytest.mark.parametrize("cond", [True, False])
def test_loop_with_run_time_trip_count_and_condition(trips, cond):
    """M, the initial condition and the body's condition are all run-time
    values: the loop stops at M or when the sum reaches 50."""
    feeds = {
        "m": np.array(trips, np.int64),
        "c": np.array(cond),
        "x": np.array([1.0, 2.0], np.float32),
    }
    module = check(counting_loop(with_scan=False, body_cond=True), feeds)
    assert "relay.while" in str(module)


@pytest.mark.parametrize("trips", [0, 4])
def test_loop_scan_outputs_with_a_static_trip_count(trips):
    feeds = {
        "m": np.array(trips, np.int64),
        "c": np.array(True),
        "x": np.array([1.0, 2.0], np.float32),
    }
    values = {"m": feeds["m"], "c": feeds["c"]}  # the backend specializes on these
    check(counting_loop(with_scan=True, body_cond=False), feeds, input_values=values)


def test_loop_scan_outputs_of_a_data_dependent_loop_are_refused():
    feeds = {"m": np.array(4, np.int64), "c": np.array(True)}
    with pytest.raises(OnnxImportError, match="body computes its condition have a run-time length"):
        from_onnx(counting_loop(with_scan=True, body_cond=True), input_values=feeds)


def growing_loop(trip_count: bool):
    """``Loop``: ``x = concat(x, x)`` while ``sum(x) < 100`` (and, with
    ``trip_count``, at most M times): a carried value whose size changes."""
    body = helper.make_graph(
        [
            helper.make_node("Concat", ["x_in", "x_in"], ["x_out"], axis=0),
            helper.make_node("ReduceSum", ["x_out"], ["total"], keepdims=0),
            const("limit", np.float32(100)),
            helper.make_node("Less", ["total", "limit"], ["c_out"]),
        ],
        "body",
        [info("i", INT64, []), info("c_in", BOOL, []), info("x_in", FLOAT, [2])],
        [info("c_out", BOOL, []), info("x_out", FLOAT, ["n"])],
    )
    inputs = [info("c", BOOL, []), info("x", FLOAT, [2])]
    if trip_count:
        inputs.insert(0, info("m", INT64, []))
    loop = helper.make_node("Loop", ["m" if trip_count else "", "c", "x"], ["y"], body=body)
    return model([loop], inputs, [info("y", FLOAT, ["n"])])


def test_loop_carried_value_changing_shape():
    """The body's condition is a run-time value, so the loop cannot be
    unrolled: it is a relay.while whose carried value is ?xf32 (the VM's
    dynamic shapes), with or without a trip count."""
    for trip_count, extra in ((False, {}), (True, {"m": np.array(2, np.int64)})):
        proto = growing_loop(trip_count)
        feeds = {**extra, "c": np.array(True), "x": np.array([1.0, 2.0], np.float32)}
        module = check(proto, feeds, input_values=extra)  # (the backend specializes on M)
        assert "relay.while" in str(module) and "tensor<?xf32>" in str(module)


def test_if_inside_loop():
    """A loop body holding an If on the iteration number's parity."""
    then_graph = helper.make_graph(
        [helper.make_node("Add", ["x_in", "x_in"], ["a"])], "even", [], [info("a", FLOAT, [3])]
    )
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["x_in"], ["b"])], "odd", [], [info("b", FLOAT, [3])]
    )
    body = helper.make_graph(
        [
            const("two", np.int64(2)),
            helper.make_node("Mod", ["i", "two"], ["parity"]),
            const("zero", np.int64(0)),
            helper.make_node("Equal", ["parity", "zero"], ["even"]),
            helper.make_node(
                "If", ["even"], ["x_out"], then_branch=then_graph, else_branch=else_graph
            ),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
        ],
        "body",
        [info("i", INT64, []), info("c_in", BOOL, []), info("x_in", FLOAT, [3])],
        [info("c_out", BOOL, []), info("x_out", FLOAT, [3])],
    )
    proto = model(
        [helper.make_node("Loop", ["m", "", "x"], ["y"], body=body)],
        [info("m", INT64, []), info("x", FLOAT, [3])],
        [info("y", FLOAT, [3])],
    )
    check(proto, {"m": np.array(5, np.int64), "x": np.array([1.0, -2.0, 3.0], np.float32)})


def scan_model(directions, out_axes, out_directions, opset=16):
    """Two states (a running sum and product) over two scan inputs; two scan
    outputs (the sum, and the product of the second input)."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "a"], ["s_out"]),
            helper.make_node("Mul", ["p_in", "b"], ["p_out"]),
            helper.make_node("Identity", ["s_out"], ["y0"]),
            helper.make_node("Mul", ["b", "p_out"], ["y1"]),
        ],
        "body",
        [info(n, FLOAT, [2]) for n in ("s_in", "p_in", "a", "b")],
        [info(n, FLOAT, [2]) for n in ("s_out", "p_out", "y0", "y1")],
    )
    node = helper.make_node(
        "Scan",
        ["s", "p", "xa", "xb"],
        ["s_final", "p_final", "ys0", "ys1"],
        body=body,
        num_scan_inputs=2,
        scan_input_axes=[0, 1],
        scan_input_directions=directions,
        scan_output_axes=out_axes,
        scan_output_directions=out_directions,
    )
    return model(
        [node],
        [
            info("s", FLOAT, [2]),
            info("p", FLOAT, [2]),
            info("xa", FLOAT, [4, 2]),
            info("xb", FLOAT, [2, 4]),
        ],
        [info(n, FLOAT, []) for n in ["s_final", "p_final", "ys0", "ys1"]],
        opset,
    )


@pytest.mark.parametrize("directions", [[0, 0], [1, 0], [0, 1]])
@pytest.mark.parametrize("out_axes,out_directions", [([0, 0], [0, 0]), ([1, -1], [1, 0])])
def test_scan(directions, out_axes, out_directions):
    feeds = {
        "s": np.zeros(2, np.float32),
        "p": np.ones(2, np.float32),
        "xa": RNG.standard_normal((4, 2)).astype(np.float32),
        "xb": RNG.standard_normal((2, 4)).astype(np.float32),
    }
    check(scan_model(directions, out_axes, out_directions), feeds)


def test_scan_opset_8_batches():
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "a"], ["s_out"]),
            helper.make_node("Identity", ["s_out"], ["y"]),
        ],
        "body",
        [info("s_in", FLOAT, [2]), info("a", FLOAT, [2])],
        [info("s_out", FLOAT, [2]), info("y", FLOAT, [2])],
    )
    node = helper.make_node(
        "Scan", ["", "s", "x"], ["s_final", "ys"], body=body, num_scan_inputs=1, directions=[1]
    )
    proto = model(
        [node],
        [info("s", FLOAT, [3, 2]), info("x", FLOAT, [3, 5, 2])],
        [info("s_final", FLOAT, [3, 2]), info("ys", FLOAT, [3, 5, 2])],
        opset=8,
    )
    feeds = {
        "s": RNG.standard_normal((3, 2)).astype(np.float32),
        "x": RNG.standard_normal((3, 5, 2)).astype(np.float32),
    }
    check(proto, feeds)


def test_loop_unrolled_when_its_body_needs_static_bounds():
    """``Slice(x, i, i + 1)`` has run-time bounds in a relay.while; with a
    trip count known at compile time the loop is unrolled instead and the
    carried sequence may grow."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c_in"], ["c_out"]),
            const("one", np.array([1], np.int64)),
            helper.make_node("Unsqueeze", ["i", "zero_axis"], ["start"]),
            helper.make_node("Add", ["start", "one"], ["end"]),
            helper.make_node("Slice", ["x", "start", "end"], ["row"]),
            helper.make_node("SequenceInsert", ["s_in", "row"], ["s_out"]),
            helper.make_node("Identity", ["row"], ["scan"]),
        ],
        "body",
        [
            info("i", INT64, []),
            info("c_in", BOOL, []),
            helper.make_tensor_sequence_value_info("s_in", FLOAT, None),
        ],
        [
            info("c_out", BOOL, []),
            helper.make_tensor_sequence_value_info("s_out", FLOAT, None),
            info("scan", FLOAT, [1, 3]),
        ],
    )
    nodes = [
        const("zero_axis", np.array([0], np.int64)),
        helper.make_node("SequenceEmpty", [], ["s0"], dtype=FLOAT),
        helper.make_node("Loop", ["m", "", "s0"], ["s", "rows"], body=body),
        helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0),
    ]
    proto = model(
        nodes,
        [info("m", INT64, []), info("x", FLOAT, [4, 3])],
        [info("y", FLOAT, [3, 3]), info("rows", FLOAT, [3, 1, 3])],
    )
    feeds = {"m": np.array(3, np.int64), "x": RNG.standard_normal((4, 3)).astype(np.float32)}
    module = check(proto, feeds, input_values={"m": feeds["m"]})
    assert "relay.while" not in str(module)
    with pytest.raises(OnnxImportError, match="must be known at compile time"):
        from_onnx(proto)  # without M's value: the backend specializes on it
