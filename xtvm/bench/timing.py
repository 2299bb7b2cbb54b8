"""What the benchmarks share: a light model with random weights and its
input, an onnxruntime session, the median of timed runs after a warm-up,
the largest relative error, and the FLOPs of an ONNX model's convolutions
and matrix products."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


MLP_PATH = Path(__file__).resolve().parents[2] / "examples" / "mlp.onnx"
"""``mlp``: the repository's example MLP (its weights as trained, batch 1)."""


def light_model(name: str):
    """The onnx package's light model ``name`` with seeded random weights (or
    ``mlp``, the example MLP, or the path of an ``.onnx`` file, with their own
    weights; symbolic dimensions of the input are 1), the name of its data
    input, and a seeded random input for it."""
    import onnx

    from xtvm.frontend.onnx.testing import light_model_path, randomize_weights

    if name == "mlp" and not MLP_PATH.exists():
        raise FileNotFoundError(
            f"{MLP_PATH} is generated, not tracked: make it with "
            f"`python examples/make_mlp.py` (or give the path of an .onnx file)"
        )
    if name == "mlp" or name.endswith(".onnx"):
        model = onnx.load(MLP_PATH if name == "mlp" else name)
    else:
        model = randomize_weights(onnx.load(light_model_path(name)), seed=0)
    weights = {i.name for i in model.graph.initializer}
    (data,) = [i for i in model.graph.input if i.name not in weights]
    for dim in data.type.tensor_type.shape.dim:
        if not dim.dim_value:  # a symbolic batch size
            dim.dim_value = 1
    shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    return model, data.name, x


def ort_session(model, threads: int):
    """An onnxruntime CPU session of ``model`` with ``threads`` intra-op threads."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def max_relative_error(out: np.ndarray, ref: np.ndarray) -> float:
    """The largest absolute difference relative to the reference's largest magnitude."""
    return float(np.max(np.abs(out - ref)) / max(float(np.max(np.abs(ref))), 1e-12))


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``run`` after one warm-up call."""
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compile_model(model, input_name: str, x: np.ndarray, target: str = "llvm"):
    """Compile ``model`` (ONNX → a JIT module, for ``target``): ``(compile
    seconds, its graph executor with ``x`` set as ``input_name``)``."""
    import xtvm
    from xtvm.frontend import from_onnx

    start = time.perf_counter()
    mod, params = from_onnx(model)
    lib = xtvm.build(mod, target=target, params=params)
    compile_s = time.perf_counter() - start
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(input_name, x)
    return compile_s, gmod


def compile_and_time(
    model, input_name: str, x: np.ndarray, threads, repeat: int, timer=None, target: str = "llvm"
) -> tuple[float, dict[int, object], object]:
    """Compile ``model`` (ONNX → a JIT module, for ``target``) and time its
    graph executor at each thread count with ``timer(run, repeat)`` (default
    :func:`median_seconds`): ``(compile seconds, {threads: time}, executor)``."""
    import xtvm

    timer = timer or median_seconds
    compile_s, gmod = compile_model(model, input_name, x, target)
    seconds = {}
    for n in threads:
        xtvm.runtime.set_num_threads(n)
        seconds[n] = timer(gmod.run, repeat)
    return compile_s, seconds, gmod


def model_flops(model) -> float:
    """2 × the multiply-accumulates of every Conv, Gemm and MatMul of an ONNX
    model (shapes from ONNX shape inference)."""
    import onnx
    from onnx import numpy_helper

    inferred = onnx.shape_inference.infer_shapes(model).graph
    shapes: dict[str, list[int]] = {}
    for info in [*inferred.input, *inferred.value_info, *inferred.output]:
        shapes[info.name] = [d.dim_value for d in info.type.tensor_type.shape.dim]
    for init in inferred.initializer:
        shapes[init.name] = list(numpy_helper.to_array(init).shape)
    flops = 0.0
    for node in inferred.node:
        out = shapes.get(node.output[0])
        if not out:
            continue
        if node.op_type == "Conv":
            weight = shapes[node.input[1]]  # [O, C/groups, KH, KW]
            flops += 2 * float(np.prod(out)) * float(np.prod(weight[1:]))
        elif node.op_type in ("Gemm", "MatMul"):
            a = shapes[node.input[0]]
            trans_a = any(at.name == "transA" and at.i for at in node.attribute)
            k = a[-2] if trans_a else a[-1]
            flops += 2 * float(np.prod(out)) * k
    return flops
