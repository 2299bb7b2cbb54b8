"""Converters of ONNX control flow: ``If``, ``Loop`` and ``Scan``, whose
subgraphs become the regions of ``relay.if`` and ``relay.while``
(:mod:`xtvm.dialects.relay.control`).

A subgraph is converted into its region's block by the same converters as
the main graph, in a :class:`SubgraphScope`: its own names (its inputs are
the block's arguments) over the enclosing scope's, so a value of the outer
graph that the subgraph reads is used directly (regions are not isolated)
and an outer constant folds inside it.

* ``If``: a constant condition imports the chosen branch in place (no
  ``relay.if``); otherwise each branch is a region yielding its outputs.
* ``Loop``: ``relay.while`` over ``(iteration, condition, v...)``; its cond
  region tests ``condition and iteration < M``. A scan output needs a
  static length: ``M`` and the initial condition known at compile time
  (the backend specializes on them) and a body that passes its condition
  through unchanged; each is then accumulated in a carried ``[N, ...]``
  tensor (``relay.scatter_nd`` of row ``iteration``). A carried value must
  keep its type across an iteration.
* ``Scan`` (opset 9+; opset 8 per batch entry): ``relay.while`` over
  ``(iteration, state..., scan output accumulators...)``, ``relay.take``
  of the scan inputs' slices, with the input and output axes and
  directions of the attributes.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Sequence

import numpy as np
import onnx
from xdsl.dialects.builtin import TensorType, TupleType
from xdsl.ir import Attribute, Block, SSAValue

from xtvm.dialects.relay import (
    AddOp,
    ConcatenateOp,
    ConditionOp,
    ConstOp,
    ExpandDimsOp,
    FullOp,
    IfOp,
    LessOp,
    LogicalAndOp,
    RelayOp,
    ReshapeOp,
    ScatterNdOp,
    SubtractOp,
    TakeOp,
    TransposeOp,
    TupleGetOp,
    TupleOp,
    WhileOp,
    YieldOp,
)
from xtvm.dialects.relay.base import RelayTypeError, is_refinement
from xtvm.dialects.relay.control import join_types
from xtvm.frontend.onnx.common import (
    EMPTY_OPTIONAL,
    RUNTIME_OPTIONALS,
    OnnxConstantInputRequired,
    OnnxImportError,
    const_attr,
    is_empty_optional,
)
from xtvm.frontend.onnx.converter import GraphScope, OnnxNode, OnnxOpConverter, Output

from xtvm.constants import numpy_dtype, numpy_from_const


def graph_reads(graph: onnx.GraphProto) -> set[str]:
    """The value names the nodes of ``graph`` (and of their subgraphs) read,
    and its outputs: what a node output must exist for."""
    names = {o.name for o in graph.output}
    for node in graph.node:
        names.update(node.input)
        for attr in node.attribute:
            for sub in [attr.g] if attr.HasField("g") else list(attr.graphs):
                names |= graph_reads(sub)
    return names


class SubgraphScope(GraphScope):
    """The names of a subgraph under conversion into ``block``: its inputs
    (bound to the block's arguments), initializers and node outputs, over
    those of ``parent``. A parent name resolves in the parent scope (a
    weight stays a ``main`` parameter, a constant folds)."""

    def __init__(self, block: Block, parent: GraphScope, graph: onnx.GraphProto) -> None:
        super().__init__(
            block,
            {t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer},
            True,
            graph_reads(graph),
            parent.input_values,
            parent.fold_inputs,
        )
        self.parent = parent
        self.opsets = parent.opsets
        self.derived = parent.derived
        self._local_constants = self.constants
        # Converters read compile-time values from ``constants`` directly.
        chained = ChainMap(self._local_constants, parent.constants)
        self.constants = chained  # type: ignore[assignment]

    def _local(self, name: str) -> bool:
        return name in self._values or name in self._local_constants

    def is_defined(self, name: str) -> bool:
        return self._local(name) or self.parent.is_defined(name)

    def is_foldable(self, name: str) -> bool:
        if self._local(name):
            return super().is_foldable(name)
        return self.parent.is_foldable(name)

    def value(self, name: str) -> np.ndarray:
        return super().value(name) if self._local(name) else self.parent.value(name)

    def shape(self, name: str) -> tuple[int, ...]:
        return super().shape(name) if self._local(name) else self.parent.shape(name)

    def lookup(self, name: str) -> SSAValue:
        if self._local(name):
            return super().lookup(name)
        return self.parent.lookup(name)

    def output(self, name: str) -> Output:
        """A graph output: its constant value when it folded, else its value."""
        if name in self._local_constants and self.is_foldable(name):
            return self._local_constants[name]
        return self.lookup(name)


def convert_subgraph(
    node: OnnxNode, graph: onnx.GraphProto, block: Block, inputs: Sequence[Output]
) -> SubgraphScope:
    """Converts ``graph`` into ``block``, its inputs bound to ``inputs``
    (values, or constants that fold inside)."""
    from xtvm.frontend.onnx.importer import convert_nodes, plan_nodes

    if len(inputs) != len(graph.input):
        raise node.error(
            f"subgraph '{graph.name}' has {len(graph.input)} inputs, expected {len(inputs)}"
        )
    scope = SubgraphScope(block, node.scope, graph)
    for value_info, value in zip(graph.input, inputs):
        scope.bind(value_info.name, value)
    try:
        convert_nodes(plan_nodes(graph.node, scope.opsets), scope)
    except Exception as e:
        if hasattr(e, "args") and e.args and isinstance(e.args[0], str):
            e.args = (f"{node.label}, subgraph '{graph.name}': {e.args[0]}", *e.args[1:])
        raise
    for value_info in graph.output:
        if not scope.is_defined(value_info.name):
            raise node.error(
                f"output '{value_info.name}' of subgraph '{graph.name}' is not produced"
            )
    return scope


def _add(block: Block, op: RelayOp) -> SSAValue:
    """Appends ``op`` to a region's block; its first result."""
    block.add_op(op)
    return op.results[0]


def _const(block: Block, array: np.ndarray) -> SSAValue:
    return _add(block, ConstOp(const_attr(np.asarray(array), "a loop constant")))


def _scalar(block: Block, value: SSAValue) -> SSAValue:
    """A one-element tensor as a rank-0 one."""
    assert isinstance(value.type, TensorType)
    return value if not value.type.get_shape() else _add(block, ReshapeOp(value, []))


def _zeros(node: OnnxNode, shape: Sequence[int], like: SSAValue) -> SSAValue:
    """Zeros of ``shape`` and ``like``'s element type, in the node's block."""
    element = like.type.get_element_type()  # type: ignore[attr-defined]
    zero = node.const(np.zeros((), numpy_dtype(element)))
    return node.emit(FullOp(zero, list(shape)))


def _is_true(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, ConstOp) and bool(np.all(numpy_from_const(owner)))


class CarriedTypeChange(OnnxImportError):
    """A loop-carried value whose type an iteration changes; ``joined``
    holds the carried types that would fit every iteration (``?`` where a
    size changes), or None when there are none (a sequence that grows)."""

    def __init__(self, message: str, joined: list[Attribute] | None) -> None:
        super().__init__(message)
        self.joined = joined


def _check_carried(
    node: OnnxNode, carried: Sequence[Attribute], yielded: Sequence[Attribute]
) -> None:
    """Each yielded type must be a carried type (or a more precise one)."""
    for k, (before, after) in enumerate(zip(carried, yielded)):
        if is_refinement(before, after):
            continue
        try:
            joined = [join_types("relay.while", b, a, "") for b, a in zip(carried, yielded)]
        except RelayTypeError:
            joined = None
        raise CarriedTypeChange(
            node.error(
                f"loop-carried value #{k} has type {before} before the loop and {after} after "
                "an iteration; a loop-carried value must keep its type (a changing shape needs "
                "dynamic shapes)"
            ).args[0],
            joined,
        )


class If(OnnxOpConverter):
    """``If``: a ``relay.if`` of the two branches, or the chosen branch
    imported in place when the condition is a constant."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[Output]:
        then_graph, else_graph = node.attr("then_branch"), node.attr("else_branch")
        if node.is_constant(0):
            chosen = then_graph if bool(np.all(node.constant_input(0))) else else_graph
            scope = convert_subgraph(node, chosen, node.scope.block, [])
            return [scope.output(o.name) for o in chosen.output]
        node.folding = False
        cond = node.input(0)
        branches: list[tuple[Block, list[SSAValue | None]]] = []
        for graph in (then_graph, else_graph):
            block = Block()
            scope = convert_subgraph(node, graph, block, [])
            yielded = [
                None
                if scope.is_foldable(o.name) and is_empty_optional(scope.value(o.name))
                else scope.lookup(o.name)
                for o in graph.output
            ]
            branches.append((block, yielded))
        (then_block, then_out), (else_block, else_out) = branches
        results: list[Output | None] = []  # None: a yielded value, in order
        optional: list[bool] = []
        for k, (a, b) in enumerate(zip(then_out, else_out)):
            if a is None and b is None:  # empty either way: known at compile time
                results.append(EMPTY_OPTIONAL.copy())
                continue
            results.append(None)
            runtime = a is None or b is None or a in RUNTIME_OPTIONALS or b in RUNTIME_OPTIONALS
            if runtime:
                like = _optional_fields(node, a if a is not None else b)
                then_out[k] = _as_optional(node, then_block, a, like)
                else_out[k] = _as_optional(node, else_block, b, like)
            optional.append(runtime)
        for block, out in branches:
            block.add_op(YieldOp(*(v for v in out if v is not None)))
        op = IfOp(cond, then_block, else_block)
        node.scope.block.add_op(op)
        values = iter(zip(op.results, optional))
        outputs: list[Output] = []
        for result in results:
            if result is not None:
                outputs.append(result)
                continue
            value, runtime = next(values)
            if runtime:
                RUNTIME_OPTIONALS.add(value)
            outputs.append(value)
        return outputs


def _optional_fields(node: OnnxNode, value: SSAValue) -> list[Attribute]:
    """The field types of a run-time optional holding ``value``'s kind: the
    tensor, or the sequence's elements (each static: an empty optional
    holds zeros of them)."""
    if value in RUNTIME_OPTIONALS:
        assert isinstance(value.type, TupleType)
        return list(value.type.types)[1:]
    types = list(value.type.types) if isinstance(value.type, TupleType) else [value.type]
    for ty in types:
        if not (isinstance(ty, TensorType) and ty.has_static_shape()):
            raise node.error(
                f"an optional decided at run time must hold static tensors, got {value.type}"
            )
    return types


def _as_optional(node: OnnxNode, block: Block, value: SSAValue | None, fields: list[Attribute]) -> SSAValue:
    """``value`` as a run-time optional in ``block``: ``(present, *fields)``,
    present false and zero fields for the empty optional (None)."""
    if value in RUNTIME_OPTIONALS:
        return value
    if value is None:
        parts = [_const(block, np.array(False))]
        for ty in fields:
            assert isinstance(ty, TensorType)
            parts.append(_const(block, np.zeros(ty.get_shape(), numpy_dtype(ty.element_type))))
    elif isinstance(value.type, TupleType):
        parts = [_const(block, np.array(True))]
        parts += [_add(block, TupleGetOp(value, k)) for k in range(len(value.type.types))]
    else:
        parts = [_const(block, np.array(True)), value]
    return _add(block, TupleOp(parts))


class _LoopBuilder:
    """Builds one ``relay.while``: carried values ``(iteration, *carried,
    *accumulators)``, the cond and body blocks, and the scan outputs
    accumulated row by row."""

    def __init__(
        self,
        node: OnnxNode,
        carried: Sequence[SSAValue],
        types: Sequence[Attribute] | None = None,
    ) -> None:
        """``types``: the carried types (``?`` where a size changes), by
        default the initial values'."""
        self.node = node
        self.inits: list[SSAValue] = [node.const(np.array(0, np.int64)), *carried]
        types = [self.inits[0].type, *(types or [v.type for v in carried])]
        self.cond = Block(arg_types=types)
        self.body = Block(arg_types=types)

    def iteration(self, block: Block) -> SSAValue:
        return block.args[0]

    def carried(self, block: Block) -> list[SSAValue]:
        return list(block.args[1 : len(self.inits)])

    def accumulate(self, outputs: Sequence[SSAValue], rows: int, index: SSAValue) -> list[SSAValue]:
        """Adds a carried ``[rows, ...]`` accumulator per scan output, each
        updated at row ``index`` of the body; the updated values."""
        updated = []
        for value in outputs:
            assert isinstance(value.type, TensorType)
            ty = TensorType(value.type.element_type, [rows, *value.type.get_shape()])
            self.inits.append(_zeros(self.node, ty.get_shape(), value))
            self.cond.insert_arg(ty, len(self.cond.args))
            acc = self.body.insert_arg(ty, len(self.body.args))
            row = _add(self.body, ReshapeOp(index, [1]))
            updated.append(_add(self.body, ScatterNdOp(acc, row, value)))
        return updated

    def finish(self, test: SSAValue, yielded: Sequence[SSAValue]) -> list[SSAValue]:
        """Ends the blocks (the cond region's ``test``; the body's next
        iteration count and ``yielded``), adds the loop; its results
        without the iteration count."""
        self.cond.add_op(ConditionOp(test))
        one = _const(self.body, np.array(1, np.int64))
        step = _add(self.body, AddOp(self.iteration(self.body), one))
        self.body.add_op(YieldOp(step, *yielded))
        _check_carried(self.node, list(self.body.arg_types)[1:], [v.type for v in yielded])
        op = WhileOp(self.inits, self.cond, self.body)
        self.node.scope.block.add_op(op)
        return list(op.results[1:])


