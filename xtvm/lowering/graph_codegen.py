"""Graph executor codegen: the lowered graph function becomes TVM's graph JSON
plus a parameter dict, and leaves the module (TVM's GraphExecutorCodegen).

Input: a module whose ``func.func @main`` holds only ``relay.const``,
``relay.call_lowered``, ``relay.tuple``/``relay.tuple_get`` and
``func.return`` (the output of ``convert-relay-to-tir``), or the same with
explicit memory (``memory-manifest-alloc``, ``memory-plan``), next to the
``tir.prim_func`` kernels it calls.
Output: the JSON described in ``docs/abi.md`` (a ``null`` node per input and
constant, a ``tvm_op`` node per kernel call, and the static memory plan of
:func:`xtvm.passes.memory.storage_plan`: storage ids that non-overlapping
lifetimes share, and offsets into one arena), the constants by name, and the
module with the graph function erased, ready for ``convert-tir-to-llvm``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import DiagnosticException

from xtvm.dialects.memory import AllocStorageOp, AllocTensorOp, InvokeKernelOp, KillOp
from xtvm.dialects.relay import CallLoweredOp, ConstOp, TupleGetOp, TupleOp
from xtvm.dtypes import dtype_name
from xtvm.passes.memory import storage_plan
from xtvm.constants import numpy_from_const


class GraphCodegenError(DiagnosticException):
    """The graph function holds something the graph executor cannot run."""


@dataclass
class GraphArtifact:
    """What the graph executor needs besides the kernels."""

    graph_json: str
    params: dict[str, np.ndarray] = field(default_factory=dict)
    arena_bytes: int = 0
    """Bytes of the planned arena of kernel outputs, inputs and constants."""
    naive_bytes: int = 0
    """Bytes of one buffer per tensor: what planning saves against."""
    intermediate_arena_bytes: int = 0
    """Bytes the kernel outputs alone take in the planned arena."""
    intermediate_bytes: int = 0
    """Sum of the kernel outputs' sizes (one buffer each)."""


def arg_name(fn: func.FuncOp, index: int, default: str) -> str:
    attrs = fn.arg_attrs.data[index].data if fn.arg_attrs is not None else {}
    name = attrs.get("relay.name")
    return name.data if isinstance(name, StringAttr) else default


def graph_codegen(module: ModuleOp, entry: str = "main") -> GraphArtifact:
    """Build the graph JSON of ``@entry`` and erase every graph function."""
    fn = next(
        (op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry),
        None,
    )
    if fn is None:
        raise GraphCodegenError(f"graph codegen: no func.func @{entry} in the module")

    nodes: list[dict] = []
    shapes: list[list[int]] = []
    dtypes: list[str] = []
    entries: dict[SSAValue, list[int]] = {}  # value -> [node id, output index, version]
    entry_values: list[SSAValue] = []  # graph entry index -> the value it holds
    tuples: dict[SSAValue, list[SSAValue]] = {}
    params: dict[str, np.ndarray] = {}
    arg_nodes: list[int] = []

    def add_node(node: dict, outputs: list[SSAValue]) -> None:
        nid = len(nodes)
        nodes.append(node)
        for i, value in enumerate(outputs):
            ty = value.type
            assert isinstance(ty, TensorType)
            shapes.append(list(ty.get_shape()))
            dtypes.append(dtype_name(ty.element_type))
            entries[value] = [nid, i, 0]
            entry_values.append(value)

    for i, arg in enumerate(fn.args):
        name = arg_name(fn, i, f"input{i}")
        arg_nodes.append(len(nodes))
        add_node({"op": "null", "name": name, "inputs": []}, [arg])

    def flat(values) -> list[SSAValue]:
        out: list[SSAValue] = []
        for v in values:
            out += flat(tuples[v]) if v in tuples else [v]
        return out

    for op in fn.body.block.ops:
        if isinstance(op, ConstOp):
            name = f"p{len(params)}"
            params[name] = numpy_from_const(op)
            arg_nodes.append(len(nodes))
            add_node({"op": "null", "name": name, "inputs": []}, [op.result])
        elif isinstance(op, CallLoweredOp | InvokeKernelOp):
            inputs = flat(op.args if isinstance(op, CallLoweredOp) else op.inputs)
            outputs = list(op.res if isinstance(op, CallLoweredOp) else op.outputs)
            callee = op.callee.string_value()
            add_node(
                {
                    "op": "tvm_op",
                    "name": callee,
                    "attrs": {
                        "func_name": callee,
                        "num_inputs": str(len(inputs)),
                        "num_outputs": str(len(outputs)),
                        "flatten_data": "0",
                    },
                    "inputs": [entries[v] for v in inputs],
                },
                outputs,
            )
        elif isinstance(op, AllocStorageOp | AllocTensorOp | KillOp):
            continue  # explicit memory: the plan below places every entry
        elif isinstance(op, TupleOp):
            tuples[op.result] = list(op.fields)
        elif isinstance(op, TupleGetOp):
            fields = tuples[op.tuple]
            entries[op.result] = entries[flat([fields[op.attrs["index"]]])[0]]
        elif isinstance(op, func.ReturnOp):
            heads = [entries[v] for v in flat(op.arguments)]
        else:
            raise GraphCodegenError(
                f"graph codegen: @{entry} still holds '{op.name}'; run convert-relay-to-tir "
                f"first. The op:\n{op}"
            )

    plan = storage_plan(fn)
    graph = {
        "nodes": nodes,
        "arg_nodes": arg_nodes,
        "heads": heads,
        "node_row_ptr": _row_ptr(nodes),
        "attrs": {
            "shape": ["list_shape", shapes],
            "dltype": ["list_str", dtypes],
            "storage_id": ["list_int", [plan.storage_ids[v] for v in entry_values]],
            "storage_offset": ["list_int", [plan.offsets[v] for v in entry_values]],
        },
    }
    for op in list(module.ops):
        if isinstance(op, func.FuncOp):
            module.body.block.erase_op(op)
    return GraphArtifact(
        json.dumps(graph),
        params,
        plan.arena_bytes,
        plan.naive_bytes,
        plan.intermediate_arena_bytes,
        plan.intermediate_bytes,
    )


def _row_ptr(nodes: list[dict]) -> list[int]:
    ptr = [0]
    for node in nodes:
        ptr.append(ptr[-1] + int(node.get("attrs", {}).get("num_outputs", "1")))
    return ptr
