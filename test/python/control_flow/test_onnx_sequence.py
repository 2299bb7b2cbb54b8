"""ONNX sequence ops of static length import to relay tuples: models whose
sequences stay inside the graph, evaluated with the NumPy references and
compiled for the graph executor, equal onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from control_testing import BOOL, FLOAT, INT64, check, const, info, model, run_ort
from onnx import helper

import xtvm
from xtvm.frontend import OnnxImportError, from_onnx

RNG = np.random.default_rng(3)


def feeds3():
    return {n: RNG.standard_normal((2, 3)).astype(np.float32) for n in ("a", "b", "c")}


INPUTS = [info(n, FLOAT, [2, 3]) for n in ("a", "b", "c")]


def test_construct_insert_erase_at_length():
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s0"]),
        const("front", np.int64(0)),
        helper.make_node("SequenceInsert", ["s0", "c", "front"], ["s1"]),  # c a b
        helper.make_node("SequenceInsert", ["s1", "a"], ["s2"]),  # c a b a
        const("second", np.int64(-3)),
        helper.make_node("SequenceErase", ["s2", "second"], ["s3"]),  # c b a
        const("one", np.int64(1)),
        helper.make_node("SequenceAt", ["s3", "one"], ["y"]),  # b
        helper.make_node("SequenceLength", ["s3"], ["n"]),
        helper.make_node("SequenceErase", ["s3"], ["s4"]),  # c b
        helper.make_node("ConcatFromSequence", ["s4"], ["z"], axis=1),
    ]
    outputs = [info("y", FLOAT, [2, 3]), info("n", INT64, []), info("z", FLOAT, [2, 6])]
    proto = model(nodes, INPUTS, outputs)
    module = check(proto, feeds3())
    assert "relay.tuple" in str(module)


@pytest.mark.parametrize("position", [0, 2, -1, -3])
def test_sequence_at_run_time_position(position):
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]),
        helper.make_node("SequenceAt", ["s", "p"], ["y"]),
    ]
    proto = model(nodes, [*INPUTS, info("p", INT64, [])], [info("y", FLOAT, [2, 3])])
    check(proto, {**feeds3(), "p": np.array(position, np.int64)})


@pytest.mark.parametrize(
    "split,keepdims,axis,new_axis,out_shape",
    [
        (None, 1, 0, 1, [2, 1, 5]),  # 2 pieces [1, 5], stacked
        (None, 0, 1, 1, [2, 5]),  # 5 pieces [2], stacked on axis 1
        (np.int64(2), 1, 1, 0, [2, 5]),  # pieces of 2, 2, 1 columns, concatenated
        (np.array([1, 4], np.int64), 1, 1, 0, [2, 5]),
    ],
)
def test_split_to_sequence_and_concat(split, keepdims, axis, new_axis, out_shape):
    nodes = []
    inputs = ["x"]
    if split is not None:
        nodes.append(const("split", split))
        inputs.append("split")
    nodes += [
        helper.make_node("SplitToSequence", inputs, ["s"], axis=axis, keepdims=keepdims),
        helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=axis, new_axis=new_axis),
    ]
    proto = model(nodes, [info("x", FLOAT, [2, 5])], [info("y", FLOAT, out_shape)])
    check(proto, {"x": RNG.standard_normal((2, 5)).astype(np.float32)})


def if_sequence_model():
    """Branches yield sequences (tuples); the graph reads one element."""
    then_graph = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["ts"])],
        "then",
        [],
        [helper.make_tensor_sequence_value_info("ts", FLOAT, [2, 3])],
    )
    else_graph = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["c", "a"], ["es"])],
        "else",
        [],
        [helper.make_tensor_sequence_value_info("es", FLOAT, [2, 3])],
    )
    nodes = [
        helper.make_node("If", ["cond"], ["s"], then_branch=then_graph, else_branch=else_graph),
        const("zero", np.int64(0)),
        helper.make_node("SequenceAt", ["s", "zero"], ["y"]),
    ]
    return model(nodes, [info("cond", BOOL, []), *INPUTS], [info("y", FLOAT, [2, 3])])


def test_if_yielding_a_sequence():
    proto = if_sequence_model()
    for cond in (True, False):
        check(proto, {"cond": np.array(cond), **feeds3()})


def test_compiled_for_the_graph_executor():
    nodes = [
        helper.make_node("SplitToSequence", ["x"], ["s"], axis=0, keepdims=0),
        const("one", np.int64(1)),
        helper.make_node("SequenceErase", ["s", "one"], ["t"]),
        helper.make_node("ConcatFromSequence", ["t"], ["y"], axis=0, new_axis=1),
    ]
    proto = model(nodes, [info("x", FLOAT, [3, 4])], [info("y", FLOAT, [2, 4])])
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    module, _ = from_onnx(proto)
    gmod = xtvm.build(module)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    np.testing.assert_array_equal(gmod.get_output(0).numpy(), run_ort(proto, {"x": x})[0])


def test_position_out_of_range():
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
        const("five", np.int64(5)),
        helper.make_node("SequenceAt", ["s", "five"], ["y"]),
    ]
    proto = model(nodes, INPUTS[:2], [info("y", FLOAT, [2, 3])])
    with pytest.raises(OnnxImportError, match="position 5 is out of range for a sequence of 2"):
        from_onnx(proto)


def test_sequence_inputs_and_outputs_through_the_backend():
    """A sequence graph input is one argument per element; a sequence
    output comes back as a list (graph executor, and the VM for an If)."""
    from onnx import TensorProto

    from xtvm.frontend.onnx.backend import XtvmBackend

    seq = helper.make_tensor_sequence_value_info
    nodes = [
        helper.make_node("SequenceInsert", ["s", "t"], ["s2"]),
        helper.make_node("SplitToSequence", ["t"], ["parts"], axis=1, keepdims=0),
    ]
    proto = model(
        nodes,
        [seq("s", TensorProto.FLOAT, None), info("t", FLOAT, [2, 3])],
        [seq("s2", TensorProto.FLOAT, None), seq("parts", TensorProto.FLOAT, None)],
    )
    elements = [RNG.standard_normal((2, 3)).astype(np.float32) for _ in range(2)]
    t = RNG.standard_normal((2, 3)).astype(np.float32)
    got = XtvmBackend.prepare(proto).run([elements, t])
    want = run_ort(proto, {"s": elements, "t": t})
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, list) and len(g) == len(w)
        for a, b in zip(g, w, strict=True):
            np.testing.assert_array_equal(a, b)


def test_sequence_map():
    """The body (x + t, and x's shape) applied to each element of a
    sequence whose elements differ in shape."""
    from onnx import TensorProto

    body = helper.make_graph(
        [helper.make_node("Add", ["e", "t"], ["sum"]), helper.make_node("Shape", ["e"], ["shape"])],
        "body",
        [info("e", FLOAT, ["n"]), info("t", FLOAT, [1])],
        [info("sum", FLOAT, ["n"]), info("shape", INT64, [1])],
    )
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
        helper.make_node("SequenceMap", ["s", "t"], ["sums", "shapes"], body=body),
        helper.make_node("ConcatFromSequence", ["sums"], ["y"], axis=0),
        helper.make_node("ConcatFromSequence", ["shapes"], ["z"], axis=0),
    ]
    proto = model(
        nodes,
        [info("a", FLOAT, [2]), info("b", FLOAT, [3]), info("t", FLOAT, [1])],
        [info("y", FLOAT, [5]), info("z", TensorProto.INT64, [2])],
        opset=17,
    )
    sizes = {"a": 2, "b": 3, "t": 1}
    feeds = {n: RNG.standard_normal(s).astype(np.float32) for n, s in sizes.items()}
    check(proto, feeds)


def test_optionals_through_the_backend():
    """An optional input is empty (None) or holds a tensor; whether it is
    empty is known when compiling, so OptionalHasElement is a constant."""
    from onnx import TensorProto

    from xtvm.frontend.onnx.backend import XtvmBackend

    optional = helper.make_value_info(
        "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [3]))
    )
    nodes = [
        helper.make_node("OptionalHasElement", ["o"], ["has"]),
        helper.make_node("Optional", ["x"], ["wrapped"]),
        helper.make_node("OptionalGetElement", ["wrapped"], ["y"]),
    ]
    proto = model(
        nodes,
        [optional, info("x", FLOAT, [3])],
        [info("has", TensorProto.BOOL, []), info("y", FLOAT, [3])],
        opset=18,
    )
    rep = XtvmBackend.prepare(proto)
    x = RNG.standard_normal(3).astype(np.float32)
    for value, present in ((None, False), (np.ones(3, np.float32), True)):
        has, y = rep.run([value, x])
        assert has.dtype == np.bool_ and bool(has) is present
        np.testing.assert_array_equal(y, x)


def test_optional_get_element_of_an_empty_optional():
    nodes = [
        helper.make_node(
            "Optional", [], ["e"], type=helper.make_tensor_type_proto(FLOAT, [3])
        ),
        helper.make_node("OptionalGetElement", ["e"], ["y"]),
    ]
    proto = model(nodes, [], [info("y", FLOAT, [3])], opset=18)
    with pytest.raises(OnnxImportError, match=r"input 'input' \('e'\) is an empty optional"):
        from_onnx(proto)


def _if_optional_model():
    """``o = If(c) then Optional(x * 2) else <empty optional>``; outputs ``o``
    (an optional decided at run time) and ``OptionalHasElement(o)``."""
    empty = helper.make_graph(
        [helper.make_node("Optional", [], ["e"], type=helper.make_tensor_type_proto(FLOAT, [3]))],
        "empty", [], [helper.make_value_info("e", helper.make_optional_type_proto(
            helper.make_tensor_type_proto(FLOAT, [3])))],
    )
    present = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["d"]), helper.make_node("Optional", ["d"], ["p"])],
        "present", [], [helper.make_value_info("p", helper.make_optional_type_proto(
            helper.make_tensor_type_proto(FLOAT, [3])))],
    )
    optional = helper.make_optional_type_proto(helper.make_tensor_type_proto(FLOAT, [3]))
    nodes = [
        helper.make_node("If", ["c"], ["o"], then_branch=present, else_branch=empty),
        helper.make_node("OptionalHasElement", ["o"], ["has"]),
    ]
    return model(
        nodes,
        [info("c", BOOL, []), info("x", FLOAT, [3])],
        [helper.make_value_info("o", optional), info("has", BOOL, [])],
        opset=18,
    )


def test_optional_decided_at_run_time():
    """An If with an empty branch gives an optional whose emptiness the
    condition decides when the model runs (a presence flag and the value):
    the backend returns None or the tensor, OptionalHasElement the flag,
    as onnxruntime does."""
    from xtvm.frontend.onnx.backend import XtvmBackend

    proto = _if_optional_model()
    rep = XtvmBackend.prepare(proto)
    x = RNG.standard_normal(3).astype(np.float32)
    for cond in (True, False):
        o, has = rep.run([np.array(cond), x])
        want_o, want_has = run_ort(proto, {"c": np.array(cond), "x": x})
        assert bool(has) is cond and bool(want_has) is cond
        if cond:
            np.testing.assert_array_equal(o, want_o)
        else:
            assert o is None and want_o is None


def test_optional_decided_at_run_time_cannot_be_taken():
    proto = _if_optional_model()
    proto.graph.node.append(helper.make_node("OptionalGetElement", ["o"], ["y"]))
    proto.graph.output.append(info("y", FLOAT, [3]))
    with pytest.raises(OnnxImportError, match="decided at run time"):
        from_onnx(proto)
