"""``from_onnx``: an ONNX model → a ``builtin.module`` holding ``func.func
@main`` of relay ops, and its parameters (TVM's ``relay.frontend.from_onnx``).

```mlir
builtin.module {
  func.func @main(%data: tensor<1x784xf32> {relay.name = "data"},
                  %fc1.weight: tensor<256x784xf32> {relay.name = "fc1.weight"},
                  %fc1.bias: tensor<256xf32> {relay.name = "fc1.bias"}, ...)
      -> (tensor<1x10xf32> {relay.name = "probs"}) {
    %0 = relay.nn.dense %data, %fc1.weight
        : (tensor<1x784xf32>, tensor<256x784xf32>) -> tensor<1x256xf32>
    %fc1 = relay.add %0, %fc1.bias : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
    %relu1 = relay.nn.relu %fc1 : tensor<1x256xf32>
    ...
    %probs = relay.nn.softmax %fc3 {axis = 1 : i64} : tensor<1x10xf32>
    func.return %probs : tensor<1x10xf32>
  }
}
```

SSA values are named after the ONNX values they hold.

The import: load the model, validate it with ``onnx.checker``, find a
converter for every node (reporting all unsupported nodes at once), type the
graph inputs (static shapes only: ``shape`` must fix every symbolic
dimension), then convert the nodes in graph order. A node whose inputs are
all compile-time constants folds into constants (see ``converter``); a node
output that its converter does not produce (``MaxPool``'s ``Indices``) is an
error only when something uses it.
"""

from __future__ import annotations

import mmap
import os
import re
import threading
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, Region

from xtvm.dialects.relay import RelayTypeError, TupleOp
from xtvm.frontend.onnx import (
    activation,
    algorithm,
    conv,
    indexing,
    logical,
    math,
    nn,
    normalization,
    pool,
    reduce,
    shape,
    tensor,
    transform,
)
from xtvm.frontend.onnx import control, creation, image, layout, quantization, rnn, sequence
from xtvm.frontend.onnx import dynamic
from xtvm.frontend.onnx import attention, bitcast, col2im, grid, loss, ml, signal, unpool
from xtvm.frontend.onnx import sampling, strings, tfidf, training
from xtvm.frontend.onnx import causal_conv, det, flex_attention, linear_attention, rotary
from xtvm.frontend.onnx import swiglu, tensor_scatter
from xtvm.frontend.onnx.common import (
    EMPTY_OPTIONAL,
    RUNTIME_OPTIONAL_OUTPUTS,
    RUNTIME_OPTIONALS,
    OnnxImportError,
    OnnxStaticShapeRequired,
    element_type_from_numpy,
    element_type_from_onnx,
)
from xtvm.frontend.onnx.converter import (
    Converter,
    GraphScope,
    OnnxNode,
    OnnxOpConverter,
    node_label,
)
from xtvm.constants import numpy_dtype

CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    **tensor.CONVERTERS,
    **math.CONVERTERS,
    **logical.CONVERTERS,
    **activation.CONVERTERS,
    **reduce.CONVERTERS,
    **nn.CONVERTERS,
    **normalization.CONVERTERS,
    **conv.CONVERTERS,
    **pool.CONVERTERS,
    **algorithm.CONVERTERS,
    **transform.CONVERTERS,
    **shape.CONVERTERS,
    **indexing.CONVERTERS,
    **layout.CONVERTERS,
    **creation.CONVERTERS,
    **image.CONVERTERS,
    **quantization.CONVERTERS,
    **rnn.CONVERTERS,
    **control.CONVERTERS,
    **sequence.CONVERTERS,
    **dynamic.CONVERTERS,
    **signal.CONVERTERS,
    **loss.CONVERTERS,
    **bitcast.CONVERTERS,
    **unpool.CONVERTERS,
    **grid.CONVERTERS,
    **col2im.CONVERTERS,
    **attention.CONVERTERS,
    **causal_conv.CONVERTERS,
    **det.CONVERTERS,
    **linear_attention.CONVERTERS,
    **rotary.CONVERTERS,
    **swiglu.CONVERTERS,
    **tensor_scatter.CONVERTERS,
    **tfidf.CONVERTERS,
    **sampling.CONVERTERS,
    **strings.CONVERTERS,
}
"""ONNX op type (default domain) → its converter: the one table of supported ops."""

