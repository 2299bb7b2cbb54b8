"""Where each compute stage of a function is evaluated: the default schedule
that ``create_prim_func`` applies before emitting loops.

Three placements, after TVM's ``compute_inline`` and ``compute_at``:

* inlined: a stage without reduction that is not an output (and whose op
  does not ask for ``attrs["materialize"]``) is substituted into every consumer (its body, with its axes replaced by the consumer's
  indices), so chains of elementwise, broadcast and injective ops cost no
  buffer;
* attached: a reduction that is not an output and whose only consumer is an
  elementwise output reading it at the output's own indices is computed per
  output element, inside the output's loop nest, into a one-element ``local``
  accumulator. ``relu(bias_add(dense))`` becomes one loop nest: per output
  element, the reduction's init and accumulation loop, then the epilogue;
* materialized: every other stage gets its own loop nest, writing its output
  argument or a ``global`` buffer allocated in the function.

The plan is data (:class:`Stage` records), so a later schedule can start from
it; the loops themselves are ``tir.for`` ops a schedule rewrites.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xtvm.te.expr import PrimExpr, ProducerLoad, Reduce
from xtvm.te.operation import ComputeOp, PlaceholderOp, Tensor, loads
from xtvm.te.symbolic import same_dims
from xtvm.te.traversal import post_order_map, substitute


@dataclass
class Stage:
    """A materialized compute: its tensor, its body after inlining, whether it
    writes an argument (``is_output``) or an allocated buffer, and the
    reductions attached to its loop nest."""

    tensor: Tensor
    body: PrimExpr
    is_output: bool
    attached: list[Stage] = field(default_factory=list)

    @property
    def op(self) -> ComputeOp:
        assert isinstance(self.tensor.op, ComputeOp)
        return self.tensor.op

    @property
    def is_reduction(self) -> bool:
        return isinstance(self.body, Reduce)


def topological_order(outputs: Sequence[Tensor]) -> list[Tensor]:
    """Every tensor the outputs depend on (placeholders included), producers first."""
    order: list[Tensor] = []
    state: dict[int, bool] = {}  # False: on the DFS stack, True: done

    def visit(t: Tensor) -> None:
        done = state.get(id(t))
        if done:
            return
        if done is False:
            raise ValueError(f"tensor {t.name} depends on itself")
        state[id(t)] = False
        for producer in t.op.input_tensors:
            visit(producer)
        state[id(t)] = True
        order.append(t)

    for t in outputs:
        visit(t)
    return order


def _is_identity_access(load: ProducerLoad, consumer: Stage) -> bool:
    axis = consumer.op.axis
    return same_dims(load.producer.shape, consumer.tensor.shape) and all(
        index is a.var for index, a in zip(load.indices, axis)
    )


def plan_stages(order: Sequence[Tensor], outputs: Sequence[Tensor]) -> list[Stage]:
    """The materialized stages in evaluation order, with inlining applied to
    their bodies and attached reductions moved into their consumers."""
    output_ids = {id(t) for t in outputs}
    inlined: dict[int, tuple[ComputeOp, PrimExpr]] = {}

    def inline(e: PrimExpr) -> PrimExpr:
        if isinstance(e, ProducerLoad) and id(e.producer) in inlined:
            op, body = inlined[id(e.producer)]
            return substitute(body, {a.var: i for a, i in zip(op.axis, e.indices)})
        return e

    stages: list[Stage] = []
    for t in order:
        if isinstance(t.op, PlaceholderOp):
            continue
        assert isinstance(t.op, ComputeOp)
        body = post_order_map(t.op.body, inline)
        if not isinstance(body, Reduce) and id(t) not in output_ids and not t.op.attrs.get(
            "materialize"
        ):
            inlined[id(t)] = (t.op, body)
        else:
            stages.append(Stage(t, body, id(t) in output_ids))

    by_id = {id(s.tensor): s for s in stages}
    consumers: dict[int, list[Stage]] = {id(s.tensor): [] for s in stages}
    for s in stages:
        for producer_id in {id(load.producer) for load in loads(s.body)}:
            if producer_id in consumers:
                consumers[producer_id].append(s)

    attached: set[int] = set()
    for s in stages:
        users = consumers[id(s.tensor)]
        if s.is_output or not s.is_reduction or len(users) != 1:
            continue
        (user,) = users
        if user.is_reduction:
            continue
        if all(
            _is_identity_access(load, user)
            for load in loads(user.body)
            if load.producer is s.tensor
        ):
            by_id[id(user.tensor)].attached.append(s)
            attached.add(id(s.tensor))
    return [s for s in stages if id(s.tensor) not in attached]