def _condition_is_static(body: onnx.GraphProto) -> bool:
    """Whether a loop body's condition output is its condition input
    (through ``Identity``s) or a ``Constant``: only then can the loop be
    unrolled without knowing run-time values."""
    producers = {out: n for n in body.node for out in n.output}
    name = body.output[0].name
    while (producer := producers.get(name)) is not None and producer.op_type == "Identity":
        name = producer.input[0]
    if producer is not None:
        return producer.op_type == "Constant"
    return len(body.input) > 1 and name == body.input[1].name


class Loop(OnnxOpConverter):
    """``Loop``: see the module docstring."""

    MAX_UNROLL = 1024
    """The most iterations an unrolled loop may have."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[Output]:
        node.folding = False
        try:
            return cls._while(node)
        except OnnxImportError as first:
            try:
                return cls._unroll(node)
            except OnnxConstantInputRequired:
                raise  # the backend specializes on M or the condition, and imports again
            except OnnxImportError:
                pass
            if isinstance(first, CarriedTypeChange) and first.joined is not None:
                # A run-time trip count: carried values with ? sizes (the VM's dynamic shapes).
                try:
                    return cls._while(node, first.joined)
                except OnnxImportError:
                    pass
            raise first from None

    @classmethod
    def _unroll(cls, node: OnnxNode) -> list[Output]:
        """The loop unrolled at import, for a trip count and initial
        condition known at compile time and a body whose condition folds:
        each iteration's body converted in place, its iteration number a
        constant (so ``Slice(x, i, i + 1)`` has static bounds) and its
        carried values free to change type (a growing sequence)."""
        body: onnx.GraphProto = node.attr("body")
        if not node.has_input(0):
            raise node.error("a Loop without a trip count M cannot be unrolled")
        if not _condition_is_static(body):
            raise node.error("the body computes its condition at run time: it cannot be unrolled")
        trips = int(node.constant_scalar(0))
        cond = bool(node.constant_scalar(1)) if node.has_input(1) else True
        if trips > cls.MAX_UNROLL:
            raise node.error(
                f"{trips} iterations are too many to unroll (at most {cls.MAX_UNROLL})"
            )
        count = len(node.proto.input) - 2
        values: list[Output] = [
            node.scope.value(node.proto.input[i]) if node.is_constant(i) else node.input(i)
            for i in range(2, 2 + count)
        ]
        scans: list[list[Output]] = []
        for t in range(trips):
            if not cond:
                break
            inputs = [np.array(t, np.int64), np.array(True), *values]
            scope = convert_subgraph(node, body, node.scope.block, inputs)
            outputs = [scope.output(o.name) for o in body.output]
            if isinstance(outputs[0], SSAValue):
                raise node.error(
                    "the body computes its condition at run time: it cannot be unrolled"
                )
            cond = bool(np.all(outputs[0]))
            values = outputs[1 : 1 + count]
            scans.append(outputs[1 + count :])
        stacked: list[Output] = []
        for j in range(len(body.output) - 1 - count):
            rows = [scan[j] for scan in scans]
            if not rows:
                raise node.error(
                    "a scan output of a loop that runs no iteration has no known shape"
                )
            if all(isinstance(r, np.ndarray) for r in rows):
                stacked.append(np.stack(rows))  # type: ignore[arg-type]
                continue
            tensors = [node.const(r) if isinstance(r, np.ndarray) else r for r in rows]
            expanded = [node.emit(ExpandDimsOp(r, 0)) for r in tensors]
            if len(expanded) > 1:
                expanded = [node.emit(ConcatenateOp(expanded, 0))]
            stacked.append(expanded[0])
        return [*values, *stacked]

    @classmethod
    def _while(cls, node: OnnxNode, types: Sequence[Attribute] | None = None) -> list[Output]:
        """The loop as a ``relay.while``; ``types``: the carried types
        (condition and values), by default the initial values'."""
        body: onnx.GraphProto = node.attr("body")
        count = len(node.proto.input) - 2
        values = [node.input(2 + k) for k in range(count)]
        cond = _scalar(node.scope.block, node.input(1)) if node.has_input(1) else None
        if cond is None:
            cond = node.const(np.array(True))
        trip = _scalar(node.scope.block, node.input(0)) if node.has_input(0) else None
        loop = _LoopBuilder(node, [cond, *values], types)

        # The cond region: condition and iteration < M.
        test = loop.carried(loop.cond)[0]
        if trip is not None:
            below = _add(loop.cond, LessOp(loop.iteration(loop.cond), trip))
            test = _add(loop.cond, LogicalAndOp(test, below))

        args = [loop.iteration(loop.body), *loop.carried(loop.body)]
        scope = convert_subgraph(node, body, loop.body, args)
        outputs = [scope.lookup(o.name) for o in body.output]
        if len(outputs) < 1 + count:
            raise node.error(f"the body has {len(outputs)} outputs, expected at least {1 + count}")
        cond_out = _scalar(loop.body, outputs[0])
        scans = outputs[1 + count :]
        accumulated, empty = [], []
        if scans:
            rows = cls._static_trip_count(node, cond_out, args[1])
            if rows:
                accumulated = loop.accumulate(scans, rows, loop.iteration(loop.body))
            else:  # no iteration: empty scan outputs
                shapes = [s.type.get_shape() for s in scans]  # type: ignore[attr-defined]
                empty = [_zeros(node, [0, *shape], s) for shape, s in zip(shapes, scans)]
        results = loop.finish(test, [cond_out, *outputs[1 : 1 + count], *accumulated])
        return [*results[1:], *empty]

    @classmethod
    def _static_trip_count(cls, node: OnnxNode, cond_out: SSAValue, cond_in: SSAValue) -> int:
        """The iteration count of a loop with scan outputs, which must be
        known at compile time."""
        if not node.has_input(0):
            raise node.error(
                "scan outputs of a Loop without a trip count M have a run-time length; "
                "they need dynamic shapes"
            )
        if cond_out is not cond_in and not _is_true(cond_out):
            raise node.error(
                "scan outputs of a Loop whose body computes its condition have a run-time "
                "length; they need dynamic shapes"
            )
        trips = int(node.constant_scalar(0))
        if node.has_input(1) and not bool(node.constant_scalar(1)):
            return 0
        return max(trips, 0)


