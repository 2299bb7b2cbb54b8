"""Single-node ONNX models for the converter tests: one node, its graph
inputs fed at run time, its constant inputs as initializers, and output
types from ONNX shape inference (a float scalar where ONNX rejects the node,
for the tests of import errors)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import helper
from onnx_testing import init, make_model, tensor

RNG = np.random.default_rng(0)


def randn(*shape: int, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def node_model(
    op_type: str,
    node_inputs: Sequence[str],
    feeds: Mapping[str, np.ndarray],
    inits: Mapping[str, np.ndarray] | None = None,
    outputs: Sequence[str] = ("y",),
    opset: int = 13,
    name: str = "n",
    **attrs,
) -> onnx.ModelProto:
    """A model of one ``op_type`` node named ``name`` reading ``node_inputs``
    (``""`` for an absent optional input): the names in ``feeds`` are graph
    inputs of the feeds' types, those in ``inits`` initializers."""
    node = helper.make_node(op_type, list(node_inputs), list(outputs), name=name, **attrs)
    inputs = [
        tensor(n, v.shape, helper.np_dtype_to_tensor_dtype(v.dtype)) for n, v in feeds.items()
    ]
    initializers = [init(n, v) for n, v in (inits or {}).items()]
    model = make_model(
        [node], inputs, [onnx.ValueInfoProto(name=o) for o in outputs], initializers, opset
    )
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output
    except onnx.shape_inference.InferenceError:
        inferred = model.graph.output  # a node ONNX rejects (the error tests)
    typed = [o if o.type.tensor_type.HasField("shape") else tensor(o.name, []) for o in inferred]
    del model.graph.output[:]
    model.graph.output.extend(typed)
    return model
