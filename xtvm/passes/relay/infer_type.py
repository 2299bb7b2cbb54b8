"""``relay-infer-type``: refine every relay value's type with its op's type rule.

TVM's ``relay.transform.InferType``. Declared result types may be less
precise than what the rule derives (``?`` dimensions, ``tensor<*xf32>``);
this pass replaces them by the inferred types in program order, so the
refinement flows to every use, to ``func.return`` and to the function type.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.relay import CallLoweredOp, RelayOp, RelayTypeError
from xtvm.dialects.relay.base import is_refinement


def _refine(value: SSAValue, new_type: Attribute) -> bool:
    """Give ``value`` the more precise ``new_type``; whether anything changed."""
    if value.type == new_type or not is_refinement(value.type, new_type):
        return False
    Rewriter.replace_value_with_new_type(value, new_type)
    return True


def _refine_params(function: func.FuncOp, calls: list[func.CallOp]) -> bool:
    """Refine a private function's parameters when all its call sites agree."""
    if function.sym_visibility is None or function.sym_visibility.data != "private":
        return False
    if not calls:
        return False
    changed = False
    for index, param in enumerate(function.args):
        arg_types = {call.arguments[index].type for call in calls}
        if len(arg_types) == 1:
            changed |= _refine(param, arg_types.pop())
    if changed:
        function.update_function_type()
    return changed


def _infer_body(function: func.FuncOp, functions: dict[str, func.FuncOp]) -> bool:
    changed = False
    for op in function.body.walk():
        if isinstance(op, RelayOp) and not isinstance(op, CallLoweredOp):
            try:
                inferred = op.inferred_types()
            except RelayTypeError as e:
                raise PassFailedException(f"relay-infer-type: {e}\n  in: {op!s}") from None
        elif isinstance(op, func.CallOp) and (
            callee := functions.get(op.callee.root_reference.data)
        ):
            inferred = callee.function_type.outputs.data
        else:
            continue
        for result, new_type in zip(op.results, inferred):
            changed |= _refine(result, new_type)
    ret = function.get_return_op()
    if ret is not None and tuple(ret.operand_types) != function.function_type.outputs.data:
        function.update_function_type()
        changed = True
    return changed


def _check_calls(calls: dict[str, list[func.CallOp]], functions: dict[str, func.FuncOp]):
    for name, sites in calls.items():
        if (callee := functions.get(name)) is None:
            continue
        params = callee.function_type.inputs.data
        for call in sites:
            if tuple(call.arguments.types) != params:
                raise PassFailedException(
                    f"relay-infer-type: @{name} takes ({', '.join(map(str, params))}) but a "
                    f"call passes the refined types ({', '.join(map(str, call.arguments.types))}); "
                    "only private functions whose call sites agree are refined\n"
                    f"  in: {call!s}"
                )


@dataclass(frozen=True)
class InferTypePass(ModulePass):
    """Recompute every relay op's result types with its type rule.

    Input: a module whose relay ops verify (declared types are the inferred
    types or less precise forms of them).

    Output: every relay op's results carry exactly the type its rule infers;
    ``func.call`` results carry the callee's result types; every function's
    result types are those of its ``func.return``. A private function's
    parameters take the argument types of its call sites when they all agree.

    Invariants: no op is added, removed or reordered; only types become more
    precise. ``relay.call_lowered`` results are kept (the kernel defines them).
    A call whose refined arguments no longer match its callee is an error.

    ```mlir
    func.func @main(%x: tensor<4x3xf32>) -> tensor<*xf32> {
      %y = relay.add %x, %x : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
      %z = relay.nn.relu %y : tensor<?x3xf32>
      func.return %z : tensor<?x3xf32>
    }
    // becomes
    func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %y = relay.add %x, %x : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
      %z = relay.nn.relu %y : tensor<4x3xf32>
      func.return %z : tensor<4x3xf32>
    }
    ```
    """

    name = "relay-infer-type"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = {
            f.sym_name.data: f
            for f in op.ops
            if isinstance(f, func.FuncOp) and not f.is_declaration
        }
        calls: dict[str, list[func.CallOp]] = defaultdict(list)
        for call in op.walk():
            if isinstance(call, func.CallOp):
                calls[call.callee.root_reference.data].append(call)
        # Types only ever become more precise, so this reaches a fixed point.
        changed = True
        while changed:
            changed = False
            for name, function in functions.items():
                changed |= _refine_params(function, calls[name])
                changed |= _infer_body(function, functions)
        _check_calls(calls, functions)
