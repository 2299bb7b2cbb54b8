"""A model run from C against the Python graph executor: ``python -m xtvm.bench.c_program``.

For SqueezeNet (the onnx package's light model, seeded random weights) and
the example MLP (``examples/make_mlp.py``, batch 1), it compiles the model
once, exports the ``.so`` and its C header (docs/abi.md, "The AOT entry (C
ABI)"), builds ``examples/run_model.c`` against them with ``cc -O2``, and
times, on the same library and input:

* C: ``tvmgen_default_run`` called by the C program (``clock_gettime``
  around each call; the median of ``--repeat`` calls after a warm-up);
* Python: the graph executor's ``gmod.run()`` on the same ``.so``
  (``time.perf_counter`` around each call; the median likewise).

Each engine runs in a process of its own (no idle OpenMP threads of the
other), with the same thread count (``--threads``, default 1) and
``OMP_PROC_BIND=true`` (xtvm's default). The two alternate for ``--rounds``
rounds and each reports its best round's median (the shared machine's noise
only ever adds time), and the fastest single call of all rounds. It prints the C/Python ratio of SqueezeNet's latency
and, for the MLP, both per-call latencies and their difference (the Python
runtime's per-call overhead); for a one-kernel model (Relu of 16 floats),
each path's fixed cost of a call; and the largest relative difference of
the two engines' outputs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN_MODEL_C = Path(__file__).resolve().parents[2] / "examples" / "run_model.c"
MODELS = ("squeezenet", "mlp", "relu")
"""``relu``: one Relu of a 1x16 tensor, one kernel: its latency is each
path's fixed cost of a call."""


def relu_model():
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def build(name: str, directory: Path) -> tuple[Path, str, "object"]:
    """Compile ``name`` into ``directory`` (the .so, tvmgen_default.h, the C
    program); return the C program, the input's name and the input."""
    import numpy as np

    import xtvm
    from xtvm.codegen import find_c_compiler
    from xtvm.codegen.c_header import make_header
    from xtvm.frontend import from_onnx

    if name == "mlp":
        sys.path.insert(0, str(RUN_MODEL_C.parent))
        from make_mlp import make_mlp  # examples/make_mlp.py

        model, input_name = make_mlp(), "data"
        x = np.random.default_rng(1).standard_normal((1, 784)).astype("float32")
        mod, params = from_onnx(model, shape={"data": (1, 784)})
    elif name == "relu":
        model, input_name = relu_model(), "x"
        x = np.random.default_rng(1).standard_normal((1, 16)).astype("float32")
        mod, params = from_onnx(model)
    else:
        from xtvm.bench.timing import light_model

        model, input_name, x = light_model(name)
        mod, params = from_onnx(model)
    with xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, params=params)
    library = f"{name}.so"
    lib.export_library(str(directory / library))
    (directory / "tvmgen_default.h").write_text(make_header(lib.header["entry"]))
    x.tofile(directory / "input.bin")
    np.save(directory / "input.npy", x)
    exe = directory / "run_model"
    subprocess.run(
        [find_c_compiler(), "-O2", "-std=c11", str(RUN_MODEL_C), f"-I{directory}",
         f"-L{directory}", f"-l:{library}", f"-Wl,-rpath,{directory}", "-o", str(exe)],
        check=True, capture_output=True, text=True,
    )
    return exe, input_name, x


