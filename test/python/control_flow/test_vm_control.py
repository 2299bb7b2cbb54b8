"""ONNX If, Loop and Scan compiled for the VM (relay.if/relay.while →
fused kernels inside the bodies → allocations per region → vm.if/vm.goto
blocks) and run by the VirtualMachine: equal to onnxruntime. One
executable serves every trip count and condition."""

from __future__ import annotations

import numpy as np
import pytest
from control_testing import run_ort
from test_onnx_control import counting_loop, if_model, scan_model
from test_onnx_sequence import feeds3, if_sequence_model

import xtvm
from xtvm.frontend import from_onnx
from xtvm.runtime.vm import VirtualMachine


def compile_vm(proto, **options) -> VirtualMachine:
    module, params = from_onnx(proto, freeze_params=True, **options)
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(module, executor="vm")
    return VirtualMachine(exe, xtvm.cpu(0))


def run(vm: VirtualMachine, feeds) -> list[np.ndarray]:
    out = vm.invoke("main", *feeds.values())
    return [o.numpy() for o in (out if isinstance(out, list | tuple) else [out])]


def compare(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_if_both_branches():
    proto = if_model()
    vm = compile_vm(proto)
    rng = np.random.default_rng(1)
    for cond in (True, False, True):
        feeds = {
            "c": np.array(cond),
            "x": rng.standard_normal((3, 4)).astype(np.float32),
            "y": rng.standard_normal((3, 4)).astype(np.float32),
        }
        compare(run(vm, feeds), run_ort(proto, feeds))


def test_loop_with_run_time_trip_count():
    proto = counting_loop(with_scan=False, body_cond=True)
    vm = compile_vm(proto)
    for trips, cond in ((0, True), (1, True), (3, True), (50, True), (5, False)):
        feeds = {
            "m": np.array(trips, np.int64),
            "c": np.array(cond),
            "x": np.array([1.0, 2.0], np.float32),
        }
        compare(run(vm, feeds), run_ort(proto, feeds))


def test_loop_scan_outputs():
    proto = counting_loop(with_scan=True, body_cond=False)
    feeds = {"m": np.array(4, np.int64), "c": np.array(True), "x": np.array([1.0, 2.0], np.float32)}
    vm = compile_vm(proto, input_values={"m": feeds["m"], "c": feeds["c"]})
    compare(run(vm, feeds), run_ort(proto, feeds))


@pytest.mark.parametrize("directions,out_axes,out_directions", [([0, 1], [1, -1], [1, 0])])
def test_scan(directions, out_axes, out_directions):
    proto = scan_model(directions, out_axes, out_directions)
    rng = np.random.default_rng(2)
    feeds = {
        "s": np.zeros(2, np.float32),
        "p": np.ones(2, np.float32),
        "xa": rng.standard_normal((4, 2)).astype(np.float32),
        "xb": rng.standard_normal((2, 4)).astype(np.float32),
    }
    compare(run(compile_vm(proto), feeds), run_ort(proto, feeds))


def test_if_yielding_a_sequence():
    """The branches' tuples are ADT registers joined by a block argument."""
    proto = if_sequence_model()
    vm = compile_vm(proto)
    for cond in (True, False):
        feeds = {"cond": np.array(cond), **feeds3()}
        compare(run(vm, feeds), run_ort(proto, feeds))


def test_if_with_branches_of_different_shapes():
    """Branches yielding 3x4 and 2x4 give a ?x4 result, which the kernels
    after the if take with run-time extents."""
    from control_testing import BOOL, FLOAT, const, info, model
    from onnx import helper

    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t"])], "then", [], [info("t", FLOAT, [3, 4])]
    )
    else_graph = helper.make_graph(
        [
            const("start", np.array([0], np.int64)),
            const("end", np.array([2], np.int64)),
            helper.make_node("Slice", ["x", "start", "end"], ["e"]),
        ],
        "else",
        [],
        [info("e", FLOAT, [2, 4])],
    )
    nodes = [
        helper.make_node("If", ["c"], ["r"], then_branch=then_graph, else_branch=else_graph),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    inputs = [info("c", BOOL, []), info("x", FLOAT, [3, 4])]
    proto = model(nodes, inputs, [info("y", FLOAT, ["n", 4])])
    vm = compile_vm(proto)
    x = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    for cond in (True, False):
        feeds = {"c": np.array(cond), "x": x}
        compare(run(vm, feeds), run_ort(proto, feeds))

