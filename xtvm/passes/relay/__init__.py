"""Relay-level passes: module-to-module transformations of graph functions.

| pass | module | TVM |
|---|---|---|
| ``relay-infer-type`` | :mod:`.infer_type` | ``relay.transform.InferType`` |
| ``relay-fold-constant`` | :mod:`.fold_constant` | ``FoldConstant`` |
| ``relay-dead-code-elimination`` | :mod:`.dead_code_elimination` | ``DeadCodeElimination`` |
| ``relay-simplify-expr`` | :mod:`.simplify_expr` | ``SimplifyExpr`` |
| ``relay-fuse-ops`` | :mod:`.fuse_ops` | ``FuseOps`` |

Helper shared with the frontend and the tests: :mod:`.evaluate` (run a
graph function on NumPy arrays with the op references; ``relay.const`` <->
NumPy is :mod:`xtvm.constants`).

The ``relay.primitive`` attribute that marks fused functions, and their
kernel names, are IR facts: :mod:`xtvm.dialects.relay.primitive`.

Nothing is imported here, so registering a pass does not import NumPy.
"""
