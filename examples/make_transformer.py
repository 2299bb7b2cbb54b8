"""Builds ``transformer.onnx`` next to this script: a 2-layer transformer
encoder (pre-norm) with a dynamic sequence length and fixed-seed random
weights, and prints its path.

    ids [1, S] int64 → Gather(embedding [V, D]) → x [1, S, D]
    per layer:
      x = x + MatMul(attention(LayerNormalization(x)), Wo) + bo
          attention: q, k, v = MatMul(·, W) + b, Reshape [0, 0, H, D/H],
          Transpose → [1, H, S, D/H]; Softmax(q·kᵀ / √(D/H)) · v,
          Transpose, Reshape [0, 0, D]
      x = x + MatMul(GELU(MatMul(LayerNormalization(x), W1) + b1), W2) + b2
          GELU(h) = h · 0.5 · (1 + Erf(h / √2))
    → LayerNormalization → hidden [1, S, D]

The sequence length is symbolic ("S"): ``from_onnx(path, shape={"ids": (1, None)})``
keeps it ``?`` and the model compiles once for the VM.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization
SEED = 0


def make_transformer(
    layers: int = 2, d_model: int = 64, heads: int = 4, d_ff: int = 256, vocab: int = 1000,
    seed: int = SEED, shapes_at_run_time: bool = False,
) -> onnx.ModelProto:
    """The encoder as a checked ``ModelProto``. With ``shapes_at_run_time``
    the heads' Reshape shapes are computed from the tensor's ``Shape`` (a
    ``Gather`` of its batch and length, ``Unsqueeze``, ``Concat`` with the
    constant sizes), as PyTorch's exporter writes them, instead of constants
    with ``0`` copies."""
    if d_model % heads:
        raise ValueError(f"d_model = {d_model} is not a multiple of heads = {heads}")
    rng = np.random.default_rng(seed)
    head = d_model // heads
    initializers: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def const(name: str, values: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(values, name))
        return name

    def weight(name: str, *shape: int, scale: float | None = None) -> str:
        scale = 1.0 / np.sqrt(shape[0]) if scale is None else scale
        return const(name, (rng.standard_normal(shape) * scale).astype(np.float32))

    def node(op: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def linear(x: str, name: str, n_in: int, n_out: int) -> str:
        y = node("MatMul", [x, weight(f"{name}.weight", n_in, n_out)], f"{name}.matmul")
        return node("Add", [y, weight(f"{name}.bias", n_out, scale=0.1)], name)

    def layer_norm(x: str, name: str) -> str:
        gamma = const(f"{name}.weight", (1 + 0.1 * rng.standard_normal(d_model)).astype(np.float32))
        beta = weight(f"{name}.bias", d_model, scale=0.1)
        return node("LayerNormalization", [x, gamma, beta], name, axis=-1, epsilon=1e-5)

    def reshape(x: str, sizes: list[int], name: str) -> str:
        """``x`` [B, S, ...] reshaped to [B, S, *sizes]."""
        if not shapes_at_run_time:
            return node("Reshape", [x, const(f"{name}.shape", np.array([0, 0, *sizes], np.int64))], name)
        shape = node("Shape", [x], f"{name}.input_shape")
        lead = node("Slice", [shape, const(f"{name}.start", np.array([0], np.int64)),
                              const(f"{name}.end", np.array([2], np.int64))], f"{name}.lead")
        rest = const(f"{name}.sizes", np.array(sizes, np.int64))
        return node("Reshape", [x, node("Concat", [lead, rest], f"{name}.shape", axis=0)], name)

    scale = const("attention.scale", np.array(1.0 / np.sqrt(head), np.float32))
    half = const("gelu.half", np.array(0.5, np.float32))
    one = const("gelu.one", np.array(1.0, np.float32))
    sqrt2 = const("gelu.sqrt2", np.array(np.sqrt(2.0), np.float32))

    x = node("Gather", [weight("embedding", vocab, d_model, scale=1.0), "ids"], "embed", axis=0)
    for i in range(layers):
        p = f"layer{i}"
        h = layer_norm(x, f"{p}.ln1")
        qkv = {}
        for part, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            y = linear(h, f"{p}.{part}", d_model, d_model)
            y = reshape(y, [heads, head], f"{p}.{part}.heads")
            qkv[part] = node("Transpose", [y], f"{p}.{part}.t", perm=perm)
        scores = node("MatMul", [qkv["q"], qkv["k"]], f"{p}.scores")
        scores = node("Mul", [scores, scale], f"{p}.scaled")
        probs = node("Softmax", [scores], f"{p}.probs", axis=-1)
        ctx = node("MatMul", [probs, qkv["v"]], f"{p}.context")
        ctx = node("Transpose", [ctx], f"{p}.context.t", perm=[0, 2, 1, 3])
        ctx = reshape(ctx, [d_model], f"{p}.context.merged")
        x = node("Add", [x, linear(ctx, f"{p}.out", d_model, d_model)], f"{p}.residual1")
        h = linear(layer_norm(x, f"{p}.ln2"), f"{p}.ff1", d_model, d_ff)
        erf = node("Erf", [node("Div", [h, sqrt2], f"{p}.gelu.div")], f"{p}.gelu.erf")
        gate = node("Mul", [node("Add", [erf, one], f"{p}.gelu.add"), half], f"{p}.gelu.gate")
        h = node("Mul", [h, gate], f"{p}.gelu")
        x = node("Add", [x, linear(h, f"{p}.ff2", d_ff, d_model)], f"{p}.residual2")
    out = layer_norm(x, "final_ln")
    nodes.append(helper.make_node("Identity", [out], ["hidden"], name="hidden"))
    graph = helper.make_graph(
        nodes,
        "transformer",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "S"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, "S", d_model])],
        initializers,
    )
    model = helper.make_model(
        graph, producer_name="xtvm-examples", opset_imports=[helper.make_opsetid("", OPSET)]
    )
    onnx.checker.check_model(model)
    return model


def main() -> Path:
    import argparse

    parser = argparse.ArgumentParser(description="write the example transformer encoder as ONNX")
    parser.add_argument(
        "--output", type=Path, default=Path(__file__).resolve().parent / "transformer.onnx"
    )
    path = parser.parse_args().output
    onnx.save(make_transformer(), path)
    print(path)
    return path


if __name__ == "__main__":
    main()
