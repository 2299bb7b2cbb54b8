"""``te.create_prim_func``: a tensor-expression computation becomes a
``tir.prim_func``.

```python
A = te.placeholder((3,), name="A")
B = te.compute((3,), lambda i: A[i] + 1.0, name="B")
func = te.create_prim_func([A, B], "addone")
```
gives
```mlir
tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 1.000000e+00 : f32
  tir.for %i = %c0 to %c3 kind "serial" {
    %0 = tir.load %A[%i] : memref<3xf32>
    %1 = arith.addf %0, %cst : f32
    tir.store %1, %B[%i] : memref<3xf32>
  }
  tir.return
}
```

Arguments are the given tensors in order: placeholders are inputs, computes
are outputs (destination passing). An extent that is a shape variable
(:mod:`xtvm.te.symbolic`) makes the buffer's axis dynamic (``memref<?x784xf32>``);
the function lists its variables in ``tir.shape_vars`` (each with every
argument axis it is the extent of; the first binds it at call time) and
reads each one once, with ``tir.shape_var``, at the top of its body. Stages are placed by
:mod:`xtvm.te.placement` (inline, attach, materialize) and emitted in
topological order, one ``serial`` loop nest per materialized stage; a
reduction is a one-element ``local`` accumulator: init, then the reduction
loops, then the store of the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType
from xdsl.ir import Block, Operation, Region, SSAValue

from xtvm.dialects import tir
from xtvm.te import dtype as dt
from xtvm.te.emit import BufferRef, ConstantPool, ExprEmitter, Memo
from xtvm.te.expr import IterVar, Reduce, Var, cast
from xtvm.te.operation import ComputeOp, PlaceholderOp, Tensor
from xtvm.te.placement import Stage, plan_stages, topological_order
from xtvm.te.symbolic import Dim, current_equalities, format_dim, free_vars


def buffer_type(tensor: Tensor) -> MemRefType:
    """The memref holding ``tensor``: its element type is the dtype's
    (``memref<4xui8>`` for ``uint8``), which is what ``tir.load`` gives and what
    the packed calling convention checks callers' tensors against; an extent
    that is not an ``int`` is a dynamic axis (``?``)."""
    dims = [d if isinstance(d, int) else DYNAMIC_INDEX for d in tensor.shape]
    return MemRefType(dt.to_xdsl(tensor.dtype), dims)


def accumulator_dtype(dtype: str) -> str:
    """The dtype a reduction of ``dtype`` accumulates in: float32 for float16
    (as NumPy and onnxruntime do; float16 sums lose digits fast), else itself."""
    return "float32" if dtype == "float16" else dtype


def _identifier(name: str) -> str:
    """``name`` as a valid SSA name hint."""
    ident = re.sub(r"[^\w$.-]", "_", name) or "t"
    return ident if not ident[0].isdigit() else f"_{ident}"


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    result = []
    for name in names:
        unique, n = name, 0
        while unique in seen:
            n += 1
            unique = f"{name}_{n}"
        seen.add(unique)
        result.append(unique)
    return result


class _PrimFuncBuilder(ExprEmitter):
    """Emits the loop nests of the planned stages into one function body."""

    def extent(self, dim: Dim) -> SSAValue:
        """The ``index`` value of an extent (a constant, or computed from the
        shape variables)."""
        if isinstance(dim, int):
            return self.consts.index(dim)
        return self.emit(dim)

    def allocate(self, tensor: Tensor) -> SSAValue:
        """A ``global`` buffer for a stage that is not an output; its dynamic
        extents are computed where it is allocated."""
        sizes = [self.extent(d) for d in tensor.shape if not isinstance(d, int)]
        return self.add(tir.AllocateOp(buffer_type(tensor), "global", sizes))

    def loop_nest(self, axes: Sequence[IterVar], body: Callable[[], None]) -> None:
        """``tir.for`` loops over ``axes`` (outermost first) around ``body()``."""
        if not axes:
            body()
            return
        axis, inner = axes[0], axes[1:]
        lb, ub = self.consts.index(axis.lo), self.extent(axis.hi)
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = _identifier(axis.var.name)
        self.bind(axis.var, block.args[0])
        with self.at(block):
            self.loop_nest(inner, body)
        self.add(tir.ForOp(lb, ub, Region(block)))

    def reduction(self, reduce: Reduce, name: str) -> SSAValue:
        """A ``local`` one-element accumulator holding ``reduce``'s value for
        the current point: the identity, then one update per reduction point.
        A float16 reduction accumulates in float32 (:func:`accumulator_dtype`)."""
        dtype = accumulator_dtype(reduce.dtype)
        acc = self.add(tir.AllocateOp(MemRefType(dt.to_xdsl(dtype), [1]), "local"))
        acc.name_hint = _identifier(f"{name}_acc")
        c0 = self.consts.index(0)
        self.add(tir.StoreOp(self.emit(reduce.combiner.identity(dtype)), acc, [c0]))
        source = reduce.source if dtype == reduce.dtype else cast(dtype, reduce.source)

        def update(memo: Memo) -> None:
            current = Var("acc", dtype)
            self.bind(current, self.add(tir.LoadOp(acc, [c0])))
            value = self.emit(reduce.combiner.combine(current, source), memo)
            self.add(tir.StoreOp(value, acc, [c0]))

        def guarded_update() -> None:
            if reduce.condition is None:
                update({})
                return
            memo: Memo = {}
            cond = self.emit(reduce.condition, memo)
            block = Block()
            with self.at(block):
                update(memo)  # values of the condition are reused in the branch
            self.add(tir.IfOp(cond, block))

        self.loop_nest(reduce.axis, guarded_update)
        return acc

    def stage(self, stage: Stage) -> None:
        """The loop nest computing ``stage`` (and its attached reductions)."""
        tensor = stage.tensor
        if not stage.is_output:
            buf = self.allocate(tensor)
            buf.name_hint = _identifier(tensor.name)
            self.buffers[id(tensor)] = BufferRef(buf)
        dest = self.buffers[id(tensor)].buffer
        axis = stage.op.axis

        def element() -> None:
            for attached in stage.attached:
                for mine, theirs in zip(axis, attached.op.axis):
                    self.bind(theirs.var, self.vars[id(mine.var)])
                assert isinstance(attached.body, Reduce)
                acc = self.reduction(attached.body, attached.tensor.name)
                stored = accumulator_dtype(attached.tensor.dtype)
                self.buffers[id(attached.tensor)] = BufferRef(acc, scalar=True, stored=stored)
            if isinstance(stage.body, Reduce):
                acc = self.reduction(stage.body, tensor.name)
                value = self.add(tir.LoadOp(acc, [self.consts.index(0)]))
                value = self.convert(value, accumulator_dtype(tensor.dtype), tensor.dtype)
            else:
                value = self.emit(stage.body)
            self.add(tir.StoreOp(value, dest, [self.vars[id(a.var)] for a in axis]))

        self.loop_nest(axis, element)


def create_prim_func(args: Sequence[Tensor], name: str = "main") -> tir.PrimFuncOp:
    """The ``tir.prim_func @name`` computing the compute tensors among
    ``args`` from the placeholders among them (TVM's ``te.create_prim_func``).

    Raises ``ValueError`` when an output depends on a placeholder that is not
    an argument, when a tensor is passed twice, or when nothing is computed.
    """
    args = list(args)
    for t in args:
        if not isinstance(t, Tensor):
            raise TypeError(f"create_prim_func arguments must be tensors, got {t!r}")
    if len({id(t) for t in args}) != len(args):
        raise ValueError(f"create_prim_func: a tensor is passed twice in {args}")
    outputs = [t for t in args if isinstance(t.op, ComputeOp)]
    if not outputs:
        raise ValueError(f"create_prim_func @{name}: no compute tensor among the arguments")
    order = topological_order(outputs)
    arg_ids = {id(t) for t in args}
    for t in order:
        if isinstance(t.op, PlaceholderOp) and id(t) not in arg_ids:
            raise ValueError(
                f"create_prim_func @{name}: placeholder {t.name} is used but is not an argument"
            )

    names = _unique_names([t.name for t in args])
    func = tir.PrimFuncOp(name, [buffer_type(t) for t in args], arg_names=names)
    body = func.body.block
    builder = _PrimFuncBuilder(ConstantPool(), body)
    for t, arg, arg_name in zip(args, body.args, names):
        arg.name_hint = _identifier(arg_name)
        builder.buffers[id(t)] = BufferRef(arg)
    reads = _bind_shape_vars(func, args, names, order, builder)
    for stage in plan_stages(order, outputs):
        builder.stage(stage)
    body.add_op(tir.ReturnOp())
    for op in reversed(reads):
        body.insert_op_before(op, body.first_op) if body.first_op else body.add_op(op)
    builder.consts.place_at_start(body)
    return func


def _bind_shape_vars(
    func: tir.PrimFuncOp,
    args: Sequence[Tensor],
    names: Sequence[str],
    order: Sequence[Tensor],
    builder: _PrimFuncBuilder,
) -> list[Operation]:
    """Record ``func``'s shape variables (``tir.shape_vars``) and bind each
    variable the computation uses to a ``tir.shape_var`` read: the ops to put
    at the top of the body. Variables assumed equal
    (:func:`xtvm.te.symbolic.assume_equal`) share one read."""
    equal = current_equalities()
    axes: dict[int, list[tuple[int, int]]] = {}
    reps: dict[int, Var] = {}
    for a, t in enumerate(args):
        for k, d in enumerate(t.shape):
            if isinstance(d, int):
                continue
            if not isinstance(d, Var):
                raise ValueError(
                    f"create_prim_func @{func.sym_name.data}: axis {k} of argument "
                    f"{names[a]} has the extent {format_dim(d)}; an argument's dynamic "
                    "extent must be a shape variable"
                )
            rep = equal.find(d)
            reps.setdefault(id(rep), rep)
            axes.setdefault(id(rep), []).append((a, k))
    if not reps:
        return []  # static shapes: nothing to bind
    var_names = _unique_names([_identifier(v.name) for v in reps.values()])
    reads: list[Operation] = []
    values: dict[int, SSAValue] = {}
    for (key, rep), var_name in zip(reps.items(), var_names):
        op = tir.ShapeVarOp(var_name)
        op.res.name_hint = var_name
        reads.append(op)
        values[key] = op.res
    if values:
        func.shape_vars = {n: axes[k] for n, k in zip(var_names, values)}
    conditions = [c for c, _ in equal.requirements]
    for v in _used_vars(order) + free_vars(conditions):
        rep = equal.find(v)
        if id(rep) not in values:
            raise ValueError(
                f"create_prim_func @{func.sym_name.data}: the shape variable {v.name} is "
                "not the extent of any argument axis, so no call can bind it"
            )
        builder.bind(v, values[id(rep)])
    for condition, message in equal.requirements:  # checked once the variables are read
        with builder.at(checks := Block()):
            ok = builder.emit(condition)
            builder.add(tir.AssertOp(ok, message))
        reads.extend(checks.ops)
        for op in list(checks.ops):
            op.detach()
    return reads


def _used_vars(order: Sequence[Tensor]) -> list[Var]:
    """Every shape variable ``order`` uses: in shapes, reduction extents and
    bodies (a mean divides by its extent)."""
    dims: list[Dim] = []
    axis_vars: set[int] = set()
    for t in order:
        dims.extend(t.shape)
        if isinstance(t.op, ComputeOp):
            dims.extend(a.hi for a in t.op.reduce_axis)
            dims.append(t.op.body)
            axis_vars.update(id(a.var) for a in (*t.op.axis, *t.op.reduce_axis))
    return [v for v in free_vars(dims) if id(v) not in axis_vars]
