"""xtvm as an ONNX backend (``onnx.backend.base.Backend``).

```python
from xtvm.frontend.onnx.backend import XtvmBackend

rep = XtvmBackend.prepare(model, "CPU")
(y,) = rep.run([x])                      # NumPy arrays, graph-input order
(y,) = XtvmBackend.run_node(node, [x])   # one node, default opset
```

Every result is computed by compiled code: ``from_onnx`` → ``xtvm.build``
(relay passes, relay → tir, tir → LLVM) → the graph executor. Nothing falls
back to NumPy or to onnx's reference evaluator.

Compilation specializes on what the run-time inputs fix:

* *shapes and dtypes*: each graph input keeps the shape and dtype of the
  array given to ``run`` (symbolic dimensions included), so a model runs on
  any input shapes its ops accept;
* *values needed at compile time*: when a converter needs the value of a
  graph input (``Reshape``'s shape, ``Pad``'s pads, ``Tile``'s repeats, a
  ``Clip`` bound), it raises ``OnnxConstantInputRequired`` (see
  ``converter``); the backend then imports again with that input's run-time
  value (``from_onnx(..., input_values=...)``) and remembers the input, so
  later runs specialize on it at once.

Generated code runs in the calling process by default: a crash inside it
(a signal) ends the process, as a crash in any native library would.
``prepare(model, isolate=True)`` runs it in a child process instead
(``xtvm.runtime.isolated``): compilation stays in the caller, each compiled
module is exported to a temporary library that the child loads, and a crash
is an ``IsolatedCrash`` (an ``XTVMError``) naming the model and the signal;
the next run starts a new child. Inputs and outputs then cross a pipe, so
isolation is for untrusted models and fuzzing, not for speed.

Compiled modules live in a process-wide cache keyed by the model's bytes,
the input shapes and dtypes and the specialized values: running the same
model again (or preparing it again) reuses the module. ``prepare`` compiles
eagerly when the model's declared input shapes are static and no input
value is needed, so import and compile errors surface there; otherwise the
first ``run`` compiles.
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.base import Backend, BackendRep

from xtvm.frontend.onnx import strings
from xtvm.frontend.onnx.common import OnnxConstantInputRequired, OnnxImportError
from xtvm.frontend.onnx.importer import check_model, from_onnx
from xtvm.runtime import isolated
from xtvm.runtime.isolated import IsolatedRunner
from xtvm.runtime.module import Module
from xtvm.runtime.ndarray import cpu
from xtvm.runtime.vm import Executable, VirtualMachine

IsolatedCrash = isolated.IsolatedCrash
"""What an isolated run raises when generated code crashes (an ``XTVMError``)."""

_CACHE_SIZE = 64
"""How many compiled modules the process keeps (least recently used go first)."""

@dataclass(frozen=True)
class _Compiled:
    """A compiled model: its graph executor, and for each graph input its
    index among the executor's inputs (None when the compiled graph does
    not read it, e.g. a shape consumed at compile time)."""

    executor: Module
    input_slots: tuple[int | None | tuple[int | None, ...], ...]
    """Per graph input its executor index; for a sequence, one per element."""
    library: Module
    """The built module (``isolate`` exports it for the child)."""
    library_path: list[str] = field(default_factory=list)
    """Where ``library`` was exported (once, when a run is isolated)."""
    output_groups: tuple[int | None, ...] = ()
    """Per graph output: None for a tensor, the element count of a sequence
    (a tuple the executor returns flattened); empty: all tensors."""
    optional_outputs: Mapping[int, bool] = field(default_factory=dict)
    """The graph outputs that are optionals decided at run time (a tuple of
    the presence flag and the fields), each mapped to whether it holds a
    sequence."""


_modules: OrderedDict[tuple, _Compiled] = OrderedDict()


_library_dir: str | None = None
_library_count = itertools.count()


def _exported(compiled: _Compiled) -> str:
    """The path of ``compiled``'s library, exported (once) to a temporary
    directory that lives as long as the process."""
    global _library_dir
    if not compiled.library_path:
        if _library_dir is None:
            _library_dir = tempfile.mkdtemp(prefix="xtvm-isolated-")
            atexit.register(shutil.rmtree, _library_dir, ignore_errors=True)
        path = f"{_library_dir}/model{next(_library_count)}.so"
        compiled.library.export_library(path)
        compiled.library_path.append(path)
    return compiled.library_path[0]


def clear_cache() -> None:
    """Forgets every compiled module (tests use it to measure compilation)."""
    _modules.clear()


def cache_size() -> int:
    """The number of compiled modules the process holds."""
    return len(_modules)


def _value_key(array: np.ndarray) -> tuple:
    return (array.dtype.str, array.shape, array.tobytes())


def _declared_inputs(model: onnx.ModelProto) -> dict[str, tuple[np.dtype, list[int | None]]]:
    """Each graph input's declared dtype and dims (None: a symbolic or
    unknown dim), where the model declares a tensor type."""
    declared = {}
    for value_info in model.graph.input:
        if value_info.type.WhichOneof("value") != "tensor_type":
            continue
        tensor_type = value_info.type.tensor_type
        try:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type))
        except (KeyError, TypeError):
            continue  # a type NumPy lacks (float8, ...): the converters decide
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor_type.shape.dim]
        declared[value_info.name] = (dtype, dims if tensor_type.HasField("shape") else None)
    return declared


def _check_input(name: str, array: np.ndarray, dtype: np.dtype, dims: list[int | None] | None) -> None:
    """An input must have the model's dtype and fit its declared shape:
    compiling for another dtype would silently change the model (a float Div
    on int32 arrays computes integers)."""
    text = dtype == object and array.dtype.kind in "OSU"  # a string tensor: str or bytes
    if array.dtype != dtype and not text:
        raise OnnxImportError(
            f"graph input '{name}' is {dtype.name} in the model, got a {array.dtype.name} array"
        )
    if dims is None:
        return
    shown = "x".join("?" if d is None else str(d) for d in dims) or "scalar"
    if array.ndim != len(dims) or any(d is not None and d != n for d, n in zip(dims, array.shape)):
        raise OnnxImportError(
            f"graph input '{name}' has shape {shown} in the model, got {tuple(array.shape)}"
        )


def _all_nodes(graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """The nodes of ``graph`` and of its subgraphs (``If`` branches, loop
    bodies), so a value computed inside a subgraph traces back too."""
    nodes = []
    for node in graph.node:
        nodes.append(node)
        for attr in node.attribute:
            for sub in [attr.g] if attr.HasField("g") else list(attr.graphs):
                nodes += _all_nodes(sub)
    return nodes


def _node_reads(node: onnx.NodeProto) -> list[str]:
    """What a node reads: its inputs, and the outer values its subgraphs read."""
    from xtvm.frontend.onnx.control import graph_reads

    names = list(node.input)
    for attr in node.attribute:
        for sub in [attr.g] if attr.HasField("g") else list(attr.graphs):
            names += sorted(graph_reads(sub))
    return names


def _optional_inputs(model: onnx.ModelProto) -> set[str]:
    """The graph inputs of optional type (their value may be None: empty)."""
    return {v.name for v in model.graph.input if v.type.WhichOneof("value") == "optional_type"}


def _sequence_inputs(model: onnx.ModelProto) -> dict[str, str]:
    """Each sequence (or optional sequence) graph input's element dtype (NumPy name)."""
    found = {}
    for value_info in model.graph.input:
        ty = value_info.type
        if ty.WhichOneof("value") == "optional_type":
            ty = ty.optional_type.elem_type
        if ty.WhichOneof("value") == "sequence_type":
            element = ty.sequence_type.elem_type.tensor_type.elem_type
            try:
                found[value_info.name] = helper.tensor_dtype_to_np_dtype(element).name
            except (KeyError, TypeError):
                found[value_info.name] = "float32"
    return found


