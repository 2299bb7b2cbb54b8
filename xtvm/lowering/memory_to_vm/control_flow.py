"""Relay control flow → the VM's blocks: ``relay.if`` and ``relay.while``
(in their memory form: bodies of allocations and kernel invocations)
become blocks of the graph function joined by ``vm.if`` and ``vm.goto``,
before ``convert-memory-to-vm`` lowers the rest (TVM's VM compiler emits
``If``/``Goto`` the same way).

```mlir
%r = relay.if %c : tensor<i1> -> (tensor<4xf32>) { A; relay.yield %a } else { B; relay.yield %b }
rest(%r)
// becomes
  vm.if %c : tensor<i1>, ^then, ^else
^then:  A; vm.goto ^join(%a : tensor<4xf32>)
^else:  B; vm.goto ^join(%b : tensor<4xf32>)
^join(%r: tensor<4xf32>):  rest(%r)

%v = relay.while %v0 cond { ^(%x): C; relay.condition %c } do { ^(%y): D; relay.yield %y1 }
rest(%v)
// becomes
  vm.goto ^cond(%v0)
^cond(%x):  C; vm.if %c, ^body(%x), ^exit(%x)
^body(%y):  D; vm.goto ^cond(%y1)
^exit(%v):  rest(%v)
```

Results and carried values that are tuples (sequences) are ADT registers
(``!vm.adt``) in the new blocks. Values the bodies read from before the op
stay valid: the block that defines them dominates the new blocks. Nested
control flow is lowered from the outside in. Each body allocates its tensors whenever it runs
(``memory-manifest-alloc`` put the allocations inside the regions).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import TupleType
from xdsl.ir import Attribute, Block, Operation
from xdsl.rewriter import Rewriter

from xtvm.dialects import vm
from xtvm.dialects.relay import ConditionOp, IfOp, TupleGetOp, TupleOp, WhileOp, YieldOp


def _detach_block(owner: Operation, index: int) -> Block:
    region = owner.regions[index]
    block = region.block
    region.detach_block(block)
    return block


def _split_after(op: IfOp | WhileOp) -> Block:
    """Moves what follows ``op`` to a new block whose arguments replace
    ``op``'s results; ``op`` is detached (its regions still hold its bodies)."""
    block = op.parent_block()
    assert block is not None
    rest = block.split_before(op, arg_types=[_register_type(t) for t in op.result_types])
    for result, arg in zip(op.results, rest.args):
        arg.name_hint = result.name_hint
        result.replace_all_uses_with(arg)
    op.detach()
    return rest


def _register_type(ty: Attribute) -> Attribute:
    """A block argument's type in a ``vm.func``: a tuple is an ADT."""
    return vm.ADTType() if isinstance(ty, TupleType) else ty


def _adt_args(block: Block) -> None:
    """Tuple-typed arguments of a loop's block become ADTs."""
    for arg in list(block.args):
        if isinstance(arg.type, TupleType):
            Rewriter.replace_value_with_new_type(arg, vm.ADTType())


def _replace_terminator(block: Block, new: Operation) -> Operation:
    old = block.last_op
    assert old is not None
    block.insert_op_before(new, old)
    block.erase_op(old)
    return old


def _lower_if(op: IfOp) -> None:
    block = op.parent_block()
    assert block is not None and block.parent is not None
    join = _split_after(op)
    then_block, else_block = _detach_block(op, 0), _detach_block(op, 1)
    for branch in (then_block, else_block):
        block.parent.insert_block_before(branch, join)
        yielded = branch.last_op
        assert isinstance(yielded, YieldOp)
        _replace_terminator(branch, vm.GotoOp(join, list(yielded.values)))
    block.add_op(vm.IfOp(op.cond, then_block, [], else_block, []))
    op.erase()


def _lower_while(op: WhileOp) -> None:
    block = op.parent_block()
    assert block is not None and block.parent is not None
    exit_block = _split_after(op)
    cond_block, body_block = _detach_block(op, 0), _detach_block(op, 1)
    _adt_args(cond_block)
    _adt_args(body_block)
    block.parent.insert_block_before(cond_block, exit_block)
    block.parent.insert_block_before(body_block, exit_block)
    block.add_op(vm.GotoOp(cond_block, list(op.inits)))
    condition = cond_block.last_op
    assert isinstance(condition, ConditionOp)
    carried = list(cond_block.args)
    _replace_terminator(
        cond_block, vm.IfOp(condition.condition, body_block, carried, exit_block, carried)
    )
    yielded = body_block.last_op
    assert isinstance(yielded, YieldOp)
    _replace_terminator(body_block, vm.GotoOp(cond_block, list(yielded.values)))
    op.erase()


def _expose_returned_tuples(function: func.FuncOp) -> None:
    """A returned tuple that a control op produced (an ADT register at run
    time) is returned as a ``relay.tuple`` of its fields, which
    ``convert-memory-to-vm`` flattens into the function's results as it
    does for tuples built in the graph."""
    ret = function.body.blocks[-1].last_op
    if not isinstance(ret, func.ReturnOp):
        return
    for k, value in enumerate(list(ret.arguments)):
        if isinstance(value.type, TupleType) and not isinstance(value.owner, TupleOp):
            fields = [TupleGetOp(value, i) for i in range(len(value.type.types))]
            group = TupleOp([f.result for f in fields])
            for op in (*fields, group):
                ret.parent_block().insert_op_before(op, ret)  # type: ignore[union-attr]
            ret.operands[k] = group.result


def lower_control_flow(function: func.FuncOp | vm.FuncOp) -> None:
    """Flattens every ``relay.if``/``relay.while`` of ``function`` (nested
    ones too) into blocks joined by ``vm.if``/``vm.goto``."""
    if isinstance(function, func.FuncOp):
        _expose_returned_tuples(function)
    while True:
        outer = next(
            (
                o
                for block in function.regions[0].blocks
                for o in block.ops
                if isinstance(o, IfOp | WhileOp)
            ),
            None,
        )
        if outer is None:
            return
        if isinstance(outer, IfOp):
            _lower_if(outer)
        else:
            _lower_while(outer)
