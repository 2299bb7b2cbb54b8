"""The converter framework: TVM's ``OnnxOpConverter`` scheme on xDSL.

One :class:`OnnxOpConverter` subclass per ONNX op, with one classmethod per
op version, ``_impl_v<N>``. The importer picks, for a model importing the
default domain at opset ``K``, the method with the largest ``N <= K``; an op
without such a method is unsupported at that opset. A converter method takes
the :class:`OnnxNode` being converted and returns its output: an SSA value it
emitted, or a NumPy array when the output is a compile-time constant (as
``Constant`` does), which becomes a ``relay.const`` only where a later node
uses it as a tensor; a node with several outputs (``Split``) returns a list,
one entry per output::

    class Relu(OnnxOpConverter):
        @classmethod
        def _impl_v1(cls, node: OnnxNode) -> SSAValue:
            return node.emit(ReluOp(node.input(0)))

Relay op constructors infer result types and raise ``RelayTypeError`` on bad
operands; the importer re-raises those naming the ONNX node.

Import-time folding: when every input of a node is a compile-time constant
(see :meth:`GraphScope.is_foldable`), the node *folds*: ``node.input`` hands
the converter detached constants, ``node.emit`` evaluates each op with its
NumPy reference (``xtvm.reference.relay``) instead of adding it to the
graph, and the node's outputs become constants. Converters need no code for
this, so shape subgraphs (``Shape`` → ``Gather`` → ``Unsqueeze`` →
``Concat`` → ``Reshape``) import as one static ``relay.reshape``.

Inputs needed at compile time: a converter that needs the *value* of an
input (``Reshape``'s shape, ``Pad``'s pads, ``Tile``'s repeats, a ``Clip``
bound) reads it with :meth:`OnnxNode.constant_input` (or
``constant_ints``, ``constant_scalar``, ``optional_constant_input``,
``optional_constant_ints``), never by inspecting the scope. The value is
known when the input is an initializer, a ``Constant``/folded output, or a
graph input whose run-time value the import is specialized for
(``from_onnx(..., input_values={...})``). Otherwise these methods raise
:class:`OnnxConstantInputRequired` naming the node and the input; the ONNX
backend (``xtvm.frontend.onnx.backend``) catches it, imports again with that
graph input's run-time value, and compiles one module per distinct value::

    class Reshape(OnnxOpConverter):
        @classmethod
        def _impl_v5(cls, node: OnnxNode) -> SSAValue:
            shape = node.constant_ints(1)  # may raise OnnxConstantInputRequired
            ...

A specialized graph input stays a ``main`` argument and does not fold, so
its tensor uses still run compiled code. When the needed value is computed
*from* graph inputs (``Cast(size)`` → ``Range``), the backend specializes on
those inputs and lets nodes fold with them (``fold_inputs``); a value folded
from them may then feed only compile-time uses: using it as a tensor would
compute run-time data at import time, and is an error.

``is_constant(i)`` is False for a specialized input (unless it folds): use
it only to pick a cheaper lowering for constants, not to reject computed
inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, SSAValue

from xtvm.dialects.relay import CastOp, ConstOp, RelayOp
from xtvm.frontend.onnx.common import (
    OnnxConstantInputRequired,
    OnnxImportError,
    const_attr,
    element_type_from_numpy,
    value_name,
)
from xtvm.constants import numpy_dtype, numpy_from_const
from xtvm.reference.relay import evaluate_results

Output = SSAValue | np.ndarray
"""One output of a node: an emitted value, or a constant's value."""

Outputs = Output | Sequence[Output]
"""What a converter returns: its node's output, or a list of outputs in
order. Trailing optional outputs it does not produce may be left out; the
importer rejects the node when a later node or the graph output uses one."""

Converter = Callable[["OnnxNode"], Outputs]