class Scan(OnnxOpConverter):
    """``Scan``: see the module docstring."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> list[Output]:
        node.folding = False
        scans = node.attr("num_scan_inputs")
        count = len(node.proto.input) - scans
        states = [node.input(k) for k in range(count)]
        xs = [node.input(count + j) for j in range(scans)]
        axes = list(node.attr("scan_input_axes", [0] * scans))
        directions = list(node.attr("scan_input_directions", [0] * scans))
        out_count = len(node.attr("body").output) - count
        out_axes = list(node.attr("scan_output_axes", [0] * out_count))
        out_directions = list(node.attr("scan_output_directions", [0] * out_count))
        return cls._scan(node, states, xs, axes, directions, out_axes, out_directions)

    @classmethod
    def _impl_v8(cls, node: OnnxNode) -> list[Output]:
        """Opset 8: a batch axis first on every state and input, an optional
        ``sequence_lens`` (which must be the full length); each batch entry
        is scanned on its own and the results stacked."""
        node.folding = False
        scans = node.attr("num_scan_inputs")
        count = len(node.proto.input) - 1 - scans
        states = [node.input(1 + k) for k in range(count)]
        xs = [node.input(1 + count + j) for j in range(scans)]
        batch = node.input_shape(1 + count)[0]
        steps = node.input_shape(1 + count)[1]
        if node.has_input(0) and not np.all(node.constant_input(0) == steps):
            raise node.error("sequence_lens shorter than the scan length are not supported")
        directions = list(node.attr("directions", [0] * scans))
        out_count = len(node.attr("body").output) - count
        per_batch = []
        for b in range(batch):
            index = node.const(np.array(b, np.int64))
            pick = [node.emit(TakeOp(v, index, axis=0)) for v in [*states, *xs]]
            per_batch.append(
                cls._scan(
                    node, pick[:count], pick[count:], [0] * scans, directions,
                    [0] * out_count, [0] * out_count,
                )
            )
        stacked = []
        for k in range(len(per_batch[0])):
            rows = [node.emit(ExpandDimsOp(r[k], 0)) for r in per_batch]  # type: ignore[arg-type]
            stacked.append(rows[0] if len(rows) == 1 else node.emit(ConcatenateOp(rows, 0)))
        return stacked

    @classmethod
    def _scan(
        cls,
        node: OnnxNode,
        states: Sequence[SSAValue],
        xs: Sequence[SSAValue],
        axes: Sequence[int],
        directions: Sequence[int],
        out_axes: Sequence[int],
        out_directions: Sequence[int],
    ) -> list[Output]:
        body: onnx.GraphProto = node.attr("body")
        shapes = [x.type.get_shape() for x in xs]  # type: ignore[attr-defined]
        axes = [a % len(s) if len(s) else 0 for a, s in zip(axes, shapes)]
        lengths = {s[a] for s, a in zip(shapes, axes)}
        if len(lengths) != 1:
            raise node.error(f"the scan inputs have different lengths {sorted(lengths)}")
        (steps,) = lengths
        loop = _LoopBuilder(node, states)
        limit = node.const(np.array(steps, np.int64))
        test = _add(loop.cond, LessOp(loop.iteration(loop.cond), limit))

        i = loop.iteration(loop.body)
        last = _const(loop.body, np.array(steps - 1, np.int64))
        reverse = _add(loop.body, SubtractOp(last, i))
        slices = [
            _add(loop.body, TakeOp(x, reverse if d else i, axis=a))
            for x, a, d in zip(xs, axes, directions)
        ]
        scope = convert_subgraph(node, body, loop.body, [*loop.carried(loop.body), *slices])
        outputs = [scope.lookup(o.name) for o in body.output]
        count = len(states)
        updated: list[SSAValue] = []
        for k, value in enumerate(outputs[count:]):
            updated += loop.accumulate([value], steps, reverse if out_directions[k] else i)
        results = loop.finish(test, [*outputs[:count], *updated])
        final: list[Output] = list(results[:count])
        for k, acc in enumerate(results[count:]):
            rank = len(acc.type.get_shape())  # type: ignore[attr-defined]
            axis = out_axes[k] % rank
            if axis:
                perm = [*range(1, axis + 1), 0, *range(axis + 1, rank)]
                acc = node.emit(TransposeOp(acc, axes=perm))
            final.append(acc)
        return final


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"If": If, "Loop": Loop, "Scan": Scan}

__all__ = ["CONVERTERS", "SubgraphScope", "convert_subgraph", "graph_reads"]
