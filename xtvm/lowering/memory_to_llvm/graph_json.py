"""The graph executor's view of a planned graph function: TVM's graph JSON,
read off the IR (docs/abi.md, "Graph JSON").

Input: ``func.func @main`` in its memory form (``memory-manifest-alloc``,
then ``memory-plan``): ``relay.const``, ``memory.alloc_storage``,
``memory.alloc_tensor``, ``memory.invoke_kernel``, ``memory.kill``,
``relay.tuple``/``relay.tuple_get`` and ``func.return``.

Nothing is planned here. Every kernel output sits where the IR placed it:
storage ``s`` starts at ``workspace_offsets[s]`` of the workspace (one
planned arena is one storage at offset 0), and a tensor at its
``memory.alloc_tensor`` offset within its storage. Graph inputs and
constants, which live for the whole run, follow the workspace in the
executor's arena, in argument and program order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

from xtvm.dialects.memory import (
    DEFAULT_ALIGNMENT,
    AllocStorageOp,
    AllocTensorOp,
    InvokeKernelOp,
    KillOp,
)
from xtvm.dialects.relay import ConstOp, TupleGetOp, TupleOp
from xtvm.dtypes import dtype_name
from xtvm.passes.memory.concat_in_place import IN_PLACE_ATTR
from xtvm.passes.memory.liveness import static_nbytes
from xtvm.passes.memory.planner import align_up


@dataclass
class GraphLayout:
    """Where the graph function's storage lives in one workspace."""

    workspace_offsets: dict[SSAValue, int] = field(default_factory=dict)
    """Byte offset of each ``memory.alloc_storage`` in the workspace."""
    workspace_bytes: int = 0
    """Size of the workspace (every storage, back to back, aligned)."""


def arg_name(fn: func.FuncOp, index: int) -> str:
    """The name of argument ``index`` (``relay.name``), else ``input<index>``."""
    return _name(fn.arg_attrs, index, f"input{index}")


def result_name(fn: func.FuncOp, index: int) -> str:
    """The name of result ``index`` (``relay.name``), else ``output<index>``."""
    return _name(fn.res_attrs, index, f"output{index}")


def _name(attrs, index: int, default: str) -> str:
    if attrs is None or index >= len(attrs.data):
        return default
    name = attrs.data[index].data.get("relay.name")
    return name.data if isinstance(name, StringAttr) else default


def layout_workspace(fn: func.FuncOp, alignment: int = DEFAULT_ALIGNMENT) -> GraphLayout:
    """Lay the function's storages back to back in one workspace, in program
    order (after ``memory-plan`` there is one: the arena, at offset 0)."""
    layout = GraphLayout()
    for op in fn.body.block.ops:
        if isinstance(op, AllocStorageOp):
            offset = align_up(layout.workspace_bytes, max(alignment, op.alignment.value.data))
            layout.workspace_offsets[op.storage] = offset
            layout.workspace_bytes = offset + op.size.value.data
    layout.workspace_bytes = align_up(layout.workspace_bytes, alignment)
    return layout


def flat_values(values, tuples: Mapping[SSAValue, list[SSAValue]]) -> list[SSAValue]:
    """Values with relay tuples replaced by their fields, recursively."""
    out: list[SSAValue] = []
    for v in values:
        out += flat_values(tuples[v], tuples) if v in tuples else [v]
    return out


def returned_values(fn: func.FuncOp) -> list[SSAValue]:
    """The tensors ``@main`` returns, tuples flattened."""
    tuples: dict[SSAValue, list[SSAValue]] = {}
    for op in fn.body.block.ops:
        if isinstance(op, TupleOp):
            tuples[op.result] = list(op.fields)
        elif isinstance(op, TupleGetOp):
            tuples[op.result] = [flat_values([op.tuple], tuples)[op.index.value.data]]
        elif isinstance(op, func.ReturnOp):
            return flat_values(op.arguments, tuples)
    return []