class OnnxOpConverter:
    """Base of the op converters: one subclass per ONNX op type, one
    ``_impl_v<N>`` classmethod per op version it implements."""

    @classmethod
    def versions(cls) -> list[int]:
        """The op versions this converter implements, ascending."""
        prefix = "_impl_v"
        return sorted(int(name[len(prefix) :]) for name in dir(cls) if name.startswith(prefix))

    @classmethod
    def get_converter(cls, opset: int) -> Converter | None:
        """The method for a model at ``opset``: the latest ``_impl_v<N>``
        with ``N <= opset``, or None when every implemented version is newer."""
        usable = [v for v in cls.versions() if v <= opset]
        if not usable:
            return None
        from xtvm.frontend.onnx.reduced_float import in_float32  # it builds on this module

        return in_float32(getattr(cls, f"_impl_v{usable[-1]}"))


def static_shape(value: SSAValue) -> tuple[int, ...]:
    """The shape of a tensor value (the frontend imports static shapes only)."""
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


class GraphScope:
    """The values of the ONNX graph being converted, by ONNX name, and the
    block that receives the converted ops.

    Initializers and ``Constant`` outputs are known NumPy values. They turn
    into IR only when a node uses them as tensors: an initializer becomes a
    ``main`` argument (kept in ONNX initializer order after the graph inputs)
    or, with ``freeze_params``, a ``relay.const``; a ``Constant`` output
    always becomes a ``relay.const``. Values consumed only as compile-time
    constants (a ``Reshape`` shape) never appear in the IR.

    ``consumed`` names the values that some node or the graph output reads,
    so that converters can tell whether an optional output is wanted.
    ``input_values`` holds the run-time values of the graph inputs that the
    import is specialized for (see the module docstring): converters may
    read them as constants, but they stay arguments and, unless named in
    ``fold_inputs``, never fold. Values folded from ``fold_inputs`` are
    recorded in ``derived``; they may not become tensors.
    """

    def __init__(
        self,
        block: Block,
        initializers: dict[str, np.ndarray],
        freeze_params: bool,
        consumed: AbstractSet[str] = frozenset(),
        input_values: Mapping[str, np.ndarray] | None = None,
        fold_inputs: AbstractSet[str] = frozenset(),
    ) -> None:
        self.block = block
        self.consumed = consumed
        self.input_values: Mapping[str, np.ndarray] = input_values or {}
        self.fold_inputs = fold_inputs
        self.derived: set[str] = set()
        """Constants folded from ``fold_inputs``: compile-time values only."""
        self.opsets: Mapping[str, int] = {}
        """The model's opset per domain, for converting subgraphs."""
        self.constants: dict[str, np.ndarray] = dict(initializers)
        self.arg_names: list[str] = []
        """The ONNX name of each block argument, in order."""
        self._initializer_order = {name: i for i, name in enumerate(initializers)}
        self._num_params = 0
        self._freeze_params = freeze_params
        self._values: dict[str, SSAValue] = {}

    def add_input(self, name: str, ty: Attribute) -> None:
        """Adds a graph input to the arguments (before any parameter)."""
        self._insert_arg(name, ty, len(self.arg_names) - self._num_params)

    def params(self) -> dict[str, np.ndarray]:
        """The initializers that became arguments, in argument order."""
        return {n: self.constants[n] for n in self.arg_names if n in self._initializer_order}

    def bind(self, name: str, value: Output) -> None:
        """Records a node output under its ONNX name."""
        if isinstance(value, np.ndarray):
            self.constants[name] = value
            return
        if value.name_hint is None:
            value.name_hint = value_name(name)
        self._values[name] = value

    def is_defined(self, name: str) -> bool:
        return name in self._values or name in self.constants

    def is_foldable(self, name: str) -> bool:
        """Whether nodes reading ``name`` may be evaluated at import time:
        it is a ``Constant``'s or folded node's output, an integer
        initializer (shapes, indices, axes), or any initializer under
        ``freeze_params``. A floating-point initializer stays a ``main``
        parameter, so weights are never folded into constants behind the
        user's back. A graph input in ``fold_inputs`` folds too."""
        if name in self.fold_inputs:
            return True
        if name not in self.constants:
            return False
        if name not in self._initializer_order or self._freeze_params:
            return True
        return not np.issubdtype(self.constants[name].dtype, np.floating)

    def value(self, name: str) -> np.ndarray:
        """The value of a foldable name."""
        return self.input_values[name] if name in self.fold_inputs else self.constants[name]

    def shape(self, name: str) -> tuple[int, ...]:
        """The static shape of a defined value, without materializing a constant."""
        if name in self._values:
            return static_shape(self._values[name])
        return tuple(self.constants[name].shape)

    def dtype(self, name: str) -> str | None:
        """The element dtype name of a defined tensor value, without
        materializing a constant (None for a sequence or an optional)."""
        if name in self.fold_inputs:
            return self.input_values[name].dtype.name
        if name in self._values:
            value = self._values[name]
            if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
                return numpy_dtype(value.type.element_type).name
            return None
        if name in self.constants and isinstance(self.constants[name], np.ndarray):
            return self.constants[name].dtype.name
        return None

    def lookup(self, name: str) -> SSAValue:
        """The SSA value of ``name``, materializing a known constant on first use."""
        if name not in self._values:
            if name in self.derived:
                raise OnnxImportError(
                    f"'{name}' is used as a tensor, but it would be computed at import time "
                    "from the run-time value of a graph input; xtvm computes only "
                    "compile-time values (shapes, axes, pads) that way"
                )
            array = self.constants[name]
            is_initializer = name in self._initializer_order
            what = f"initializer '{name}'" if is_initializer else f"constant '{name}'"
            if is_initializer and not self._freeze_params:
                ty = TensorType(element_type_from_numpy(array.dtype, what), array.shape)
                order = self._initializer_order[name]
                params = self.arg_names[len(self.arg_names) - self._num_params :]
                earlier = sum(1 for p in params if self._initializer_order[p] < order)
                self._insert_arg(name, ty, len(self.arg_names) - len(params) + earlier)
                self._num_params += 1
            else:
                const = ConstOp(const_attr(array, what))
                self.block.add_op(const)
                self.bind(name, const.result)
        return self._values[name]

    def _insert_arg(self, name: str, ty: Attribute, index: int) -> None:
        arg = self.block.insert_arg(ty, index)
        arg.name_hint = value_name(name)
        self.arg_names.insert(index, name)
        self._values[name] = arg


