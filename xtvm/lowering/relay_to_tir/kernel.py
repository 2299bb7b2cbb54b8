"""Relay function bodies and single relay ops → te computations → ``tir.prim_func``.

A primitive function's arguments become placeholders ``p0, p1, ...``; its
ops are replaced in order by their computes (each op's from the pattern
that lowers it, see :class:`KernelBuilder`); its results (a tuple result
counts as its fields) become the output arguments of the kernel. The
kernel's signature is inputs then outputs.

Dynamic shapes: each ``?`` of a kernel input's type becomes its own te shape
variable (:mod:`xtvm.te.symbolic`); the computes carry them to the outputs,
whose ``?`` axes must come out as one of those variables. The kernel is
built in a ``te.shape_scope()``, so a compute may unify two of them (the
elementwise sum of two ``?x64`` tensors), which the kernel's entry then
checks at call time (docs/dynamic-shapes.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, TensorType, TupleType
from xdsl.ir import Attribute, Operation, SSAValue

from xtvm import te, topi
from xtvm.autotvm.dispatch import kernel_scope
from xtvm.dialects import relay, tir
from xtvm.lowering.relay_to_tir.base import ComputeFn, lowering_error
from xtvm.lowering.relay_to_tir.schedule import apply_schedules
from xtvm.schedule import ScheduleError
from xtvm.te import dtype as dt
from xtvm.te.operation import PlaceholderOp
from xtvm.te.symbolic import is_static

GRAPH_OPS: tuple[type[relay.RelayOp], ...] = (
    relay.ConstOp,
    relay.TupleOp,
    relay.TupleGetOp,
    relay.CallLoweredOp,
)
"""Relay ops that stay in graph functions: they compute nothing."""

Value = te.Tensor | list[te.Tensor]


def ranked_tensor_type(ty: Attribute, what: str, op: Operation) -> TensorType:
    """``ty`` as a ranked tensor type (``?`` axes allowed), or a lowering error."""
    if not isinstance(ty, TensorType):
        raise lowering_error(f"{what} has type {ty}; expected a ranked tensor", op)
    return ty


def static_tensor_type(ty: Attribute, what: str, op: Operation) -> TensorType:
    """``ty`` as a statically shaped tensor type, or a lowering error."""
    if not isinstance(ty, TensorType):
        raise lowering_error(f"{what} has type {ty}; expected a ranked tensor", op)
    if DYNAMIC_INDEX in ty.get_shape():
        raise lowering_error(f"{what} has the dynamic type {ty}; only static shapes lower", op)
    return ty


def _dtype(ty: TensorType, op: Operation) -> str:
    try:
        return dt.from_xdsl(ty.element_type)
    except ValueError as e:
        raise lowering_error(str(e), op) from None


def placeholder(ty: TensorType, name: str, op: Operation) -> te.Tensor:
    """The input ``name`` of type ``ty``: each ``?`` is a new shape variable
    (``name_n<axis>``)."""
    dims = [
        te.var(f"{name}_n{k}") if d == DYNAMIC_INDEX else d for k, d in enumerate(ty.get_shape())
    ]
    return te.placeholder(dims, _dtype(ty, op), name)


def _matches(dims: Sequence[object], ty: TensorType) -> bool:
    """Whether a compute's extents fit a result type: equal static extents,
    any extent (a shape variable's expression) at a ``?``."""
    expected = ty.get_shape()
    return len(dims) == len(expected) and all(
        d == e if e != DYNAMIC_INDEX else True for d, e in zip(dims, expected)
    )


def lower_op(op: relay.RelayOp, compute: ComputeFn, inputs: Sequence[te.Tensor]) -> list[te.Tensor]:
    """``compute`` of one relay op on ``inputs``: one tensor per result, checked
    against the op's result types."""
    out_types = [
        ranked_tensor_type(t, f"result {i} of '{op.name}'", op)
        for i, t in enumerate(op.inferred_types())
    ]
    try:
        outs = compute(list(inputs), op.attrs, out_types)
    except (TypeError, ValueError) as e:
        dynamic = [i for i, t in enumerate(inputs) if not is_static(t.shape)]
        if dynamic and "no Python truth value" in str(e):  # a compute that needs static sizes
            raise lowering_error(
                f"cannot lower '{op.name}' with the dynamic operand(s) "
                f"{', '.join(str(i) for i in dynamic)}: its compute needs static sizes ({e})",
                op,
            ) from None
        raise lowering_error(f"cannot lower '{op.name}': {e}", op) from None
    outs = outs if isinstance(outs, list) else [outs]
    for out, out_type in zip(outs, out_types, strict=True):
        if not _matches(out.shape, out_type) or out.dtype != _dtype(out_type, op):
            raise lowering_error(
                f"the compute of '{op.name}' gives {out.dtype}{list(out.shape)}, "
                f"but the op's type is {out_type}",
                op,
            )
    return outs


def _immediate(op: relay.ConstOp, where: str) -> te.Tensor:
    """A splat constant as a compute of its value (inlined wherever it is read)."""
    value: DenseIntOrFPElementsAttr = op.value
    ty = static_tensor_type(value.type, "the constant", op)
    values = value.get_values()
    if len(values) > 1 and values.count(values[0]) != len(values):
        raise lowering_error(
            f"a non-scalar constant ({ty}) in {where}: constants must be graph "
            "parameters, passed to the kernel as arguments; only scalar (or splat) "
            "constants become immediates",
            op,
        )
    return topi.full(ty.get_shape(), _dtype(ty, op), values[0] if values else 0, "T_const")


def _flatten(values: Sequence[Value]) -> list[te.Tensor]:
    out: list[te.Tensor] = []
    for v in values:
        out.extend(v if isinstance(v, list) else [v])
    return out


def _distinct_outputs(outputs: Sequence[te.Tensor]) -> list[te.Tensor]:
    """Outputs that are computed and distinct: an argument returned as is, or
    a tensor returned twice, is copied."""
    seen: set[int] = set()
    result = []
    for i, t in enumerate(outputs):
        if isinstance(t.op, PlaceholderOp) or id(t) in seen:
            t = topi.identity(t, f"T_output{i}")
        seen.add(id(t))
        result.append(t)
    return result


class KernelReuse(Protocol):
    """Kernels a build need not lower (``xtvm.codegen.stubs.PrimitiveKernels``)."""

    def lookup(self, fn: func.FuncOp) -> tuple[str | None, tir.PrimFuncOp | None]:
        """The key of primitive function ``fn`` (None: not keyed) and, when the
        build can reuse its kernel, the kernel's stub (else None)."""
        ...


KERNEL_REUSE: ContextVar[KernelReuse | None] = ContextVar("xtvm_kernel_reuse", default=None)
"""Consulted by ``convert-relay-to-tir`` for each primitive function; set by
``xtvm.build`` only (the printed stages never hold a stub)."""

PRIMITIVE_KEY_ATTR = "xtvm.primitive_key"
"""Set on a kernel lowered while a :data:`KERNEL_REUSE` is active: the key of
the primitive function it came from, under which the build files its stub."""


@dataclass(frozen=True)
class KernelBuilder:
    """Builds kernels from relay ops: ``computes`` maps each relay op name to
    its te compute; ``schedules`` says whether each kernel gets the schedules
    its te ops name (:func:`~xtvm.lowering.relay_to_tir.schedule.apply_schedules`)
    or keeps the default loop nests."""

    computes: Mapping[str, ComputeFn]
    schedules: bool = True

    def can_lower(self, fn: func.FuncOp) -> bool:
        """Whether every compute op in ``fn``'s body has a compute (a
        declaration says yes: :meth:`primitive_function` reports it)."""
        return fn.is_declaration or all(
            op.name in self.computes
            for op in fn.body.ops
            if isinstance(op, relay.RelayOp) and not isinstance(op, GRAPH_OPS)
        )

    def primitive_function(self, fn: func.FuncOp) -> tir.PrimFuncOp:
        """The ``tir.prim_func`` of a primitive function, under the same name."""
        with te.shape_scope():
            return self._lower_primitive(fn)

    def _lower_primitive(self, fn: func.FuncOp) -> tir.PrimFuncOp:
        name = fn.sym_name.data
        where = f"primitive function @{name}"
        if fn.is_declaration:
            raise lowering_error(f"{where} has no body", fn)
        block = fn.body.block
        env: dict[SSAValue, Value] = {}
        inputs = []
        for i, arg in enumerate(block.args):
            ty = ranked_tensor_type(arg.type, f"argument {i} of {where}", fn)
            env[arg] = placeholder(ty, f"p{i}", fn)
            inputs.append(env[arg])
        outputs: list[te.Tensor] | None = None
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                outputs = _flatten([env[v] for v in op.arguments])
            elif isinstance(op, relay.ConstOp):
                env[op.result] = _immediate(op, where)
            elif isinstance(op, relay.TupleOp):
                env[op.result] = _flatten([env[v] for v in op.fields])
            elif isinstance(op, relay.TupleGetOp):
                tup = env[op.tuple]
                assert isinstance(tup, list)
                env[op.result] = tup[op.attrs["index"]]
            elif isinstance(op, relay.RelayOp) and op.name in self.computes:
                args = [env[v] for v in op.operands]
                if any(isinstance(a, list) for a in args):
                    raise lowering_error(f"a tuple operand of '{op.name}' in {where}", op)
                outs = lower_op(op, self.computes[op.name], args)  # type: ignore[arg-type]
                env.update(zip(op.results, outs))
            else:
                raise lowering_error(f"'{op.name}' cannot appear in {where}", op)
        if not outputs:
            raise lowering_error(f"{where} returns nothing", fn)
        with kernel_scope(fn):  # a tuned config, when a dispatch context has one
            return self._prim_func([*inputs, *_distinct_outputs(outputs)], name, fn)

    def single_op(self, op: relay.RelayOp, compute: ComputeFn, name: str) -> tir.PrimFuncOp:
        """A kernel computing one relay op (inputs ``p0, p1, ...`` then the output)."""
        with te.shape_scope():
            inputs = [
                placeholder(
                    ranked_tensor_type(v.type, f"operand {i} of '{op.name}'", op), f"p{i}", op
                )
                for i, v in enumerate(op.operands)
            ]
            return self._prim_func([*inputs, *lower_op(op, compute, inputs)], name, op)

    def _prim_func(self, args: list[te.Tensor], name: str, origin: Operation) -> tir.PrimFuncOp:
        """The kernel of ``args``, with the schedules its te ops name applied
        (unless ``schedules`` is off)."""
        try:
            func = te.create_prim_func(args, name)
        except (TypeError, ValueError) as e:
            raise lowering_error(f"cannot build kernel @{name}: {e}", origin) from None
        if not self.schedules:
            return func
        try:
            apply_schedules(func, [t for t in args if not isinstance(t.op, PlaceholderOp)])
        except ScheduleError as e:
            raise lowering_error(f"cannot schedule kernel @{name}: {e}", origin) from None
        return func


def flat_result_types(types: Sequence[Attribute]) -> list[Attribute]:
    """Result types with tuples replaced by their fields (a kernel's outputs)."""
    flat: list[Attribute] = []
    for ty in types:
        flat.extend(ty.types.data if isinstance(ty, TupleType) else [ty])
    return flat
