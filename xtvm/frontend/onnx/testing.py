"""Real-architecture test models: the "light" model zoo the ``onnx``
package ships, and a way to give them random weights.

The light models (``light_resnet50``, ``light_squeezenet``, ``light_vgg19``,
``light_bvlc_alexnet``, ...) are the zoo's architectures at opset 9 whose
weights are ``ConstantOfShape`` nodes filling every tensor with 0.02 (and a
few small initializers). A network of equal weights computes almost nothing
a numerical test could get wrong, so :func:`randomize_weights` makes a copy
with seeded random weights of the right scale::

    model = randomize_weights(onnx.load(light_model_path("squeezenet")), seed=0)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

LIGHT_MODELS: tuple[str, ...] = ("resnet50", "squeezenet", "vgg19", "bvlc_alexnet")
"""The light models whose every op the frontend imports."""


def light_model_path(name: str) -> Path:
    """The path of ``light_<name>.onnx`` in the installed ``onnx`` package."""
    root = Path(os.path.dirname(onnx.__file__)) / "backend" / "test" / "data" / "light"
    path = root / f"light_{name}.onnx"
    if not path.is_file():
        known = sorted(p.stem.removeprefix("light_") for p in root.glob("light_*.onnx"))
        raise FileNotFoundError(f"no light model '{name}' (known: {', '.join(known)})")
    return path


def _consumers(graph: onnx.GraphProto) -> dict[str, tuple[onnx.NodeProto, int]]:
    """Each value name → (node, input index) of its first consumer."""
    consumers: dict[str, tuple[onnx.NodeProto, int]] = {}
    for node in graph.node:
        for i, name in enumerate(node.input):
            consumers.setdefault(name, (node, i))
    return consumers


def _random_weight(
    rng: np.random.Generator, shape: tuple[int, ...], use: tuple[onnx.NodeProto, int] | None
) -> np.ndarray:
    """A random float32 weight for ``use``, its (consumer, input index):

    * ``Conv`` ``W``, ``Gemm`` ``B`` and ``MatMul`` ``B``: He-scaled normal,
      ``std = sqrt(2 / fan_in)``, so activations keep their scale from layer
      to layer;
    * ``BatchNormalization`` ``scale`` and ``var``: uniform in [0.5, 1.5]
      (positive, as trained statistics are);
    * anything else (biases, BN ``B`` and ``mean``): normal, ``std = 0.1``.
    """
    op_type, index = (use[0].op_type, use[1]) if use else ("", -1)
    fan_in = 0
    if op_type == "Conv" and index == 1:
        fan_in = int(np.prod(shape[1:]))
    elif op_type == "Gemm" and index == 1 and len(shape) == 2:
        trans_b = any(a.name == "transB" and a.i for a in use[0].attribute)  # type: ignore[index]
        fan_in = shape[1] if trans_b else shape[0]
    elif op_type == "MatMul" and index == 1 and len(shape) >= 2:
        fan_in = shape[-2]
    elif op_type == "BatchNormalization" and index in (1, 4):
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    std = np.sqrt(2.0 / fan_in) if fan_in > 0 else 0.1
    return (rng.standard_normal(shape) * std).astype(np.float32)


def _is_float_constant_of_shape(node: onnx.NodeProto) -> bool:
    if node.op_type != "ConstantOfShape":
        return False
    values = [a.t for a in node.attribute if a.name == "value"]
    return not values or values[0].data_type == onnx.TensorProto.FLOAT


def randomize_weights(model: onnx.ModelProto, seed: int = 0) -> onnx.ModelProto:
    """A copy of ``model`` whose weights are seeded random initializers.

    Every float32 ``ConstantOfShape`` node with a constant shape (in the
    light models, each is a weight) becomes an initializer of that shape, and
    every float initializer is redrawn; the values are chosen by how the
    weight is used (see :func:`_random_weight`). Shape initializers left
    unused are dropped. For models below IR version 4, whose initializers
    must also be graph inputs, the inputs follow.
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    rng = np.random.default_rng(seed)
    consumers = _consumers(graph)
    old = {t.name: numpy_helper.to_array(t) for t in graph.initializer}

    weights: dict[str, np.ndarray] = {}
    kept_nodes = []
    for node in graph.node:
        if _is_float_constant_of_shape(node) and node.input[0] in old:
            shape = tuple(int(d) for d in old[node.input[0]])
            use = consumers.get(node.output[0])
            weights[node.output[0]] = _random_weight(rng, shape, use)
        else:
            kept_nodes.append(node)
    used = {name for node in kept_nodes for name in node.input} | {o.name for o in graph.output}
    for name, array in old.items():
        if name not in used:
            continue
        if np.issubdtype(array.dtype, np.floating):
            array = _random_weight(rng, array.shape, consumers.get(name)).astype(array.dtype)
        weights[name] = array

    del graph.node[:]
    graph.node.extend(kept_nodes)
    del graph.initializer[:]
    graph.initializer.extend(numpy_helper.from_array(a, name) for name, a in weights.items())
    inputs = [i for i in graph.input if i.name not in old or i.name in weights]
    if model.ir_version < 4:
        listed = {i.name for i in inputs}
        inputs += [
            helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape)
            )
            for name, a in weights.items()
            if name not in listed
        ]
    del graph.input[:]
    graph.input.extend(inputs)
    return model


def expose_logits(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` whose final ``Softmax`` input is a second graph
    output: random weights saturate a classifier's softmax (one class near 1,
    the rest near 0), so comparing the probabilities alone proves little."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    last = graph.node[-1]
    if last.op_type != "Softmax" or last.output[0] != graph.output[0].name:
        raise ValueError(f"{graph.name}: the graph does not end in a Softmax")
    inferred = onnx.shape_inference.infer_shapes(model).graph
    (info,) = [v for v in inferred.value_info if v.name == last.input[0]]
    graph.output.append(info)
    return model