def _attribute_value(attr: onnx.AttributeProto) -> Any:
    value = onnx.helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode() for v in value]
    return value


class OnnxNode:
    """One ONNX node under conversion: its attributes, its inputs as SSA
    values or constants, and where its ops go. Errors it creates name the
    node: ``node 'fc1' (Gemm, opset 13): ...``."""

    def __init__(self, proto: onnx.NodeProto, index: int, opset: int, scope: GraphScope):
        self.proto = proto
        self.opset = opset
        self.scope = scope
        self.label = node_label(proto, index, opset)
        self.attrs: dict[str, Any] = {a.name: _attribute_value(a) for a in proto.attribute}
        present = [name for name in proto.input if name]
        self.folding = bool(present) and all(scope.is_foldable(n) for n in present)
        """Whether the node folds: every input is a foldable constant."""
        self._folded: dict[SSAValue, np.ndarray] = {}
        self.float32_inputs: set[int] = set()
        """Inputs of a storage-only float type (bfloat16, float8) the node
        reads as float32 (:mod:`xtvm.frontend.onnx.reduced_float`)."""
        self.storage_outputs: list[str | None] = []
        """Per output, the storage-only float a float32 result is cast back to."""
        self._as_float32: dict[int, SSAValue] = {}

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's Python value (ints, floats, str, lists, arrays)."""
        return self.attrs.get(name, default)

    def error(self, message: str) -> OnnxImportError:
        return OnnxImportError(f"{self.label}: {message}")

    def unsupported_attr(self, name: str, reason: str, default: Any = None) -> OnnxImportError:
        """``node 'p' (MaxPool, opset 12): attribute 'storage_order' = 1 is
        not supported: <reason>``; ``default`` is the value an absent
        attribute has."""
        value = self.attrs.get(name, default)
        return self.error(f"attribute '{name}' = {value!r} is not supported: {reason}")

    def input_label(self, i: int) -> str:
        """``input 'C' ('bias')``: the schema's name for input ``i``, and the
        model's value name when there is one."""
        try:
            formals = onnx.defs.get_schema(self.proto.op_type, self.opset, self.proto.domain).inputs
        except onnx.defs.SchemaError:  # a domain onnx does not know (com.microsoft)
            formals = []
        formal = formals[i].name if i < len(formals) else str(i)
        actual = self.proto.input[i] if i < len(self.proto.input) else ""
        return f"input '{formal}'" + (f" ('{actual}')" if actual else "")

    def output_label(self, k: int) -> str:
        """``output 'mask' ('r62')``: the schema's name for output ``k`` and
        the model's value name."""
        formals = onnx.defs.get_schema(self.proto.op_type, self.opset).outputs
        formal = formals[min(k, len(formals) - 1)].name
        return f"output '{formal}' ('{self.proto.output[k]}')"

    def output_used(self, k: int) -> bool:
        """Whether output ``k`` is present and read by a node or the graph output."""
        return (
            k < len(self.proto.output)
            and self.proto.output[k] != ""
            and self.proto.output[k] in self.scope.consumed
        )

    def has_input(self, i: int) -> bool:
        """Whether optional input ``i`` is given (present and not ``""``)."""
        return i < len(self.proto.input) and self.proto.input[i] != ""

    def _name(self, i: int) -> str:
        if not self.has_input(i):
            raise self.error(f"missing {self.input_label(i)}")
        name = self.proto.input[i]
        if not self.scope.is_defined(name):
            raise self.error(
                f"{self.input_label(i)} is not a graph input, an initializer "
                "or the output of an earlier node"
            )
        return name

    def input(self, i: int) -> SSAValue:
        """Input ``i`` as a tensor value; an error naming it when absent.
        When the node folds, a detached constant holding its value."""
        name = self._name(i)
        if i in self.float32_inputs:
            if i not in self._as_float32:
                if self.folding:
                    value = self._detached_const(self.scope.value(name).astype(np.float32))
                else:
                    value = self.emit(CastOp(self.scope.lookup(name), "float32"))
                self._as_float32[i] = value
            return self._as_float32[i]
        if self.folding:
            return self._detached_const(self.scope.value(name))
        return self.scope.lookup(name)

    def input_shape(self, i: int) -> tuple[int, ...]:
        """The static shape of input ``i`` (a constant input stays unmaterialized)."""
        return self.scope.shape(self._name(i))

    def is_constant(self, i: int) -> bool:
        """Whether input ``i`` is present, known at import time and free to
        compute with (see :meth:`GraphScope.is_foldable`: not a weight that
        stays a parameter)."""
        return self.has_input(i) and self.scope.is_foldable(self.proto.input[i])

    def constant_input(self, i: int) -> np.ndarray:
        """The value of input ``i`` at compile time: an initializer, a
        ``Constant`` or folded output, or a graph input the import is
        specialized for. Raises :class:`OnnxConstantInputRequired` (which
        the backend answers by specializing on a graph input) when the
        value is computed at run time."""
        name = self._name(i)
        for values in (self.scope.constants, self.scope.input_values):
            if name in values:
                return values[name].astype(np.float32) if i in self.float32_inputs else values[name]
        raise OnnxConstantInputRequired(
            self.error(
                f"{self.input_label(i)} must be known at compile time (an initializer, "
                "a Constant node's output or a specialized graph input); "
                "computed values are not supported here"
            ).args[0],
            name,
        )

    def optional_constant_input(self, i: int) -> np.ndarray | None:
        """:meth:`constant_input` of optional input ``i``; None when absent."""
        return self.constant_input(i) if self.has_input(i) else None

    def constant_ints(self, i: int) -> list[int]:
        """The values of input ``i``, a constant 1-d integer tensor (axes,
        sizes, slice bounds)."""
        array = self.constant_input(i)
        if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
            raise self.error(
                f"{self.input_label(i)} must be a 1-d integer tensor, "
                f"got {array.dtype} of shape {list(array.shape)}"
            )
        return [int(v) for v in array]

    def optional_constant_ints(self, i: int) -> list[int] | None:
        """:meth:`constant_ints` of optional input ``i``; None when absent."""
        return self.constant_ints(i) if self.has_input(i) else None

    def constant_scalar(self, i: int) -> np.generic:
        """The value of input ``i``, a constant holding one element."""
        array = self.constant_input(i)
        if array.size != 1:
            raise self.error(
                f"{self.input_label(i)} must hold a single value, got shape {list(array.shape)}"
            )
        return array.reshape(())[()]

    def emit(self, op: RelayOp) -> SSAValue:
        """Appends ``op`` to the graph and returns its (first) result; when
        the node folds, evaluates ``op`` on its constant operands instead."""
        if self.folding:
            self._fold(op)
        else:
            self.scope.block.add_op(op)
        return op.results[0]

    def const(self, array: np.ndarray) -> SSAValue:
        """Emits ``relay.const`` of ``array``."""
        return self.emit(ConstOp(const_attr(array, f"a constant of {self.label}")))

    def outputs(self, result: Outputs) -> list[Output]:
        """A converter's result as a list of outputs, folded values as arrays."""
        results = list(result) if isinstance(result, (list, tuple)) else [result]
        if self.storage_outputs:
            from xtvm.frontend.onnx.reduced_float import cast_outputs  # builds on this module

            results = cast_outputs(self, results)
        return [self._folded.get(r, r) if isinstance(r, SSAValue) else r for r in results]

    def _detached_const(self, array: np.ndarray) -> SSAValue:
        const = ConstOp(const_attr(array, f"a constant input of {self.label}"))
        self._folded[const.result] = array
        return const.result

    def _fold(self, op: RelayOp) -> None:
        """Evaluates ``op`` (whose operands are folded values) with its NumPy
        reference and records its results."""
        if isinstance(op, ConstOp):
            self._folded[op.result] = numpy_from_const(op)
            return
        inputs = [self._folded[o] for o in op.operands]
        try:
            with np.errstate(all="ignore"):  # IEEE results (inf, nan) fold as they are
                values = evaluate_results(op.name, inputs, op.attrs)
        except OnnxImportError:
            raise
        except (ValueError, IndexError, KeyError, ZeroDivisionError, OverflowError) as e:
            # A reference that cannot evaluate these values (an edge case such
            # as a zero-size tensor): an error naming the node, not a traceback.
            raise self.error(f"folding '{op.name}' on constant inputs failed: {e}") from None
        for value, result in zip(values, op.results, strict=True):
            ty = result.type
            assert isinstance(ty, TensorType)
            if value.dtype != numpy_dtype(ty.get_element_type()) or value.shape != ty.get_shape():
                raise self.error(
                    f"folding '{op.name}' gave {value.dtype}{list(value.shape)}, "
                    f"but its result type is {ty}"
                )
            self._folded[result] = value


def node_label(proto: onnx.NodeProto, index: int, opset: int) -> str:
    """How errors name a node: ``node 'fc1' (Gemm, opset 13)``; an unnamed
    node is named by its position in the graph, ``node #3``."""
    name = f"'{proto.name}'" if proto.name else f"#{index}"
    op_type = proto.op_type
    if proto.domain not in ("", "ai.onnx"):
        op_type = f"{proto.domain}.{op_type}"
    return f"node {name} ({op_type}, opset {opset})"
