"""The graph executor: runs a TVM graph JSON over a module's kernels (TVM's `graph_executor`).

    gmod = graph_executor.create(graph_json, lib, cpu(0))   # or factory["default"](cpu(0))
    gmod.set_input("x", data)          # or gmod["set_input"](0, data)
    gmod.run()
    out = gmod.get_output(0).numpy()

At creation the executor

* places every data entry: one aligned buffer per `storage_id` (sized for
  its largest entry) or, when the graph has a `storage_offset` attribute, one
  arena with each entry at its byte offset;
* copies the library's parameters (metadata `params`) into their entries;
  the remaining `arg_nodes` are the graph's inputs, in order;
* binds every `tvm_op` node to its kernel with its input and output entries,
  so `run()` is a loop of native calls with no argument conversion.

A `__nop` node (a reshape) is free when its output shares its input's storage
(same storage id, or same offset in the arena), as memory planning arranges;
otherwise `run()` copies the bytes. A `__nop` node with several inputs (a
concatenation whose inputs its producers wrote in place,
`memory-concat-in-place`) must find them back to back in its output, in
order; it runs nothing. `XTVM_NUM_THREADS` is read at creation and
passed to the library's thread pool, if it has one (see `threads`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xtvm.runtime import packing, threads
from xtvm.runtime.allocator import keep_heap_pages
from xtvm.runtime.base import XTVMError
from xtvm.runtime.metadata import load_param_dict
from xtvm.runtime.module import Module
from xtvm.runtime.ndarray import ALIGNMENT, Device, NDArray, alias, dtype_name, empty
from xtvm.runtime.packed_func import KernelFunc, PackedFunc, PyFunc


@dataclass(frozen=True)
class _Node:
    op: str
    name: str
    func_name: str
    inputs: list[int]  # entry ids
    outputs: list[int]  # entry ids


@dataclass(frozen=True)
class _Graph:
    nodes: list[_Node]
    arg_nodes: list[int]
    outputs: list[int]  # entry ids of the heads
    shapes: list[tuple[int, ...]]
    dtypes: list[str]
    storage_ids: list[int]
    storage_offsets: list[int] | None

    def nbytes(self, entry: int) -> int:
        return packing.nbytes(self.shapes[entry], self.dtypes[entry])


def _fail(message: str) -> XTVMError:
    return XTVMError(f"invalid graph JSON: {message}")


def _check_in_place(name: str, inputs: Sequence[NDArray], out: NDArray) -> None:
    """Raise unless ``inputs`` lie back to back, in order, at the start of
    ``out`` and fill it (a multi-input ``__nop``: nothing to copy)."""
    at = out.data_ptr
    for k, value in enumerate(inputs):
        if value.data_ptr != at:
            raise _fail(
                f"__nop node '{name}' has {len(inputs)} inputs, which must lie back to back "
                f"in its output (storage_offset); input {k} is at byte "
                f"{value.data_ptr - out.data_ptr} of it, expected {at - out.data_ptr}"
            )
        at += value.nbytes
    if at != out.data_ptr + out.nbytes:
        raise _fail(
            f"__nop node '{name}': its inputs hold {at - out.data_ptr} bytes, its output "
            f"{out.nbytes}"
        )


def _attr_list(attrs: dict[str, Any], key: str, kind: str, count: int, required: bool) -> Any:
    value = attrs.get(key)
    if value is None:
        if required:
            raise _fail(f"attrs has no '{key}'")
        return None
    if not (isinstance(value, list) and len(value) == 2 and value[0] == kind):
        raise _fail(f"attrs '{key}' must be [\"{kind}\", [...]]")
    if not isinstance(value[1], list) or len(value[1]) != count:
        raise _fail(f"attrs '{key}' must list {count} entries (one per node output)")
    return value[1]


def _parse(graph_json: str) -> _Graph:
    try:
        return _parse_graph(graph_json)
    except (AttributeError, IndexError, TypeError, ValueError) as err:
        raise _fail(f"{type(err).__name__}: {err}") from None


def _parse_graph(graph_json: str) -> _Graph:
    try:
        graph = json.loads(graph_json)
        raw_nodes, attrs = graph["nodes"], graph["attrs"]
        arg_nodes, heads = list(graph["arg_nodes"]), list(graph["heads"])
    except (TypeError, json.JSONDecodeError) as err:
        raise _fail(str(err)) from None
    except KeyError as err:
        raise _fail(f"missing key {err}") from None
    row_ptr = graph.get("node_row_ptr")
    if row_ptr is None:
        row_ptr = [0]
        for node in raw_nodes:
            outs = int(node.get("attrs", {}).get("num_outputs", 1))
            row_ptr.append(row_ptr[-1] + outs)
    if len(row_ptr) != len(raw_nodes) + 1:
        raise _fail(f"node_row_ptr has {len(row_ptr)} items for {len(raw_nodes)} nodes")
    count = row_ptr[-1]

    def entry(ref: Any, where: str) -> int:
        if not (isinstance(ref, list) and len(ref) >= 2 and 0 <= ref[0] < len(raw_nodes)):
            raise _fail(f"{where}: bad entry reference {ref!r}")
        node_id, index = ref[0], ref[1]
        if not 0 <= index < row_ptr[node_id + 1] - row_ptr[node_id]:
            raise _fail(f"{where}: node {node_id} has no output {index}")
        return row_ptr[node_id] + index

    nodes = []
    for nid, raw in enumerate(raw_nodes):
        name, op = raw.get("name", f"node{nid}"), raw.get("op")
        node_attrs = raw.get("attrs", {})
        inputs = [entry(ref, f"node '{name}'") for ref in raw.get("inputs", [])]
        if op == "tvm_op":
            if "func_name" not in node_attrs:
                raise _fail(f"node '{name}' has no func_name")
            declared = node_attrs.get("num_inputs")
            if declared is not None and int(declared) != len(inputs):
                raise _fail(f"node '{name}' declares {declared} inputs but lists {len(inputs)}")
        elif op != "null":
            raise _fail(f"node '{name}' has op '{op}'; expected 'null' or 'tvm_op'")
        outputs = list(range(row_ptr[nid], row_ptr[nid + 1]))
        nodes.append(_Node(op, name, node_attrs.get("func_name", ""), inputs, outputs))
    for nid in arg_nodes:
        if not (0 <= nid < len(nodes)) or nodes[nid].op != "null":
            raise _fail(f"arg_nodes entry {nid} is not a 'null' node")
    shapes = _attr_list(attrs, "shape", "list_shape", count, True)
    dtypes = _attr_list(attrs, "dltype", "list_str", count, True)
    try:
        dtypes = [dtype_name(d) for d in dtypes]
    except XTVMError as err:
        raise _fail(str(err)) from None
    storage_ids = _attr_list(attrs, "storage_id", "list_int", count, True)
    offsets = _attr_list(attrs, "storage_offset", "list_int", count, False)
    if any(sid < 0 for sid in storage_ids) or (offsets and any(o < 0 for o in offsets)):
        raise _fail("storage ids and offsets must be non-negative")
    return _Graph(
        nodes,
        arg_nodes,
        [entry(ref, "heads") for ref in heads],
        [tuple(int(d) for d in s) for s in shapes],
        dtypes,
        storage_ids,
        offsets,
    )


def _describe(shape: Sequence[int], dtype: str) -> str:
    return f"{tuple(shape)} {dtype}"


class GraphModule(Module):
    """A graph executor instance (TVM's `GraphExecutor` and its Python wrapper).

    Every method is also a PackedFunc: `gmod["run"]()` is `gmod.run()`.

    Thread safety: an executor holds one set of inputs, intermediates and
    outputs, so it runs one inference at a time on one thread. It belongs to
    the first thread that feeds, runs or reads it; another thread using it
    gets an `XTVMError`. Executors of one factory are independent: create one
    per thread (`factory["default"](dev)`).
    """

    _PACKED = (
        "set_input",
        "run",
        "get_output",
        "get_input",
        "get_num_outputs",
        "get_num_inputs",
        "get_input_index",
        "get_input_info",
        "load_params",
    )

    def __init__(self, graph_json: str, lib: Module, device: Device):
        super().__init__("GraphExecutor")
        if not isinstance(device, Device):
            raise XTVMError(f"graph executor: expected a Device, got {type(device).__name__}")
        self.device = device
        keep_heap_pages()  # the kernels' large buffers, before the first run
        self._lib = lib
        self._graph = graph = _parse(graph_json)
        self._entries = self._place_entries(graph)
        params: dict[str, np.ndarray] = getattr(lib, "params", {})
        self._param_entries: dict[str, int] = {}
        self._input_entries: dict[str, int] = {}
        for nid in graph.arg_nodes:
            node = graph.nodes[nid]
            if node.name in self._input_entries or node.name in self._param_entries:
                raise _fail(f"two arg_nodes are named '{node.name}'")
            if node.name in params:
                self._bind_param(node.name, node.outputs[0], params[node.name])
            else:
                self._input_entries[node.name] = node.outputs[0]
        self._input_names = list(self._input_entries)
        entry = getattr(lib, "header", {}).get("entry") or {}
        names = [t.get("name") for t in entry.get("outputs", [])]
        self.output_names: list[str] = (
            names if len(names) == len(graph.outputs) else [f"output{i}" for i in range(len(graph.outputs))]
        )
        """The model's output names (from the library's metadata, else ``output<i>``)."""
        self._owner: int | None = None
        self._ops = [self._make_op(node) for node in graph.nodes if node.op == "tvm_op"]
        self._ops = [op for op in self._ops if op is not None]
        for module in [lib, *lib.imported_modules]:
            threads.apply(module)

    @property
    def module(self) -> GraphModule:
        """This module (TVM's `GraphModule.module`, e.g. for `time_evaluator("run", dev)`)."""
        return self

    def _place_entries(self, graph: _Graph) -> list[NDArray]:
        count = len(graph.shapes)
        if graph.storage_offsets is not None:
            ends = [graph.storage_offsets[e] + graph.nbytes(e) for e in range(count)]
            arena = empty((max(ends, default=0) + ALIGNMENT,), "uint8", self.device)
            places = [(arena, graph.storage_offsets[e]) for e in range(count)]
        else:
            sizes: dict[int, int] = {}
            for e, sid in enumerate(graph.storage_ids):
                sizes[sid] = max(sizes.get(sid, 0), graph.nbytes(e))
            pools = {sid: empty((size,), "uint8", self.device) for sid, size in sizes.items()}
            places = [(pools[sid], 0) for sid in graph.storage_ids]
        try:
            return [
                alias(base, offset, graph.shapes[e], graph.dtypes[e])
                for e, (base, offset) in enumerate(places)
            ]
        except XTVMError as err:
            raise _fail(f"storage: {err}") from None

    def _bind_param(self, name: str, entry: int, value: np.ndarray) -> None:
        target = self._entries[entry]
        if value.shape != target.shape or value.dtype != np.dtype(target.dtype):
            raise XTVMError(
                f"parameter '{name}': the graph expects {_describe(target.shape, target.dtype)}, "
                f"the library holds {_describe(value.shape, value.dtype.name)}"
            )
        target._store(value)
        self._param_entries[name] = entry

    def _make_op(self, node: _Node) -> Callable[[], None] | None:
        args = [self._entries[e] for e in node.inputs + node.outputs]
        if node.func_name == "__nop":
            if len(node.inputs) > 1 and len(node.outputs) == 1:
                _check_in_place(node.name, args[:-1], args[-1])
                return None
            if len(node.inputs) != 1 or len(node.outputs) != 1:
                raise _fail(f"__nop node '{node.name}' must have one input and one output")
            src, dst = args
            if src.data_ptr == dst.data_ptr:
                return None
            if src.nbytes != dst.nbytes:
                raise _fail(f"__nop node '{node.name}' changes the size of its tensor")
            src_bytes = src._array.reshape(-1).view(np.uint8)[: src.nbytes]
            dst_bytes = dst._array.reshape(-1).view(np.uint8)[: dst.nbytes]
            return lambda: np.copyto(dst_bytes, src_bytes)
        if not self._lib.implements_function(node.func_name, query_imports=True):
            names = ", ".join(sorted(self._lib.function_names()))
            raise XTVMError(
                f"graph node '{node.name}' calls '{node.func_name}', which the library does "
                f"not define; available: {names}"
            )
        func = self._lib.get_function(node.func_name, query_imports=True)
        if isinstance(func, KernelFunc):
            return func.bind(args)
        return lambda: func(*args)

    def _claim(self, what: str) -> None:
        """Bind the executor to the first thread that feeds, runs or reads it;
        another thread using it afterwards is an error (its inputs, arena and
        outputs would be shared: one inference at a time, on one thread)."""
        me = threading.get_ident()
        if self._owner is None:
            self._owner = me
        elif self._owner != me:
            raise XTVMError(
                f"{what}: this graph executor belongs to another thread; executors are not "
                "shared between threads (each holds one set of inputs and outputs): create "
                "one per thread with factory['default'](dev)"
            )

    def _lookup(self, name: str) -> PackedFunc | None:
        return PyFunc(getattr(self, name), name) if name in self._PACKED else None

    def function_names(self) -> list[str]:
        return list(self._PACKED)

    def _entry_of(self, key: int | str, what: str) -> tuple[str, int]:
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= key < len(self._input_names):
                raise XTVMError(
                    f"{what}: input index {key} out of range; the graph has "
                    f"{len(self._input_names)} input(s): {', '.join(self._input_names)}"
                )
            name = self._input_names[key]
            return name, self._input_entries[name]
        if isinstance(key, str):
            entry = self._input_entries.get(key, self._param_entries.get(key))
            if entry is not None:
                return key, entry
            raise XTVMError(
                f"{what}: the graph has no input named '{key}'; inputs: "
                f"{', '.join(self._input_names) or 'none'}"
            )
        raise XTVMError(f"{what}: an input is named by index or name, got {type(key).__name__}")

    def set_input(self, key: int | str | None = None, value: Any = None, **params: Any) -> None:
        """Copy `value` into input `key` (index or name), and each `params` item by name.

        NDArrays and NumPy arrays must have the input's exact shape and dtype;
        lists and scalars are converted to its dtype. Parameters may be
        overwritten by name.
        """
        self._claim("set_input")
        if key is not None:
            self._copy_in(key, value)
        for name, val in params.items():
            self._copy_in(name, val)

    def _copy_in(self, key: int | str, value: Any) -> None:
        name, entry = self._entry_of(key, "set_input")
        target = self._entries[entry]
        if isinstance(value, NDArray):
            given = value.view()
        elif isinstance(value, np.ndarray):
            given = value
        elif value is None:
            raise XTVMError(f"set_input: no value given for input '{name}'")
        else:
            try:
                given = np.asarray(value, dtype=target.dtype)
            except (TypeError, ValueError, OverflowError) as err:
                raise XTVMError(f"set_input: input '{name}': {err}") from None
        if given.shape != target.shape or given.dtype != np.dtype(target.dtype):
            raise XTVMError(
                f"set_input: input '{name}' expects {_describe(target.shape, target.dtype)}, "
                f"got {_describe(given.shape, given.dtype.name)}"
            )
        target._store(given)

    def run(self, **inputs: Any) -> None:
        """Execute the graph (after setting `inputs`, if any, by name)."""
        self._claim("run")
        if inputs:
            self.set_input(**inputs)
        for op in self._ops:
            op()

    def get_output(self, index: int | str, out: NDArray | None = None) -> NDArray:
        """Output `index` (or the output of that name): the executor's own
        array (rewritten by each run), or a copy in `out`."""
        self._claim("get_output")
        if isinstance(index, str):
            if index not in self.output_names:
                raise XTVMError(
                    f"get_output: the graph has no output named '{index}'; outputs: "
                    f"{', '.join(self.output_names)}"
                )
            index = self.output_names.index(index)
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise XTVMError(
                f"get_output: an output is named by index or name, got {type(index).__name__}"
            )
        if not 0 <= index < len(self._graph.outputs):
            raise XTVMError(
                f"get_output: index {index} out of range; the graph has "
                f"{len(self._graph.outputs)} output(s)"
            )
        result = self._entries[self._graph.outputs[index]]
        return _copy_to(out, result, "get_output") if out is not None else result

    def get_input(self, key: int | str, out: NDArray | None = None) -> NDArray:
        """The array of input `key` (index or name; parameters by name), or a copy in `out`."""
        self._claim("get_input")
        _, entry = self._entry_of(key, "get_input")
        result = self._entries[entry]
        return _copy_to(out, result, "get_input") if out is not None else result

    def get_num_outputs(self) -> int:
        return len(self._graph.outputs)

    def get_num_inputs(self) -> int:
        """The number of inputs, parameters excluded."""
        return len(self._input_names)

    def get_input_index(self, name: str) -> int:
        """The index of input `name`, or -1 if there is none (as TVM)."""
        return self._input_names.index(name) if name in self._input_entries else -1

    def get_input_info(self) -> tuple[dict[str, tuple[int, ...]], dict[str, str]]:
        """`(shapes, dtypes)`: two dicts keyed by input name, parameters excluded."""
        entries = [(name, self._entries[e]) for name, e in self._input_entries.items()]
        return {n: a.shape for n, a in entries}, {n: a.dtype for n, a in entries}

    def load_params(self, param_bytes: bytes | bytearray) -> None:
        """Set inputs and parameters by name from `runtime.save_param_dict` bytes."""
        self.set_input(**load_param_dict(param_bytes))


def _copy_to(out: Any, result: NDArray, what: str) -> NDArray:
    """``out.copyfrom(result)``, when ``out`` is an NDArray."""
    if not isinstance(out, NDArray):
        raise XTVMError(f"{what}: 'out' must be an NDArray, got {type(out).__name__}")
    return out.copyfrom(result)


def create(graph_json: str, lib: Module, device: Device | Sequence[Device]) -> GraphModule:
    """A graph executor running `graph_json` with `lib`'s kernels on `device` (TVM's `create`).

    Parameters come from `lib`'s metadata; a list of devices must hold one.
    """
    if isinstance(device, (list, tuple)):
        if len(device) != 1:
            raise XTVMError(f"graph executor: expected one device, got {len(device)}")
        device = device[0]
    if not isinstance(lib, Module):
        raise XTVMError(f"graph executor: expected a Module, got {type(lib).__name__}")
    return GraphModule(graph_json, lib, device)