DOMAIN_CONVERTERS: dict[str, dict[str, type[OnnxOpConverter]]] = {
    "": CONVERTERS,
    "com.microsoft": quantization.MS_CONVERTERS,
    "ai.onnx.ml": {**ml.CONVERTERS, **strings.ML_CONVERTERS},
    "ai.onnx.preview.training": training.CONVERTERS,
    "ai.onnx.preview": flex_attention.PREVIEW_CONVERTERS,
}
"""Domain → op type → converter; a node's opset is its domain's import."""

ShapeDict = Mapping[str, Sequence[int]]


def from_onnx(
    model: onnx.ModelProto | str | os.PathLike[str],
    shape: ShapeDict | None = None,
    dtype: str | Mapping[str, str] = "float32",
    freeze_params: bool = False,
    input_values: Mapping[str, np.ndarray] | None = None,
    fold_inputs: Collection[str] = (),
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """Converts an ONNX model to relay IR.

    Args:
        model: a ``ModelProto`` or the path of a ``.onnx`` file.
        shape: static shapes of graph inputs, overriding the model's; needed
            for every input with a symbolic or unknown dimension. A ``None``
            dimension stays dynamic (``?``: the model compiles for the VM,
            docs/vm.md). For a
            sequence input, the list of its elements' shapes: it becomes one
            argument per element (``name[k]``) grouped into a ``relay.tuple``.
        dtype: element type (NumPy name) of graph inputs the model leaves
            untyped; a dict maps input names to element types and overrides
            the model's.
        freeze_params: embed initializers as ``relay.const`` instead of making
            them ``main`` arguments.
        input_values: run-time values of graph inputs to specialize the
            module for: converters that need an input at compile time
            (``Reshape``'s shape) read it here. Each stays a ``main``
            argument, which must then be given exactly this value; its
            shape and dtype must match the input's type.
        fold_inputs: names of ``input_values`` that nodes may also fold
            with, to compute compile-time values (a ``Slice``'s starts) from
            them; a value folded from them must not be used as a tensor.

    Returns:
        The module with ``func.func @main`` — graph inputs (ONNX order), then
        one argument per initializer used as a tensor (initializer order),
        each with its ONNX name as ``{relay.name = ...}``; results are the
        graph outputs, named likewise — and the parameters: initializer name
        → value for those arguments (empty with ``freeze_params``).

    Raises:
        OnnxImportError: the model is invalid, uses unsupported ops or
            attribute values, has an unresolved symbolic shape, or a node's
            operands break a relay type rule; the message names the culprit.
            Its subclass ``OnnxConstantInputRequired`` means a converter
            needs the value of an input computed at run time; when that is
            a graph input, passing its value in ``input_values`` resolves it.
    """
    from xtvm.driver.pipeline import compile_gc

    with compile_gc():  # the module is many small long-lived objects
        return _from_onnx(model, shape, dtype, freeze_params, input_values, fold_inputs)


def _from_onnx(
    model: onnx.ModelProto | str | os.PathLike[str],
    shape: ShapeDict | None,
    dtype: str | Mapping[str, str],
    freeze_params: bool,
    input_values: Mapping[str, np.ndarray] | None,
    fold_inputs: Collection[str],
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    path = None if isinstance(model, onnx.ModelProto) else model
    checking = _CheckInChild.start(path) if isinstance(path, (str, os.PathLike)) else None
    # A file not checked in a child is checked before it is loaded: the
    # checker's copy of the model and the importer's are not held together
    # (VGG-19: 1.66 -> 1.17 GB). Its verdict waits for the load, whose
    # errors come first.
    verdict = _check_file(path) if checking is None and path is not None else _UNCHECKED
    try:
        proto = _load(model)
    except BaseException:
        if checking is not None:
            checking.discard()  # a file that does not load: that is the error
        raise
    if checking is None and verdict is _UNCHECKED:
        check_model(proto, None if path is None else os.fspath(path))
    elif checking is None and verdict is not None:
        check_external_data(proto)
        raise OnnxImportError(f"invalid ONNX model: {_checker_message(verdict, proto)}")
    try:
        if checking is not None:
            check_external_data(proto)
        importer = _GraphImporter(
            proto, shape or {}, dtype, freeze_params, input_values or {}, frozenset(fold_inputs)
        )
        result = importer.run()
    except Exception:
        if checking is not None:  # an invalid model: the checker's error, as if it ran first
            checking.raise_if_invalid(proto)
        raise
    if checking is not None:
        checking.raise_if_invalid(proto)
    return result


CHECK_IN_CHILD_MAX_BYTES = 256 << 20
"""Larger model files are checked in this process, before the import: the
checker's own copy of the model (the file's bytes and the parsed proto)
beside the importer's would raise the peak memory (VGG-19's 548 MB:
+450 MB)."""


class _CheckInChild:
    """``onnx.checker`` on a model file, in a forked child process while this
    one loads and imports the model (the checker holds the GIL: in a thread
    it would not overlap; ResNet-50: 0.36 s of a warm build's critical
    path). :meth:`raise_if_invalid` waits for its verdict."""

    def __init__(self, pid: int, read_fd: int):
        self.pid, self.read_fd = pid, read_fd

    @classmethod
    def start(cls, path: str | os.PathLike[str]) -> _CheckInChild | None:
        """Fork the checker of ``path`` (None where ``fork`` is missing, the
        path is no readable file, which the loader reports, or this process
        runs other threads: a child forked from a threaded process may find
        a lock held forever by a thread it does not have)."""
        if (
            not hasattr(os, "fork")
            or threading.active_count() > 1
            or not os.path.isfile(path)
            or os.path.getsize(path) > CHECK_IN_CHILD_MAX_BYTES
        ):
            return None
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: check, write the verdict, exit without cleanup
            code = 0
            try:
                os.close(read_fd)
                try:
                    onnx.checker.check_model(os.fspath(path))
                    verdict = b""
                except onnx.checker.ValidationError as e:
                    verdict = str(e).encode(errors="replace") or b"invalid"
                while verdict:
                    verdict = verdict[os.write(write_fd, verdict) :]
            except BaseException:  # e.g. the checker itself failed: check in the parent
                code = 1
            finally:
                os._exit(code)
        os.close(write_fd)
        return cls(pid, read_fd)

    def discard(self) -> None:
        """Wait for the child and ignore its verdict."""
        os.close(self.read_fd)
        os.waitpid(self.pid, 0)

    def raise_if_invalid(self, proto: onnx.ModelProto) -> None:
        """Wait for the child; ``OnnxImportError`` with the checker's message
        if the model is invalid. If the child failed, check here instead."""
        chunks = []
        with os.fdopen(self.read_fd, "rb") as pipe:
            while chunk := pipe.read(65536):
                chunks.append(chunk)
        _, status = os.waitpid(self.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            check_model(proto)
            return
        if chunks:
            text = b"".join(chunks).decode(errors="replace")
            raise OnnxImportError(f"invalid ONNX model: {_checker_text(text, proto)}") from None


_UNCHECKED = object()


def _check_file(path: str | os.PathLike[str]) -> onnx.checker.ValidationError | None | object:
    """``onnx.checker`` on the file ``path``: None if valid, its
    ``ValidationError`` if not, ``_UNCHECKED`` if the checker could not read
    the file (the loader then says why, or the model is checked once loaded)."""
    try:
        onnx.checker.check_model(os.fspath(path))
    except onnx.checker.ValidationError as e:
        return e
    except Exception:  # noqa: BLE001 - whatever it is, the loader or a check after it reports it
        return _UNCHECKED
    return None


def check_model(model: onnx.ModelProto, path: str | None = None) -> None:
    """Validates ``model`` with ``onnx.checker``; an ``OnnxImportError``
    naming the node at fault when it is invalid. Given the ``path`` it was
    loaded from, the checker reads the file itself: checking a ``ModelProto``
    serializes it first (0.6 s for ResNet-50's 100 MB)."""
    check_external_data(model)
    try:
        onnx.checker.check_model(model if path is None else path)
    except onnx.checker.ValidationError as e:
        raise OnnxImportError(f"invalid ONNX model: {_checker_message(e, model)}") from None


def check_external_data(model: onnx.ModelProto) -> None:
    """An ``OnnxImportError`` if a tensor keeps its data in an external file
    that was not loaded."""
    from onnx import external_data_helper as external

    for data in external._get_all_tensors(model):
        if external.uses_external_data(data):
            location = external.ExternalDataInfo(data).location
            raise OnnxImportError(
                f"tensor '{data.name}' keeps its data in external file '{location}', which "
                "was not loaded: pass the model's path, or load it with onnx.load(path)"
            )


_NODE_CONTEXT = re.compile(r"\s*==> Context: Bad node spec for node\. Name: (.*) OpType: (\S+)\s*$")


def _checker_message(error: onnx.checker.ValidationError, model: onnx.ModelProto) -> str:
    """The checker's message on one line, led by the node it is about
    (``node 'add0' (Add, opset 13): ...``) when it names one."""
    return _checker_text(str(error), model)


def _checker_text(text: str, model: onnx.ModelProto | None) -> str:
    """:func:`_checker_message` of the checker's message text (the model, if
    loaded, finds the node's opset)."""
    text = text.strip()
    head, _, context = text.partition("\n\n")
    match = _NODE_CONTEXT.match(context)
    if not match or model is None:
        return " ".join(text.split())
    name, op_type = match.groups()
    opsets = {o.domain or "": o.version for o in model.opset_import}
    for index, proto in enumerate(model.graph.node):
        if proto.name == name and proto.op_type == op_type:
            opset = opsets.get("" if proto.domain == "ai.onnx" else proto.domain, 0)
            return f"{node_label(proto, index, opset)}: {head}"
    return f"node '{name}' ({op_type}): {head}"


def _load(model: onnx.ModelProto | str | os.PathLike[str]) -> onnx.ModelProto:
    if isinstance(model, onnx.ModelProto):
        return model
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"from_onnx expects a ModelProto or a path, got {type(model).__name__}")
    try:
        proto = _read_model(model)
    except (OSError, DecodeError, ValueError) as e:
        raise OnnxImportError(f"cannot load ONNX model from '{os.fspath(model)}': {e}") from None
    _load_external_data(proto, os.fspath(model))
    return proto


def _read_model(path: str | os.PathLike[str]) -> onnx.ModelProto:
    """``onnx.load(path, load_external_data=False)``, but a binary protobuf
    file (what its extension says, as ``onnx.load`` decides) is parsed from
    a memory map of the file instead of a ``bytes`` object ``read()`` filled:
    ResNet-50's 100 MB parse in 0.05 s of CPU instead of 0.1, the peak
    resident size unchanged. Anything else (a text format, a file that
    cannot be mapped: empty, a pipe) goes to ``onnx.load``, as do its errors."""
    from onnx.serialization import registry

    fmt = registry.get_format_from_file_extension(os.path.splitext(os.fspath(path))[1])
    if fmt not in (None, "protobuf"):
        return onnx.load(path, load_external_data=False)
    try:
        with open(path, "rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return onnx.load(path, load_external_data=False)
    with mapped, memoryview(mapped) as data:
        proto = onnx.ModelProto()
        decoded = proto.ParseFromString(data)
        if decoded is not None and decoded != len(data):  # as onnx's deserializer checks
            raise DecodeError(
                f"Protobuf decoding consumed too few bytes: {decoded} out of {len(data)}"
            )
    return proto


def _load_external_data(proto: onnx.ModelProto, path: str) -> None:
    """Reads the tensors ``proto`` keeps in external files (next to
    ``path``); a missing or short file is an error naming the tensor and
    the file, not onnx's traceback."""
    from onnx import external_data_helper as external

    base_dir = os.path.dirname(path)
    for data in external._get_all_tensors(proto):
        if not external.uses_external_data(data):
            continue
        location = external.ExternalDataInfo(data).location
        file = os.path.join(base_dir, location)
        where = f"tensor '{data.name}' of '{path}' keeps its data in external file '{file}'"
        if not os.path.isfile(file):
            raise OnnxImportError(f"{where}, which does not exist")
        try:
            external.load_external_data_for_tensor(data, base_dir)
        except (OSError, ValueError, onnx.checker.ValidationError) as e:
            raise OnnxImportError(f"{where}, which cannot be read: {e}") from None


class _GraphImporter:
    """Converts the main graph of one validated model."""

    def __init__(
        self,
        model: onnx.ModelProto,
        shape: ShapeDict,
        dtype: str | Mapping[str, str],
        freeze_params: bool,
        input_values: Mapping[str, np.ndarray],
        fold_inputs: frozenset[str],
    ) -> None:
        self.graph = model.graph
        self.opsets = {
            ("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import
        }
        self.shape = shape
        self.dtype = dtype
        self.freeze_params = freeze_params
        self.input_values = {name: np.asarray(v) for name, v in input_values.items()}
        self.fold_inputs = fold_inputs
        unknown = sorted(fold_inputs - input_values.keys())
        if unknown:
            raise OnnxImportError(
                f"fold_inputs names '{unknown[0]}', which has no input_values entry"
            )
        initializer_names = {t.name for t in self.graph.initializer}
        self.input_names = [i.name for i in self.graph.input if i.name not in initializer_names]
        dtypes = dtype if isinstance(dtype, Mapping) else {}
        for option, names in (("shape", shape), ("dtype", dtypes), ("input_values", input_values)):
            for name in names:
                if name not in self.input_names:
                    raise OnnxImportError(
                        f"{option} names '{name}', which is not a graph input "
                        f"(inputs: {', '.join(self.input_names) or 'none'})"
                    )

    def run(self) -> tuple[ModuleOp, dict[str, np.ndarray]]:
        plan = plan_nodes(self.graph.node, self.opsets)
        if self.graph.sparse_initializer:
            names = ", ".join(f"'{s.values.name}'" for s in self.graph.sparse_initializer)
            raise OnnxImportError(f"sparse initializers are not supported: {names}")
        initializers = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        consumed = control.graph_reads(self.graph)
        scope = GraphScope(
            Block(), initializers, self.freeze_params, consumed, self.input_values, self.fold_inputs
        )
        for value_info in self.graph.input:
            if value_info.name in self.input_names:
                kind = value_info.type.WhichOneof("value")
                if kind == "optional_type":
                    self._add_optional_input(scope, value_info)
                    continue
                if kind == "sequence_type":
                    self._add_sequence_input(scope, value_info.name, value_info.type.sequence_type)
                    continue
                if value_info.type.tensor_type.elem_type == onnx.TensorProto.STRING:
                    strings.add_string_input(scope, value_info.name, self.shape.get(value_info.name))
                    continue
                ty = self._input_type(value_info)
                if value_info.name in self.input_values:
                    self._check_value(value_info.name, ty)
                scope.add_input(value_info.name, ty)

        scope.opsets = self.opsets
        convert_nodes(plan, scope)

        outputs = []
        for value_info in self.graph.output:
            if not scope.is_defined(value_info.name):
                raise OnnxImportError(
                    f"graph output '{value_info.name}' is not produced by any node"
                )
            outputs.append(scope.lookup(value_info.name))
        scope.block.add_op(func.ReturnOp(*outputs))
        main = func.FuncOp(
            "main",
            ([arg.type for arg in scope.block.args], [v.type for v in outputs]),
            Region(scope.block),
            arg_attrs=_names(scope.arg_names),
            res_attrs=_names([o.name for o in self.graph.output]),
        )
        optionals = [k for k, v in enumerate(outputs) if v in RUNTIME_OPTIONALS]
        if optionals:  # the backend returns None for an empty one
            main.attributes[RUNTIME_OPTIONAL_OUTPUTS] = ArrayAttr(IntegerAttr(k, 64) for k in optionals)
        return ModuleOp([main]), scope.params()

    def _add_optional_input(self, scope: GraphScope, value_info: onnx.ValueInfoProto) -> None:
        """An optional graph input: ``shape[name] = None`` imports it empty
        (:data:`EMPTY_OPTIONAL`, known at compile time); otherwise it is the
        tensor or sequence it holds."""
        name = value_info.name
        if name in self.shape and self.shape[name] is None:
            scope.bind(name, EMPTY_OPTIONAL.copy())
            return
        element = value_info.type.optional_type.elem_type
        if element.WhichOneof("value") == "sequence_type":
            self._add_sequence_input(scope, name, element.sequence_type)
            return
        if element.WhichOneof("value") != "tensor_type":
            raise OnnxImportError(
                f"input '{name}' is an optional of neither a tensor nor a sequence"
            )
        holder = onnx.ValueInfoProto(name=name)
        holder.type.tensor_type.CopyFrom(element.tensor_type)
        scope.add_input(name, self._input_type(holder))

    def _add_sequence_input(
        self, scope: GraphScope, name: str, sequence_type: onnx.TypeProto.Sequence
    ) -> None:
        """A sequence graph input: one ``main`` argument per element (named
        ``name[k]``), grouped into a ``relay.tuple`` bound to the input's
        name. ``shape[name]`` must list the elements' shapes."""
        shapes = self.shape.get(name)
        if shapes is None or not all(isinstance(s, (list, tuple)) for s in shapes):
            raise OnnxImportError(
                f"input '{name}' is a sequence: pass the shapes of its elements, "
                f"e.g. shape={{'{name}': [(2, 3), (2, 3)]}}"
            )
        element = sequence_type.elem_type
        if element.WhichOneof("value") != "tensor_type":
            raise OnnxImportError(f"input '{name}' is a sequence of non-tensors")
        what = f"the elements of input '{name}'"
        if isinstance(self.dtype, Mapping) and name in self.dtype:
            element_type = element_type_from_numpy(self.dtype[name], what)
        else:
            element_type = element_type_from_onnx(element.tensor_type.elem_type, what)
        fields = []
        for k, shape in enumerate(shapes):
            field_name = f"{name}[{k}]"
            scope.add_input(field_name, TensorType(element_type, [int(d) for d in shape]))
            fields.append(scope.lookup(field_name))
        group = TupleOp(fields)
        scope.block.add_op(group)
        scope.bind(name, group.result)

    def _check_value(self, name: str, ty: TensorType) -> None:
        """An ``input_values`` entry must fit the input's type."""
        value = self.input_values[name]
        want = (numpy_dtype(ty.get_element_type()), tuple(ty.get_shape()))
        if (value.dtype, value.shape) != want:
            raise OnnxImportError(
                f"input_values['{name}'] is {value.dtype}{list(value.shape)}, "
                f"but input '{name}' has type {ty}"
            )

    def _input_type(self, value_info: onnx.ValueInfoProto) -> TensorType:
        """The tensor type of a graph input, from the model and the overrides."""
        name = value_info.name
        if value_info.type.WhichOneof("value") != "tensor_type":
            raise OnnxImportError(f"input '{name}' is not a tensor")
        tensor_type = value_info.type.tensor_type
        what = f"input '{name}'"
        if isinstance(self.dtype, Mapping) and name in self.dtype:
            element_type = element_type_from_numpy(self.dtype[name], what)
        elif tensor_type.elem_type == onnx.TensorProto.UNDEFINED:
            element_type = element_type_from_numpy(
                self.dtype if isinstance(self.dtype, str) else "float32", what
            )
        else:
            element_type = element_type_from_onnx(tensor_type.elem_type, what)
        dims = list(tensor_type.shape.dim)  # the checker ensures a shape is present
        if name in self.shape:
            return TensorType(element_type, _override(name, dims, self.shape[name]))
        for axis, dim in enumerate(dims):
            if not dim.HasField("dim_value"):
                kind = f"symbolic dimension '{dim.dim_param}'" if dim.dim_param else None
                raise OnnxStaticShapeRequired(
                    f"input '{name}' has {kind or 'an unknown dimension'} at axis {axis}",
                    name,
                    tuple(d.dim_value if d.HasField("dim_value") else 1 for d in dims),
                )
        return TensorType(element_type, [d.dim_value for d in dims])


def plan_nodes(
    nodes: Sequence[onnx.NodeProto], opsets: Mapping[str, int]
) -> list[tuple[int, onnx.NodeProto, int, Converter]]:
    """A converter for every node, or one error listing every
    unsupported (op, opset) pair and the nodes using them::

        unsupported op(s): Sin (opset 13), com.example.Foo (opset 2)
          node 'sin' (Sin, opset 13)
          node #3 (com.example.Foo, opset 2)
    """
    plan, pairs, labels = [], [], []
    for index, proto in enumerate(nodes):
        domain = "" if proto.domain == "ai.onnx" else proto.domain
        opset = opsets.get(domain, 0)
        converter = DOMAIN_CONVERTERS.get(domain, {}).get(proto.op_type)
        convert = converter.get_converter(opset) if converter else None
        if convert is not None:
            plan.append((index, proto, opset, convert))
            continue
        op = f"{domain}.{proto.op_type}" if domain else proto.op_type
        pair = f"{op} (opset {opset}"
        if converter is not None:
            pair += f"; implemented from opset {converter.versions()[0]}"
        if f"{pair})" not in pairs:
            pairs.append(f"{pair})")
        labels.append(node_label(proto, index, opset))
    if pairs:
        raise OnnxImportError(
            f"unsupported op(s): {', '.join(pairs)}\n  " + "\n  ".join(labels)
        )
    return plan


def convert_nodes(
    plan: Sequence[tuple[int, onnx.NodeProto, int, Converter]], scope: GraphScope
) -> None:
    """Converts the planned nodes in order into ``scope``: the main graph's,
    and a subgraph's (``If`` branches, ``Loop`` and ``Scan`` bodies) into
    the scope of its region."""
    for index, proto, opset, convert in plan:
        node = OnnxNode(proto, index, opset, scope)
        strings.check_inputs(node)
        try:
            results = node.outputs(convert(node))
        except RelayTypeError as e:
            raise node.error(str(e)) from None
        # Values folded from run-time input values are compile-time values only.
        derived = node.folding and any(
            name in scope.derived or name in scope.fold_inputs for name in proto.input
        )
        for k, name in enumerate(proto.output):
            if k < len(results):
                if name:
                    scope.bind(name, results[k])
                    if derived and isinstance(results[k], np.ndarray):
                        scope.derived.add(name)
            elif node.output_used(k):
                raise node.error(f"{node.output_label(k)} is used, but it is not supported")


def _override(
    name: str, dims: Sequence[onnx.TensorShapeProto.Dimension], override: Sequence[int]
) -> list[int]:
    """A user's shape for input ``name``, checked against the model's; a
    ``None`` dimension is dynamic (``?``)."""
    try:
        shape = [DYNAMIC_INDEX if d is None else int(d) for d in override]
    except (TypeError, ValueError):
        raise OnnxImportError(
            f"shape of input '{name}' must be a sequence of ints, got {override!r}"
        ) from None
    if any(d < 0 and d != DYNAMIC_INDEX for d in shape):
        raise OnnxImportError(f"shape of input '{name}' has a negative size: {tuple(shape)}")
    if len(dims) != len(shape):
        raise OnnxImportError(
            f"shape of input '{name}' has rank {len(shape)}, but the model's has rank {len(dims)}"
        )
    for axis, (dim, size) in enumerate(zip(dims, shape)):
        if dim.HasField("dim_value") and size != DYNAMIC_INDEX and dim.dim_value != size:
            raise OnnxImportError(
                f"shape of input '{name}' sets axis {axis} to {size}, "
                f"but the model fixes it to {dim.dim_value}"
            )
    return shape


def _names(names: Sequence[str]) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({"relay.name": StringAttr(n)}) for n in names])
