"""The graph executor over hand-written graphs and the native test kernels."""

import json

import numpy as np
import pytest
from native_kernels import FUNCTIONS, P0, build_library, expected_outputs, graph

from xtvm.runtime import XTVMError, cpu, graph_executor, load_module, save_param_dict
from xtvm.runtime.ndarray import array, empty

X = np.array([1, 2, 3, 4], dtype="float32")


@pytest.fixture
def gmod(factory_lib_path):
    return load_module(factory_lib_path)["default"](cpu(0))


def check_outputs(gmod, x=X):
    reshaped, doubled = expected_outputs(x)
    np.testing.assert_array_equal(gmod.get_output(0).numpy(), reshaped)
    np.testing.assert_array_equal(gmod.get_output(1).numpy(), doubled)


def test_factory_run_tvm_style(gmod):
    assert gmod.type_key == "GraphExecutor"
    gmod["set_input"](0, X)
    gmod["run"]()
    assert gmod["get_output"](0).shape == (2, 2)
    check_outputs(gmod)
    assert gmod["get_num_outputs"]() == 2 and gmod["get_num_inputs"]() == 1


def test_set_input_by_name_and_rerun(gmod):
    gmod.set_input("x", array(X))
    gmod.run()
    check_outputs(gmod)
    gmod.run(x=X * 2)
    check_outputs(gmod, X * 2)
    gmod.set_input(x=[0, 0, 0, 0])  # lists are converted to the input's dtype
    gmod.run()
    check_outputs(gmod, np.zeros(4, "float32"))


def test_shared_storage(gmod):
    entries = gmod._entries
    # storage ids [0, 1, 2, 3, 3, 2]: the reshape aliases addone's output, and the
    # last add reuses the first add's buffer.
    assert entries[4].data_ptr == entries[3].data_ptr
    assert entries[5].data_ptr == entries[2].data_ptr
    assert len({e.data_ptr for e in entries}) == 4


def test_input_queries(gmod):
    assert gmod.get_input_index("x") == 0 and gmod.get_input_index("p0") == -1
    assert gmod.get_input_info() == ({"x": (4,)}, {"x": "float32"})
    np.testing.assert_array_equal(gmod.get_input("p0").numpy(), P0)
    gmod.set_input(0, X)
    np.testing.assert_array_equal(gmod.get_input(0).numpy(), X)
    out = empty((2, 2))
    gmod.run()
    assert gmod.get_output(0, out) is out
    np.testing.assert_array_equal(out.numpy(), expected_outputs(X)[0])


def test_input_errors(gmod):
    with pytest.raises(XTVMError, match="the graph has no input named 'y'; inputs: x"):
        gmod.set_input("y", X)
    with pytest.raises(XTVMError, match="no input named 'y'"):
        gmod["set_input"]("y", X)
    with pytest.raises(
        XTVMError, match=r"set_input: input 'x' expects \(4,\) float32, got \(3,\) float32"
    ):
        gmod.set_input("x", X[:3])
    with pytest.raises(
        XTVMError, match=r"set_input: input 'x' expects \(4,\) float32, got \(4,\) float64"
    ):
        gmod.set_input(0, X.astype("float64"))
    with pytest.raises(
        XTVMError, match=r"input index 1 out of range; the graph has 1 input\(s\): x"
    ):
        gmod.set_input(1, X)
    with pytest.raises(XTVMError, match=r"get_output: index 2 out of range"):
        gmod.get_output(2)


def test_params_override_and_load_params(gmod):
    gmod.set_input(p0=np.zeros(4, "float32"))
    gmod.run(x=X)
    np.testing.assert_array_equal(gmod.get_output(1).numpy(), 2 * (X + 1))
    gmod.load_params(save_param_dict({"p0": P0}))
    gmod.run()
    check_outputs(gmod)


def test_arena_storage_offsets(tmp_path, has_cc, kernel_lib_path):
    arena_graph = json.dumps(graph(storage_offset=[0, 64, 128, 192, 192, 128]))
    header = {"functions": FUNCTIONS, "graph_json": arena_graph}
    lib = load_module(build_library(tmp_path, header, {"p0": P0}, name="arena.so"))
    gmod = graph_executor.create(arena_graph, lib, cpu(0))
    gmod.run(x=X)
    check_outputs(gmod)
    base = gmod._entries[0].data_ptr
    assert [e.data_ptr - base for e in gmod._entries] == [0, 64, 128, 192, 192, 128]


def test_nop_with_its_own_storage_copies(kernels):
    # create() over a kernel library: no parameters, so p0 is an input too.
    gmod = graph_executor.create(json.dumps(graph(nop_sid=4)), kernels, [cpu(0)])
    assert gmod.get_num_inputs() == 2
    gmod.set_input(0, X)
    gmod.set_input("p0", P0)
    gmod.run()
    check_outputs(gmod)
    assert gmod._entries[4].data_ptr != gmod._entries[3].data_ptr


def test_kernel_error_during_run(kernels):
    bad = graph()
    bad["attrs"]["shape"][1][0] = [3]  # x has 3 elements, the add kernel wants 4
    gmod = graph_executor.create(json.dumps(bad), kernels, cpu(0))
    with pytest.raises(
        XTVMError,
        match=r"add: argument 'A' \(#0\): expected shape \(4,\) float32, "
        r"got \(3,\) float32",
    ):
        gmod.run()


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda g: g.pop("nodes"), "missing key 'nodes'"),
        (
            lambda g: g["nodes"][2]["attrs"].update(func_name="sub"),
            "calls 'sub', which the library",
        ),
        (lambda g: g["nodes"][2].update(op="conv"), "has op 'conv'"),
        (lambda g: g["attrs"]["dltype"][1].pop(), "must list 6 entries"),
        (lambda g: g["attrs"]["dltype"][1].__setitem__(0, "complex64"), "unsupported dtype"),
        (lambda g: g["heads"].append([9, 0, 0]), "bad entry reference"),
        (lambda g: g["nodes"][3].update(inputs=[[2, 1, 0]]), "node 2 has no output 1"),
        (lambda g: g["nodes"][2]["attrs"].update(num_inputs="3"), "declares 3 inputs"),
    ],
)
def test_invalid_graphs(kernels, edit, message):
    bad = graph()
    edit(bad)
    with pytest.raises(XTVMError, match=message):
        graph_executor.create(json.dumps(bad), kernels, cpu(0))


def test_not_json(kernels):
    with pytest.raises(XTVMError, match="invalid graph JSON"):
        graph_executor.create("{nodes", kernels, cpu(0))
    with pytest.raises(XTVMError, match="expected a Device"):
        graph_executor.create(json.dumps(graph()), kernels, "cpu")


def test_factory_extras(factory_lib_path):
    factory = load_module(factory_lib_path)
    assert json.loads(factory["get_graph_json"]()) == graph()
    np.testing.assert_array_equal(factory["get_params"]()["p0"].numpy(), P0)


def test_time_evaluator_on_run(gmod):
    gmod.set_input(0, X)
    result = gmod.module.time_evaluator("run", cpu(0), number=3, repeat=2)()
    assert len(result.results) == 2 and result.mean > 0