def entry_offsets(fn: func.FuncOp, layout: GraphLayout) -> dict[SSAValue, int]:
    """The byte offset, in the graph executor's arena, of every tensor of the
    planned graph function: kernel outputs where the IR placed them in the
    workspace, then each input and constant after it (64-byte aligned)."""
    offsets: dict[SSAValue, int] = {}
    end = layout.workspace_bytes

    def after_workspace(value: SSAValue) -> None:
        nonlocal end
        offsets[value] = align_up(end, DEFAULT_ALIGNMENT)
        end = offsets[value] + static_nbytes(value, f"'{value.name_hint or value}'")

    for arg in fn.args:
        after_workspace(arg)
    for op in fn.body.block.ops:
        if isinstance(op, ConstOp):
            after_workspace(op.result)
        elif isinstance(op, AllocTensorOp):
            offsets[op.result] = layout.workspace_offsets[op.storage] + op.offset.value.data
    return offsets


def graph_json(
    fn: func.FuncOp, layout: GraphLayout, const_names: Mapping[Operation, str]
) -> str:
    """TVM's graph JSON of the planned graph function (``const_names``: the
    parameter name of each ``relay.const``)."""
    nodes: list[dict] = []
    shapes: list[list[int]] = []
    dtypes: list[str] = []
    offsets: list[int] = []
    entries: dict[SSAValue, list[int]] = {}
    tuples: dict[SSAValue, list[SSAValue]] = {}
    arg_nodes: list[int] = []
    places = entry_offsets(fn, layout)

    def add_node(node: dict, outputs: list[SSAValue]) -> None:
        nid = len(nodes)
        nodes.append(node)
        for i, value in enumerate(outputs):
            ty = value.type
            assert isinstance(ty, TensorType)
            shapes.append(list(ty.get_shape()))
            dtypes.append(dtype_name(ty.element_type))
            offsets.append(places[value])
            entries[value] = [nid, i, 0]

    for i, arg in enumerate(fn.args):
        arg_nodes.append(len(nodes))
        add_node({"op": "null", "name": arg_name(fn, i), "inputs": []}, [arg])
    heads: list[list[int]] = []
    for op in fn.body.block.ops:
        if isinstance(op, ConstOp):
            arg_nodes.append(len(nodes))
            add_node({"op": "null", "name": const_names[op], "inputs": []}, [op.result])
        elif isinstance(op, InvokeKernelOp):
            inputs = flat_values(op.inputs, tuples)
            callee = op.callee.string_value()
            # a concatenation whose inputs lie in its output: TVM's no-op node
            in_place = IN_PLACE_ATTR in op.attributes
            attrs = {
                "func_name": "__nop" if in_place else callee,
                "num_inputs": str(len(inputs)),
                "num_outputs": str(len(op.outputs)),
                "flatten_data": "0",
            }
            node = {"op": "tvm_op", "name": callee, "attrs": attrs}
            node["inputs"] = [entries[v] for v in inputs]
            add_node(node, list(op.outputs))
        elif isinstance(op, TupleOp):
            tuples[op.result] = list(op.fields)
        elif isinstance(op, TupleGetOp):
            tuples[op.result] = [flat_values([op.tuple], tuples)[op.index.value.data]]
        elif isinstance(op, func.ReturnOp):
            heads = [entries[v] for v in flat_values(op.arguments, tuples)]
        else:
            assert isinstance(op, AllocStorageOp | AllocTensorOp | KillOp), op.name
    graph = {
        "nodes": nodes,
        "arg_nodes": arg_nodes,
        "heads": heads,
        "node_row_ptr": _row_ptr(nodes),
        "attrs": {
            "shape": ["list_shape", shapes],
            "dltype": ["list_str", dtypes],
            "storage_id": ["list_int", list(range(len(shapes)))],
            "storage_offset": ["list_int", offsets],
        },
    }
    return json.dumps(graph, separators=(",", ":"))


def _row_ptr(nodes: list[dict]) -> list[int]:
    ptr = [0]
    for node in nodes:
        ptr.append(ptr[-1] + int(node.get("attrs", {}).get("num_outputs", "1")))
    return ptr
