"""The tracker: servers register under a key, clients get free servers in
priority order; measuring through it gives what measuring locally gives,
and the tuning runner (`RPCRunner`) makes the same records as the local one."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from rpc_helpers import HOST, local_outputs, wait_for

from xtvm import rpc
from xtvm.rpc.measure import measure


def tracked_servers(launch, count: int, key: str = "x86-test"):
    tracker = launch("tracker")
    servers = [
        launch("server", "--key", key, "--tracker", f"{HOST}:{tracker.port}") for _ in range(count)
    ]
    link = rpc.connect_tracker(HOST, tracker.port)
    wait_for(
        lambda: link.summary()["queues"].get(key, {}).get("free") == count, what="registrations"
    )
    return tracker, servers, link


def test_two_servers_serve_two_clients_at_once(launch, mlp_library):
    tracker, servers, link = tracked_servers(launch, 2)
    x = np.random.default_rng(2).standard_normal((8, 784)).astype("float32")
    barrier = threading.Barrier(2, timeout=60)
    outcome: dict[int, object] = {}

    def client(index: int) -> None:
        try:
            with rpc.connect_tracker(HOST, tracker.port) as mine:
                session = mine.request("x86-test", session_timeout=120, timeout=60)
            with session:
                barrier.wait()  # both sessions are open at the same time
                gmod = session.load_module(session.upload(mlp_library))["default"](session.cpu(0))
                gmod["set_input"]("data", x)
                gmod["run"]()
                outcome[index] = (session.address, gmod["get_output"](0).numpy())
                barrier.wait()
        except Exception as err:  # noqa: BLE001 - reported below
            outcome[index] = err

    threads = [threading.Thread(target=client, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert all(isinstance(outcome.get(i), tuple) for i in range(2)), outcome
    addresses = {outcome[i][0] for i in range(2)}
    assert addresses == {f"{HOST}:{s.port}" for s in servers}
    expected = local_outputs(mlp_library, x)
    for i in range(2):
        np.testing.assert_array_equal(outcome[i][1], expected)
    wait_for(
        lambda: link.summary()["queues"]["x86-test"] == {"free": 2, "busy": 0, "waiting": 0},
        what="both servers free again",
    )
    assert {s["port"] for s in link.summary()["servers"]} == {s.port for s in servers}


def test_higher_priority_is_served_first(launch):
    tracker, _, link = tracked_servers(launch, 1)
    holder = link.request("x86-test")
    order: list[int] = []

    def wait_in_line(priority: int) -> None:
        with (
            rpc.connect_tracker(HOST, tracker.port) as mine,
            mine.request("x86-test", priority=priority, timeout=60),
        ):
            order.append(priority)

    low = threading.Thread(target=wait_in_line, args=(0,))
    low.start()
    wait_for(lambda: link.summary()["queues"]["x86-test"]["waiting"] == 1, what="the first request")
    high = threading.Thread(target=wait_in_line, args=(5,))
    high.start()
    wait_for(
        lambda: link.summary()["queues"]["x86-test"]["waiting"] == 2, what="the second request"
    )
    holder.close()
    low.join(timeout=60)
    high.join(timeout=60)
    assert order == [5, 0]


def test_tracker_errors(launch):
    _, servers, link = tracked_servers(launch, 1)
    with pytest.raises(
        rpc.RPCError,
        match="no server of key 'arm-a72' became free in time; registered keys: 'x86-test'",
    ):
        link.request("arm-a72", timeout=0.3)
    with pytest.raises(
        rpc.RPCError,
        match=r"takes its sessions from the tracker at 127.0.0.1:\d+: request one there",
    ):
        rpc.connect(HOST, servers[0].port, key="x86-test")
    with link.request("x86-test") as session:
        session.ping()
    assert "x86-test" in link.text_summary()


def test_measuring_through_the_tracker_matches_local(launch, mlp_library, kernels, monkeypatch):
    monkeypatch.setenv("XTVM_NUM_THREADS", "1")  # as the test servers: like with like
    tracker, _, _ = tracked_servers(launch, 1)
    options = {"number": 3, "repeat": 3, "min_repeat_ms": 5}
    remote = measure(mlp_library, tracker=(HOST, tracker.port), key="x86-test", **options)
    local = measure(mlp_library, **options)
    assert remote.where.startswith(HOST) and local.where == "local"
    np.testing.assert_array_equal(remote.outputs[0], local.outputs[0])  # same seeded inputs
    for m in (remote, local):
        assert len(m.costs) == 3 and all(0 < c < 1 for c in m.costs)
    path, _ = kernels["double"]
    a = np.arange(4, dtype="float32")
    kernel = measure(
        path,
        function="double",
        args=[a, np.zeros(4, "float32")],
        tracker=(HOST, tracker.port),
        key="x86-test",
        **options,
    )
    np.testing.assert_array_equal(kernel.outputs[1], 2 * a)


def test_the_rpc_runner_makes_the_local_runners_records(launch, kernels):
    from xtvm.rpc.runner import RPCRunner
    from xtvm.tuning.measure import BuildResult, LocalRunner, MeasureErrorNo

    tracker, _, _ = tracked_servers(launch, 1)
    builds = [
        BuildResult(str(kernels[name][0]), name, kernels[name][1])
        for name in ("double", "crash", "double")
    ]
    builds.append(BuildResult(None, "failed", error_no=MeasureErrorNo.COMPILE_HOST, error_msg="no"))
    options = {"number": 2, "repeat": 3, "min_repeat_ms": 1}
    remote = RPCRunner("x86-test", (HOST, tracker.port), timeout=30, **options).run(
        [None] * 4, builds
    )
    local_runner = LocalRunner(timeout=30, **options)
    try:
        local = local_runner.run([None] * 4, builds)
    finally:
        local_runner.close()
    assert (
        [r.error_no for r in remote]
        == [r.error_no for r in local]
        == [
            MeasureErrorNo.NO_ERROR,
            MeasureErrorNo.RUNTIME_DEVICE,
            MeasureErrorNo.NO_ERROR,
            MeasureErrorNo.COMPILE_HOST,
        ]
    )
    assert "SIGSEGV" in remote[1].costs[0]
    for r in (remote[0], remote[2], local[0], local[2]):
        assert len(r.costs) == 3 and all(0 < c < 1 for c in r.costs)


def test_a_tracker_with_a_token(launch, tmp_path):
    token = tmp_path / "token"
    token.write_text("tracker-and-server-token")
    tracker = launch("tracker", "--token-file", str(token))
    launch(
        "server",
        "--key",
        "x86-test",
        "--tracker",
        f"{HOST}:{tracker.port}",
        "--token-file",
        str(token),
    )
    with pytest.raises(rpc.RPCError, match="cannot talk to the tracker .* requires a token"):
        rpc.connect_tracker(HOST, tracker.port)
    with pytest.raises(rpc.RPCError, match="authentication failed"):
        rpc.connect_tracker(HOST, tracker.port, token="wrong")
    link = rpc.connect_tracker(HOST, tracker.port, token="tracker-and-server-token")
    wait_for(
        lambda: link.summary()["queues"].get("x86-test", {}).get("free") == 1,
        what="the registration",
    )
    with link.request("x86-test") as session:  # the session uses the same token
        session.ping()


@pytest.mark.slow  # a task's builds: about 10 s on a loaded machine
def test_the_rpc_runner_checks_candidates_against_the_reference(launch, tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    from xtvm.frontend import from_onnx
    from xtvm.rpc.runner import RPCRunner
    from xtvm.tuning.measure import LocalBuilder, MeasureErrorNo, MeasureInput
    from xtvm.tuning.task import extract_tasks

    rng = np.random.default_rng(5)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype("float32"), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 10, 10])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    (task,) = extract_tasks(*from_onnx(model))
    space = task.config_space
    inputs = [MeasureInput(task, space.get(i)) for i in (0, len(space) - 1)]
    tracker, _, _ = tracked_servers(launch, 1)
    builder = LocalBuilder(jobs=1, out_dir=str(tmp_path))
    try:
        builds = builder.build(inputs)
    finally:
        builder.close()
    runner = RPCRunner("x86-test", (HOST, tracker.port), check=True, min_repeat_ms=1, timeout=60)
    results = runner.run(inputs, builds)
    assert [r.error_no for r in results] == [MeasureErrorNo.NO_ERROR] * 2, results
    assert all(len(r.costs) == 3 and r.mean > 0 for r in results)
    expected = runner._expected[task.key]  # the check can fail: a reference that differs
    runner._expected[task.key] = [e + (i == len(expected) - 1) for i, e in enumerate(expected)]
    (wrong,) = runner.run(inputs[:1], builds[:1])
    assert wrong.error_no == MeasureErrorNo.WRONG_ANSWER and "argument 2 differs" in wrong.costs[0]


def test_xtvm_tune_measures_through_the_tracker(launch, tmp_path, capsys):
    """`xtvm-tune --rpc-key K --tracker H:P`: every candidate is measured on a
    tracked server, and the records are as good as local ones."""
    import onnx

    from xtvm.tools import tune as xtvm_tune
    from xtvm.tuning.record import load_records

    tracker, _, _ = tracked_servers(launch, 1)
    model = tmp_path / "dense.onnx"
    w = onnx.numpy_helper.from_array(np.ones((16, 32), np.float32), "w")
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)],
        "dense",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4, 32])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4, 16])],
        [w],
    )
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), model)
    records = tmp_path / "records.json"
    common = [str(model), "--records", str(records), "--trials", "2", "--autotvm-tuner", "random"]
    timing = ["--min-repeat-ms", "1", "--repeat", "1"]
    xtvm_tune.main([*common, *timing, "--rpc-key", "x86-test", "--tracker", f"{HOST}:{tracker.port}"])
    measured = list(load_records(records))
    assert len(measured) == 2 and all(r.error_no == 0 for r in measured)
    assert all(min(r.costs) > 0 for r in measured)
    with pytest.raises(SystemExit, match="--rpc-key and --tracker go together"):
        xtvm_tune.main([*common, "--rpc-key", "x86-test"])
    with pytest.raises(SystemExit, match="--tracker must be HOST:PORT"):
        xtvm_tune.main([*common, "--rpc-key", "x86-test", "--tracker", "nowhere"])
