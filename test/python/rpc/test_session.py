"""A session used like the local runtime: upload, load and run a model and
kernels, remote arrays, remote PackedFuncs, the time evaluator; the remote
runtime's errors come back as errors and the session goes on."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rpc_helpers import HOST, local_outputs

import xtvm
from xtvm import rpc


@pytest.fixture
def remote(module_server):
    with rpc.connect(HOST, module_server.port, key="test", timeout=60) as session:
        yield session


def test_a_model_runs_remotely_as_locally(remote, mlp_library):
    x = np.random.default_rng(0).standard_normal((8, 784)).astype("float32")
    assert remote.upload(mlp_library) == "mlp.so"
    factory = remote.load_module("mlp.so")
    assert factory.type_key == "GraphExecutorFactory"
    dev = remote.cpu(0)
    gmod = factory["default"](dev)
    gmod["set_input"]("data", x)
    gmod["run"]()
    out = gmod["get_output"](0)
    assert isinstance(out, rpc.RemoteNDArray) and out.shape == (8, 10)
    np.testing.assert_array_equal(out.numpy(), local_outputs(mlp_library, x))
    assert gmod["get_input_info"]() == ({"data": (8, 784)}, {"data": "float32"})
    assert gmod["get_num_outputs"]() == 1


def test_nd_array_on_a_remote_device(remote, mlp_library):
    x = np.random.default_rng(1).standard_normal((8, 784)).astype("float32")
    dev = remote.cpu(0)
    data = xtvm.nd.array(x, dev)
    assert (
        isinstance(data, rpc.RemoteNDArray) and data.shape == (8, 784) and data.dtype == "float32"
    )
    np.testing.assert_array_equal(data.numpy(), x)
    gmod = remote.load_module(remote.upload(mlp_library))["default"](dev)
    gmod["set_input"]("data", data)  # a remote array goes by handle
    gmod["run"]()
    out = xtvm.nd.empty((8, 10), "float32", dev)
    gmod["get_output"](0, out)
    np.testing.assert_array_equal(out.numpy(), local_outputs(mlp_library, x))
    out[:] = np.ones((8, 10), "float32")
    assert out.numpy().sum() == 80


def test_a_kernel_is_a_remote_packed_func(remote, kernels):
    path, _ = kernels["double"]
    lib = remote.load_module(remote.upload(path))
    dev = remote.cpu(0)
    a = xtvm.nd.array(np.arange(4, dtype="float32"), dev)
    b = xtvm.nd.empty((4,), "float32", dev)
    lib["double"](a, b)
    np.testing.assert_array_equal(b.numpy(), [0, 2, 4, 6])
    assert "double" in lib.function_names()


def test_remote_time_evaluator_agrees_with_local(remote, mlp_library, monkeypatch):
    from xtvm import runtime

    monkeypatch.setenv("XTVM_NUM_THREADS", "1")  # as the test servers: like with like

    dev = remote.cpu(0)
    gmod = remote.load_module(remote.upload(mlp_library))["default"](dev)
    gmod["set_input"]("data", np.zeros((8, 784), "float32"))
    remote_result = gmod.module.time_evaluator("run", dev, number=5, repeat=3, min_repeat_ms=20)()
    local = runtime.load_module(mlp_library)["default"](runtime.cpu(0))
    local_result = local.module.time_evaluator(
        "run", runtime.cpu(0), number=5, repeat=3, min_repeat_ms=20
    )()
    assert len(remote_result.results) == len(local_result.results) == 3
    for result in (remote_result, local_result):
        assert all(math.isfinite(t) and 0 < t < 1 for t in result.results)
    # The same code on the same machine: only noise (a loaded 2-core machine) separates them.
    assert 0.05 < remote_result.median / local_result.median < 20


def test_the_remote_runtimes_errors_come_back_and_the_session_goes_on(remote, mlp_library, kernels):
    gmod = remote.load_module(remote.upload(mlp_library))["default"](remote.cpu(0))
    with pytest.raises(
        rpc.RPCError, match=r"set_input: input 'data' expects \(8, 784\) float32, got \(8, 783\)"
    ):
        gmod["set_input"]("data", np.zeros((8, 783), "float32"))
    with pytest.raises(rpc.RPCError, match="has no function 'nope'"):
        remote.load_module(remote.upload(kernels["double"][0]))["nope"]
    with pytest.raises(rpc.RPCError, match="no uploaded file named 'missing.so'"):
        remote.load_module("missing.so")
    with pytest.raises(rpc.RPCError, match="file name '../evil.so' is not allowed"):
        remote.upload(kernels["double"][0], "../evil.so")
    with pytest.raises(rpc.RPCError, match="cannot be passed to a remote call"):
        gmod["set_input"]("data", lambda: 0)
    remote.ping()
    gmod["run"]()


def test_a_session_ends_cleanly(module_server):
    session = rpc.connect(HOST, module_server.port)
    session.close()
    assert session.closed
    with pytest.raises(rpc.RPCError, match="has ended: closed by this client"):
        session.ping()


def test_a_vm_library_runs_remotely(remote, tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    from xtvm.frontend import from_onnx
    from xtvm.runtime.vm import VirtualMachine

    w = numpy_helper.from_array(
        np.random.default_rng(3).standard_normal((16, 8)).astype("float32"), "w"
    )
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 8])],
        [w],
    )
    mod, params = from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, target="llvm", params=params, executor="vm")
    path = tmp_path / "vm_model.so"
    exe.export_library(str(path))
    x = np.random.default_rng(4).standard_normal((2, 16)).astype("float32")
    expected = VirtualMachine(xtvm.runtime.load_module(path), xtvm.cpu(0)).invoke("main", x).numpy()
    dev = remote.cpu(0)
    vm = remote.get_function("runtime.vm.VirtualMachine")(
        remote.load_module(remote.upload(path)), dev
    )
    np.testing.assert_array_equal(vm["invoke"]("main", x).numpy(), expected)
    vm["set_input"]("x", xtvm.nd.array(x, dev))
    vm["run"]()
    np.testing.assert_array_equal(vm["get_output"](0).numpy(), expected)


def test_uploading_over_a_loaded_library_leaves_it_working(remote, kernels):
    path, _ = kernels["double"]
    first = remote.load_module(remote.upload(path, "lib.so"))
    remote.upload(kernels["crash"][0], "lib.so")  # the same name, another library
    second = remote.load_module("lib.so")
    assert "crash" in second.function_names()
    a, b = remote.array(np.ones(4, "float32")), remote.empty((4,))
    first["double"](a, b)  # still mapped from the replaced file
    np.testing.assert_array_equal(b.numpy(), [2, 2, 2, 2])


def test_a_file_that_is_not_a_library(remote, tmp_path):
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"\x7fELF but not really" * 10)
    with pytest.raises(rpc.RPCError, match="'junk.so'"):
        remote.load_module(remote.upload(junk))
    remote.ping()


def test_time_evaluator_on_the_cpu_clock(remote, kernels):
    dev = remote.cpu(0)
    lib = remote.load_module(remote.upload(kernels["double"][0]))
    a, b = remote.array(np.ones(4, "float32")), remote.empty((4,))
    result = lib.time_evaluator("double", dev, number=100, repeat=2, clock="cpu")(a, b)
    assert len(result.results) == 2 and all(0 <= t < 1e-3 for t in result.results)
    with pytest.raises(rpc.RPCError, match="clock must be one of wall, cpu, got 'sundial'"):
        lib.time_evaluator("double", dev, clock="sundial")