def _output_groups(module: Any) -> tuple[int | None, ...]:
    """Per result of ``@main``: None for a tensor, the field count of a tuple."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import TupleType

    main = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    outputs = main.function_type.outputs.data
    if not any(isinstance(t, TupleType) for t in outputs):
        return ()
    return tuple(len(t.types) if isinstance(t, TupleType) else None for t in outputs)


def _feeds(compiled: _Compiled, arrays: Sequence[Any]) -> list[tuple[int, np.ndarray]]:
    """``(executor input index, array)`` of every input the executor reads;
    a sequence gives one per element."""
    feeds = []
    for value, slot in zip(arrays, compiled.input_slots):
        pairs = zip(slot, value) if isinstance(slot, tuple) else [(slot, value)]
        feeds += [(s, a) for s, a in pairs if s is not None]
    return feeds


def _regroup(compiled: _Compiled, flat: list[np.ndarray]) -> tuple[Any, ...]:
    """The executor's flattened outputs as the graph's: a sequence output a list."""
    if not compiled.output_groups:
        return tuple(flat)
    out: list[Any] = []
    for count in compiled.output_groups:
        if count is None:
            out.append(flat.pop(0))
        else:
            out.append([flat.pop(0) for _ in range(count)])
    for k, holds_sequence in compiled.optional_outputs.items():
        present, *fields = out[k]
        out[k] = (fields if holds_sequence else fields[0]) if bool(present) else None
    return tuple(out)


def _optional_outputs(module: Any, model: onnx.ModelProto) -> dict[int, bool]:
    """The run-time optional results of ``@main`` (the importer lists them),
    each mapped to whether the graph output's optional holds a sequence."""
    from xdsl.dialects import func

    from xtvm.frontend.onnx.common import RUNTIME_OPTIONAL_OUTPUTS

    main = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    listed = main.attributes.get(RUNTIME_OPTIONAL_OUTPUTS)
    found: dict[int, bool] = {}
    for attr in listed.data if listed is not None else ():
        k = attr.value.data
        ty = model.graph.output[k].type
        inner = ty.optional_type.elem_type if ty.WhichOneof("value") == "optional_type" else ty
        found[k] = inner.WhichOneof("value") == "sequence_type"
    return found