def child_env(threads: int) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "true")
    env["XTVM_NUM_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def time_c(exe: Path, directory: Path, threads: int, repeat: int) -> dict[str, float]:
    """The C program's median and minimum latency in seconds (its outputs in
    ``directory/c_out<k>.bin``)."""
    result = subprocess.run(
        [str(exe), "-i", str(directory / "input.bin"), "-o", str(directory / "c_out"),
         "-n", str(repeat), "-t", str(threads), "-p", "0"],
        capture_output=True, text=True, env=child_env(threads),
    )
    if result.returncode != 0:
        raise RuntimeError(f"{exe} failed ({result.returncode}): {result.stderr.strip()}")
    match = re.search(r"latency: median ([0-9.]+) ms, min ([0-9.]+) ms", result.stdout)
    if match is None:
        raise RuntimeError(f"{exe} printed no latency:\n{result.stdout}")
    return {"median": float(match.group(1)) * 1e-3, "min": float(match.group(2)) * 1e-3}


def time_python(directory: Path, library: str, threads: int, repeat: int) -> dict[str, float]:
    """The graph executor's median and minimum ``run()`` latency and the
    median of a whole inference (``set_input``, ``run``,
    ``get_output(0).numpy()``), in a process of its own (its first output in
    ``directory/py_out.npy``)."""
    result = subprocess.run(
        [sys.executable, "-m", "xtvm.bench.c_program", "--python-child",
         str(directory / library), "--threads", str(threads), "--repeat", str(repeat)],
        capture_output=True, text=True, env=child_env(threads),
    )
    if result.returncode != 0:
        raise RuntimeError(f"the Python graph executor failed: {result.stderr.strip()}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def python_child(library: Path, threads: int, repeat: int) -> None:
    import statistics

    import numpy as np

    import xtvm

    def timed(call) -> list[float]:
        call()  # warm-up
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        return times

    gmod = xtvm.runtime.load_module(str(library))["default"](xtvm.cpu(0))
    xtvm.runtime.set_num_threads(threads)
    x = np.load(library.parent / "input.npy")
    gmod.set_input(0, x)
    runs = timed(gmod.run)
    np.save(library.parent / "py_out.npy", gmod.get_output(0).numpy())

    def inference():
        gmod.set_input(0, x)
        gmod.run()
        return gmod.get_output(0).numpy()

    print(json.dumps({"median": statistics.median(runs), "min": min(runs),
                      "inference": statistics.median(timed(inference))}))


def measure(name: str, threads: int, repeat: int, rounds: int, directory: Path) -> dict:
    import numpy as np

    from xtvm.bench.timing import max_relative_error

    import xtvm

    exe, _, _ = build(name, directory)
    c_times, py_times = [], []
    for _ in range(rounds):
        c_times.append(time_c(exe, directory, threads, repeat))
        py_times.append(time_python(directory, f"{name}.so", threads, repeat))
    header = xtvm.runtime.load_module(str(directory / f"{name}.so")).header
    entry = header["entry"]
    out0 = entry["outputs"][0]
    c_out = np.fromfile(directory / "c_out0.bin", dtype=out0["dtype"]).reshape(out0["shape"])
    py_out = np.load(directory / "py_out.npy")
    return {"c": min(t["median"] for t in c_times),
            "python": min(t["median"] for t in py_times),
            "c_min": min(t["min"] for t in c_times),
            "python_min": min(t["min"] for t in py_times),
            "inference": min(t["inference"] for t in py_times),
            "kernels": kernel_calls(header["graph_json"]),
            "rel_diff": max_relative_error(c_out, py_out)}


def kernel_calls(graph_json: str) -> int:
    """The kernel calls of one run (the graph's tvm_op nodes but ``__nop``)."""
    nodes = json.loads(graph_json)["nodes"]
    return sum(1 for n in nodes if n["op"] == "tvm_op" and n["attrs"]["func_name"] != "__nop")


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        match = re.search(r"Model name:\s*(.+)", out)
        if match:
            return f"{match.group(1).strip()}, {os.cpu_count()} cores"
    except OSError:
        pass
    return f"{os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m xtvm.bench.c_program",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=0,
                        help="timed calls per round (default: 200 SqueezeNet, 5000 MLP)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="keep the built files here")
    parser.add_argument("--python-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.threads < 1 or args.rounds < 1 or args.repeat < 0:
        parser.error("--threads and --rounds must be positive, --repeat non-negative")
    if args.python_child is not None:
        python_child(args.python_child, args.threads, args.repeat)
        return
    if not RUN_MODEL_C.exists():
        sys.exit(f"c_program: {RUN_MODEL_C} not found (run from a source checkout)")
    print(f"# a model from C (examples/run_model.c) vs the Python graph executor, "
          f"{args.threads} thread(s), {time.strftime('%Y-%m-%d')}, {machine()}; "
          f"best of {args.rounds} rounds' medians")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            directory = (args.dir or Path(tmp)) / name
            directory.mkdir(parents=True, exist_ok=True)
            repeat = args.repeat or (200 if name == "squeezenet" else 5000)
            results[name] = measure(name, args.threads, repeat, args.rounds, directory)
    header = ["model", "kernels", "C µs", "Python run() µs", "C/Python", "Python - C µs",
              "Python set_input+run+get_output µs", "C min µs", "Python min µs",
              "max rel diff"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, r in results.items():
        c, py = r["c"] * 1e6, r["python"] * 1e6
        print(f"| {name} | {r['kernels']} | {c:.2f} | {py:.2f} | {c / py:.3f} | {py - c:.2f} | "
              f"{r['inference'] * 1e6:.2f} | {r['c_min'] * 1e6:.2f} | "
              f"{r['python_min'] * 1e6:.2f} | {r['rel_diff']:.1e} |")
    if "squeezenet" in results:
        r = results["squeezenet"]
        print(f"SqueezeNet latency: C {r['c'] * 1e3:.3f} ms, Python graph executor run() "
              f"{r['python'] * 1e3:.3f} ms: C/Python = {r['c'] / r['python']:.3f}")
    if "mlp" in results:
        r = results["mlp"]
        print(f"MLP per call: C {r['c'] * 1e6:.2f} µs, Python run() {r['python'] * 1e6:.2f} µs "
              f"(+{(r['python'] - r['c']) * 1e6:.2f} µs), Python set_input+run+get_output "
              f"{r['inference'] * 1e6:.2f} µs (+{(r['inference'] - r['c']) * 1e6:.2f} µs)")
    if "relu" in results:
        r = results["relu"]
        print(f"Per-call overhead (relu: one kernel on 16 floats, so nearly all overhead): "
              f"C {r['c'] * 1e6:.3f} µs, Python run() {r['python'] * 1e6:.3f} µs, "
              f"Python set_input+run+get_output {r['inference'] * 1e6:.3f} µs")


if __name__ == "__main__":
    main()
