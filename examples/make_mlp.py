"""Builds ``mlp.onnx`` next to this script: a 3-layer MLP classifier with
fixed-seed random weights, and prints its path.

    data [N, 784] → Gemm(784→256) → Relu → MatMul(256→128) → Add(bias) → Relu
                  → Gemm(128→10) → Softmax → probs [N, 10]

The batch dimension is symbolic ("N"), so importing it needs a shape:
``xtvm.frontend.from_onnx("mlp.onnx", shape={"data": (1, 784)})``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
SEED = 0


def make_mlp(seed: int = SEED) -> onnx.ModelProto:
    """The MLP as a checked ``ModelProto``."""
    rng = np.random.default_rng(seed)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        scale = 1.0 / np.sqrt(shape[0] if len(shape) == 2 else 1.0)
        values = (rng.standard_normal(shape) * scale).astype(np.float32)
        return numpy_helper.from_array(values, name)

    initializers = [
        weight("fc1.weight", 256, 784),  # Gemm with transB = 1: [out, in], as torch exports
        weight("fc1.bias", 256),
        weight("fc2.weight", 256, 128),  # MatMul: [in, out]
        weight("fc2.bias", 128),
        weight("fc3.weight", 128, 10),  # Gemm with transB = 0
        weight("fc3.bias", 10),
    ]
    nodes = [
        helper.make_node("Gemm", ["data", "fc1.weight", "fc1.bias"], ["fc1"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu1"], name="relu1"),
        helper.make_node("MatMul", ["relu1", "fc2.weight"], ["fc2.matmul"], name="fc2.matmul"),
        helper.make_node("Add", ["fc2.matmul", "fc2.bias"], ["fc2"], name="fc2.add"),
        helper.make_node("Relu", ["fc2"], ["relu2"], name="relu2"),
        helper.make_node("Gemm", ["relu2", "fc3.weight", "fc3.bias"], ["fc3"], name="fc3"),
        helper.make_node("Softmax", ["fc3"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["N", 784])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 10])],
        initializers,
    )
    model = helper.make_model(
        graph, producer_name="xtvm-examples", opset_imports=[helper.make_opsetid("", OPSET)]
    )
    onnx.checker.check_model(model)
    return model


def main() -> Path:
    import argparse

    parser = argparse.ArgumentParser(description="write the example MLP as ONNX")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "mlp.onnx")
    path = parser.parse_args().output
    onnx.save(make_mlp(), path)
    print(path)
    return path


if __name__ == "__main__":
    main()
