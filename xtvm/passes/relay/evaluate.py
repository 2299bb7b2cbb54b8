"""Run a graph function on NumPy arrays with the op references.

The executable semantics of relay IR, for tests and for checking that a pass
keeps a model's meaning: every relay op is evaluated by
``xtvm.reference.relay.evaluate``, ``func.call`` runs the callee the same
way, tuples are Python tuples; ``relay.if`` and ``relay.while`` run their
regions as ``xtvm.reference.relay.control`` says.

```python
outputs = evaluate_function(module, "main", [x, w])   # list of np.ndarray
```
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, SSAValue

from xtvm.dialects.relay import (
    ConditionOp,
    ConstOp,
    IfOp,
    RelayOp,
    TupleGetOp,
    TupleOp,
    WhileOp,
    YieldOp,
)
from xtvm.constants import numpy_dtype, numpy_from_const
from xtvm.reference.relay import control, evaluate_results


class EvaluationError(Exception):
    """The function cannot be evaluated (unknown op, wrong inputs)."""


def evaluate_function(
    module: ModuleOp, name: str, inputs: Sequence[np.ndarray]
) -> list[Any]:
    """The results of ``func.func @name`` in ``module`` applied to ``inputs``."""
    functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    return _run(functions, name, list(inputs))


def _run(functions: dict[str, func.FuncOp], name: str, inputs: list[Any]) -> list[Any]:
    function = functions.get(name)
    if function is None or function.is_declaration:
        raise EvaluationError(f"no function body for @{name}")
    params = function.function_type.inputs.data
    if len(inputs) != len(params):
        raise EvaluationError(f"@{name} takes {len(params)} inputs, got {len(inputs)}")
    env: dict[SSAValue, Any] = {}
    for i, (arg, value) in enumerate(zip(function.args, inputs)):
        if isinstance(arg.type, TensorType):
            value = np.asarray(value).astype(numpy_dtype(arg.type.element_type), copy=False)
            if value.shape != arg.type.get_shape():
                raise EvaluationError(
                    f"@{name} input {i} has shape {value.shape}, expected {arg.type}"
                )
        env[arg] = value
    return _run_block(functions, function.body.block, env, name)


def _run_block(
    functions: dict[str, func.FuncOp], block: Block, env: dict[SSAValue, Any], name: str
) -> list[Any]:
    """Runs ``block``'s ops (its arguments already in ``env``, as are the
    outer values its ops read); the operands of its terminator."""
    for op in block.ops:
        args = [env[o] for o in op.operands]
        if isinstance(op, func.ReturnOp | YieldOp | ConditionOp):
            return args
        if isinstance(op, func.CallOp):
            results = _run(functions, op.callee.root_reference.data, args)
        elif isinstance(op, IfOp):
            results = control.if_(
                args[0],
                lambda _: _run_block(functions, op.then_region.block, env, name),
                lambda _: _run_block(functions, op.else_region.block, env, name),
            )
        elif isinstance(op, WhileOp):

            def region(body: Block) -> Callable[[Sequence[Any]], list[Any]]:
                def run(values: Sequence[Any]) -> list[Any]:
                    env.update(zip(body.args, values))
                    return _run_block(functions, body, env, name)

                return run

            results = control.while_(args, region(op.cond_region.block), region(op.body.block))
        elif isinstance(op, ConstOp):
            results = [numpy_from_const(op)]
        elif isinstance(op, TupleOp):
            results = [tuple(args)]
        elif isinstance(op, TupleGetOp):
            results = [args[0][op.attrs["index"]]]
        elif isinstance(op, RelayOp):
            try:
                results = evaluate_results(op.name, args, op.attrs)
            except KeyError as e:
                raise EvaluationError(f"cannot evaluate {op.name}: {e.args[0]}") from None
        else:
            raise EvaluationError(f"cannot evaluate {op.name} in @{name}")
        env.update(zip(op.results, results))
    raise EvaluationError(f"a block of @{name} has no terminator")