class XtvmBackendRep(BackendRep):
    """A prepared model: ``run(inputs)`` compiles (once per distinct input
    signature) and executes it."""

    def __init__(
        self, model: onnx.ModelProto, freeze_params: bool = True, isolate: bool = False
    ) -> None:
        self.model = model
        self.freeze_params = freeze_params
        self.isolate = isolate
        """Whether generated code runs in a child process (module docstring)."""
        self._runner: IsolatedRunner | None = None
        self._test_hook: str | None = None
        """Tests only: passed to ``IsolatedRunner.run`` (``"null-deref"``)."""
        initializers = {t.name for t in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in initializers]
        self.specialized: list[str] = []
        """Graph inputs whose values compiled modules specialize on, in the
        order converters asked for them."""
        self.folded: set[str] = set()
        """The specialized inputs that nodes may fold with, because a
        compile-time value is computed from them."""
        self._digest = hashlib.sha256(model.SerializeToString(deterministic=True)).hexdigest()
        self._declared = _declared_inputs(model)
        self._sequences = _sequence_inputs(model)
        """Sequence graph inputs → their element dtype (NumPy name)."""
        self._optionals = _optional_inputs(model)
        self._string_outputs = [
            k for k, o in enumerate(model.graph.output)
            if o.type.tensor_type.elem_type == TensorProto.STRING
        ]
        """Graph outputs that are string tensors: decoded from bytes (``strings``)."""

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:  # noqa: ARG002
        """Runs the model on ``inputs`` (a sequence in graph-input order, a
        name → array mapping, or one array) and returns the outputs in
        graph-output order, with the ONNX shapes and dtypes."""
        arrays = self._arrays(inputs)
        compiled = self._compiled(arrays)
        if self.isolate:
            return self._run_isolated(compiled, arrays)
        gmod = compiled.executor
        for slot, array in _feeds(compiled, arrays):
            gmod["set_input"](slot, array)
        gmod["run"]()
        count = gmod["get_num_outputs"]()
        flat = [gmod["get_output"](i).numpy() for i in range(count)]
        return self._decoded(_regroup(compiled, flat))

    def _decoded(self, outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """``outputs`` with each string output's bytes decoded to ``str``."""
        if not self._string_outputs:
            return outputs
        return tuple(
            strings.decode(o) if k in self._string_outputs else o for k, o in enumerate(outputs)
        )

    def _run_isolated(
        self, compiled: _Compiled, arrays: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, ...]:
        self._runner = self._runner or IsolatedRunner()
        name = self.model.graph.name or "(unnamed)"
        outputs = self._runner.run(
            _exported(compiled),
            _feeds(compiled, arrays),
            what=f"model '{name}'",
            test_hook=self._test_hook,
        )
        return self._decoded(_regroup(compiled, list(outputs)))

    def close(self) -> None:
        """Ends the child process of an isolated rep (a later run starts one)."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None

    def compile_static(self) -> None:
        """Compiles for the model's declared input types, when they are
        static and no input value is needed at compile time."""
        shapes: list[tuple[int, ...]] = []
        dtypes: list[str] = []
        for value_info in self.model.graph.input:
            if value_info.name not in self.input_names:
                continue
            tensor_type = value_info.type.tensor_type
            dims = tensor_type.shape.dim
            if value_info.type.WhichOneof("value") != "tensor_type" or not all(
                d.HasField("dim_value") for d in dims
            ):
                return
            if tensor_type.elem_type == TensorProto.STRING:
                return  # the byte width of string inputs comes with their values
            shapes.append(tuple(d.dim_value for d in dims))
            try:
                dtypes.append(helper.tensor_dtype_to_np_dtype(tensor_type.elem_type).name)
            except KeyError:
                return
        try:
            self._lookup_or_compile(shapes, dtypes, {})
        except OnnxConstantInputRequired as e:
            if e.value_name in self.input_names:
                self.specialized.append(e.value_name)  # the first run compiles
            elif not self._sources(e.value_name):
                raise

    def _arrays(self, inputs: Any) -> list[np.ndarray]:
        if isinstance(inputs, Mapping):
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise OnnxImportError(f"no value given for graph input(s) {', '.join(missing)}")
            values = [inputs[n] for n in self.input_names]
        elif isinstance(inputs, (list, tuple)):
            values = list(inputs)
        else:
            values = [inputs]
        if len(values) != len(self.input_names):
            raise OnnxImportError(
                f"the model has {len(self.input_names)} graph input(s) "
                f"({', '.join(self.input_names) or 'none'}), got {len(values)} value(s)"
            )
        arrays: list = []
        for name, value in zip(self.input_names, values):
            if value is None and name in self._optionals:
                arrays.append(None)  # an empty optional
                continue
            if name in self._sequences:
                if not isinstance(value, (list, tuple)):
                    raise OnnxImportError(
                        f"graph input '{name}' is a sequence, got {type(value).__name__}"
                    )
                elements = [np.asarray(v) for v in value]
                arrays.append([e if e.flags.c_contiguous else e.copy(order="C") for e in elements])
                continue
            if isinstance(value, TensorProto):
                value = numpy_helper.to_array(value)
            if not isinstance(value, (np.ndarray, np.generic, int, float, bool)):
                raise OnnxImportError(
                    f"graph input '{name}' must be a tensor, got {type(value).__name__}"
                )
            declared = self._declared.get(name)
            if declared is not None and isinstance(value, (int, float, bool)):
                array = np.asarray(value, dtype=declared[0])  # a Python scalar takes the model's type
            else:
                array = np.asarray(value)
            if declared is not None:
                _check_input(name, array, *declared)
            if array.dtype == object or array.dtype.kind in "SU":
                try:
                    array = strings.encode(array)  # a string tensor runs as its bytes
                except (ValueError, UnicodeError, TypeError) as e:
                    raise OnnxImportError(f"graph input '{name}': {e}") from None
            arrays.append(array if array.flags.c_contiguous else array.copy(order="C"))
        return arrays

    def _compiled(self, arrays: Sequence[np.ndarray]) -> _Compiled:
        shapes = [
            None if a is None else tuple(e.shape for e in a) if isinstance(a, list) else a.shape
            for a in arrays
        ]
        dtypes = [
            self._sequences.get(n) or ("float32" if a is None else a.dtype.name)
            for n, a in zip(self.input_names, arrays)
        ]
        by_name = dict(zip(self.input_names, arrays))
        while True:
            values = {n: by_name[n] for n in self.specialized}
            try:
                return self._lookup_or_compile(shapes, dtypes, values)
            except OnnxConstantInputRequired as e:
                # Each round specializes or folds one more graph input, so this ends.
                if e.value_name in self.input_names and e.value_name not in self.specialized:
                    self.specialized.append(e.value_name)
                    continue
                sources = self._sources(e.value_name)
                if sources <= self.folded:
                    raise
                self.specialized += [n for n in sorted(sources) if n not in self.specialized]
                self.folded |= sources

    def _sources(self, value: str) -> set[str]:
        """The graph inputs whose values ``value`` is computed from
        (``Shape`` and ``Size`` outputs depend on no value)."""
        producers = {
            out: node for node in _all_nodes(self.model.graph) for out in node.output if out
        }
        seen, stack = set(), [value]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            node = producers.get(name)
            if node is not None and node.op_type not in ("Shape", "Size"):
                stack.extend(n for n in _node_reads(node) if n)
        return seen & set(self.input_names)


    def _lookup_or_compile(
        self,
        shapes: Sequence[tuple[int, ...]],
        dtypes: Sequence[str],
        values: Mapping[str, np.ndarray],
    ) -> _Compiled:
        key = (
            self._digest,
            self.freeze_params,
            tuple(shapes),
            tuple(dtypes),
            tuple((n, _value_key(v)) for n, v in sorted(values.items())),
            tuple(sorted(self.folded)),
        )
        if key in _modules:
            _modules.move_to_end(key)
            return _modules[key]
        compiled = self._compile(shapes, dtypes, values)
        _modules[key] = compiled
        if len(_modules) > _CACHE_SIZE:
            _modules.popitem(last=False)
        return compiled

    def _compile(
        self,
        shapes: Sequence[tuple[int, ...]],
        dtypes: Sequence[str],
        values: Mapping[str, np.ndarray],
    ) -> _Compiled:
        from xtvm.driver.build_module import build
        from xtvm.target import Target

        module, params = from_onnx(
            self.model,
            shape=dict(zip(self.input_names, shapes)),
            dtype=dict(zip(self.input_names, dtypes)),
            freeze_params=self.freeze_params,
            input_values=values,
            fold_inputs=self.folded,
        )
        groups = _output_groups(module)
        optionals = _optional_outputs(module, self.model)
        lib = build(module, target=Target.current(), params=params)  # a `with Target` scope's
        if isinstance(lib, Executable):  # control flow: build chose the VM
            executor: Module = VirtualMachine(lib, cpu(0))
            names = list(executor.get_input_info()[0])  # type: ignore[attr-defined]

            def index(name: str) -> int | None:
                return names.index(name) if name in names else None

        else:
            executor = lib["default"](cpu(0))

            def index(name: str) -> int | None:
                i = executor["get_input_index"](name)
                return None if i < 0 else i

        slots = tuple(
            None
            if shape is None  # an empty optional: no argument
            else tuple(index(f"{n}[{k}]") for k in range(len(shape)))
            if n in self._sequences
            else index(n)
            for n, shape in zip(self.input_names, shapes)
        )
        return _Compiled(executor, slots, lib, output_groups=groups, optional_outputs=optionals)


class XtvmBackend(Backend):
    """The ``onnx.backend.base.Backend`` of xtvm (CPU only)."""

    @classmethod
    def prepare(
        cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any
    ) -> XtvmBackendRep:
        """Validates ``model`` and compiles it when its input types are
        static (see the module docstring); ``freeze_params=False`` keeps
        initializers as module parameters instead of constants;
        ``isolate=True`` runs the generated code in a child process, where
        a crash becomes an ``IsolatedCrash`` (by default it runs in this
        process)."""
        _check_device(device)
        check_model(model)
        rep = XtvmBackendRep(
            model,
            freeze_params=kwargs.get("freeze_params", True),
            isolate=kwargs.get("isolate", False),
        )
        rep.compile_static()
        return rep

    @classmethod
    def run_model(
        cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> tuple[np.ndarray, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[np.ndarray, ...]:
        """Runs one node on ``inputs`` (one array per node input, in order;
        ``""`` inputs are skipped) in a model of opset ``opset_version``
        (default: the installed onnx's latest); ``isolate`` as in ``prepare``."""
        _check_device(device)
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        present = [name for name in node.input if name]
        arrays = [np.asarray(a) for a in inputs]
        if len(arrays) != len(present):
            raise OnnxImportError(
                f"node has {len(present)} input(s) ({', '.join(present)}), "
                f"got {len(arrays)} value(s)"
            )
        values: dict[str, np.ndarray] = {}
        for name, array in zip(present, arrays):
            values.setdefault(name, array)  # a repeated name is one graph input
        graph_inputs = [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in values.items()
        ]
        if outputs_info is not None:
            graph_outputs = [
                helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
                for n, (t, s) in zip(node.output, outputs_info)
            ]
        else:
            graph_outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        graph = helper.make_graph([node], "run_node", graph_inputs, graph_outputs)
        domain = node.domain if node.domain != "ai.onnx" else ""
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, opset)])
        if outputs_info is None:
            model = _infer_output_types(model)
        rep = cls.prepare(model, device, isolate=kwargs.get("isolate", False))
        return rep.run(list(values.values()))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """Only ``"CPU"``."""
        return onnx.backend.base.Device(device).type == onnx.backend.base.DeviceType.CPU


def _infer_output_types(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with its graph outputs typed by ONNX shape inference."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    except onnx.shape_inference.InferenceError as e:
        raise OnnxImportError(f"invalid node: {e}") from None
    untyped = [o.name for o in inferred.graph.output if not o.type.HasField("tensor_type")]
    if untyped:
        raise OnnxImportError(
            f"cannot infer the type of output(s) {', '.join(untyped)}: pass outputs_info"
        )
    return inferred


def _check_device(device: str) -> None:
    if not XtvmBackend.supports_device(device):
        raise OnnxImportError(f"xtvm runs on CPU only, got device '{device}'")


prepare = XtvmBackend.prepare
run_model = XtvmBackend.run_model
run_node = XtvmBackend.run_node
supports_device = XtvmBackend.supports_device
