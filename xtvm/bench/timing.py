"""What the benchmarks share: the median of timed runs after a warm-up, and
the FLOPs of an ONNX model's convolutions and matrix products."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``run`` after one warm-up call."""
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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
