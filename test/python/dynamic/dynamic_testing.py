"""Helpers of the dynamic-shape tests: a relay module with ``?`` dimensions is
lowered (optionally fused) to kernels compiled once, then run at several
sizes against the NumPy references of its ops.

The graph ``@main`` is run op by op in Python: each ``relay.call_lowered``
calls its kernel with output tensors shaped like the reference's results
(the shape functions that would compute them belong to the VM), so one
compiled kernel sees every size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.parser import Parser

from xtvm.constants import numpy_from_const
from xtvm.dialects import relay, tir
from xtvm.driver.pipeline import mlir_context, run_steps, stage_steps, steps_between
from xtvm.passes.registry import PASSES
from xtvm.reference.relay import evaluate_results
from xtvm.runtime import Module, NDArray
from xtvm.transform import PassContext

SIZES = (1, 3, 8, 64)
"""The run-time sizes every family is checked at."""

PER_OP_SLOW_AND_FUSED = [pytest.param(False, marks=pytest.mark.slow), True]
"""The ``fuse`` values of a family's test: one kernel per op in the slow run
(the fused kernels, in the default run, compute the same ops)."""


def parse(text: str) -> ModuleOp:
    return Parser(mlir_context(), text).parse_module()


def run_pass(name: str, module: ModuleOp, **options: Any) -> None:
    PASSES[name]()(**options).apply(mlir_context(), module)
    module.verify()


def compile_kernels(module: ModuleOp) -> Module:
    """The runtime module of every ``tir.prim_func`` in ``module`` (which is
    left as it is): flattened, lowered to llvm and JIT-compiled."""
    from xtvm.codegen import jit, tir_signature

    kernels = ModuleOp([op.clone() for op in module.ops if isinstance(op, tir.PrimFuncOp)])
    run_pass("tir-flatten-buffer", kernels)
    functions = {op.sym_name.data: tir_signature(op) for op in kernels.ops}
    run_pass("convert-tir-to-llvm", kernels)
    return jit(kernels, {"version": 1, "functions": functions, "graph_json": None, "params": {}})


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def evaluate(module: ModuleOp, name: str, inputs: Sequence[np.ndarray]) -> list[list[Any]]:
    """The results of each op of ``@name``'s body on ``inputs`` with the NumPy
    references (calls of other functions are evaluated too), in op order;
    the last entry is what ``func.return`` returns."""
    functions = _functions(module)
    env: dict[SSAValue, Any] = dict(zip(functions[name].args, inputs, strict=True))
    per_op: list[list[Any]] = []
    for op in functions[name].body.block.ops:
        args = [env[o] for o in op.operands]
        if isinstance(op, func.ReturnOp):
            results = args
        elif isinstance(op, func.CallOp):
            results = evaluate(module, op.callee.root_reference.data, args)[-1]
        elif isinstance(op, relay.ConstOp):
            results = [numpy_from_const(op).reshape(op.result.type.get_shape())]
        elif isinstance(op, relay.RelayOp):
            results = evaluate_results(op.name, args, op.attrs)
        else:
            raise ValueError(f"cannot evaluate {op.name}")
        env.update(zip(op.results, results))
        per_op.append(results)
    return per_op


class DynamicModel:
    """A relay module with ``?`` dimensions, lowered and compiled once:
    op by op (``fuse``: after relay-fuse-ops), or through the compiler's
    pipeline (``pipeline``: every relay pass of ``xtvm-compile`` at opt level
    3, then the tir stage's passes)."""

    def __init__(
        self, text: str, fuse: bool = False, schedules: bool = True, pipeline: bool = False
    ):
        module = parse(text)
        if pipeline:
            with PassContext(opt_level=3):
                run_steps(module, steps_between("relay", "relay-opt"))
                self.reference = module.clone()
                run_steps(module, stage_steps("tir"))
        else:
            run_pass("relay-infer-type", module)
            if fuse:
                run_pass("relay-fuse-ops", module)
            self.reference = module.clone()
            run_pass("convert-relay-to-tir", module, schedules=schedules)
        self.lowered = module
        self.kernels = compile_kernels(module)

    def prim_funcs(self) -> dict[str, tir.PrimFuncOp]:
        return {f.sym_name.data: f for f in self.lowered.ops if isinstance(f, tir.PrimFuncOp)}

    def run(self, inputs: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(compiled outputs, reference outputs) of ``@main`` on ``inputs``."""
        expected = evaluate(self.reference, "main", inputs)
        main = _functions(self.lowered)["main"]
        env: dict[SSAValue, Any] = dict(zip(main.args, inputs, strict=True))
        for op, ref in zip(main.body.block.ops, expected, strict=True):
            args = [env[o] for o in op.operands]
            if isinstance(op, func.ReturnOp):
                return [np.asarray(a) for a in args], [np.asarray(r) for r in ref]
            if isinstance(op, relay.ConstOp):
                results = [numpy_from_const(op).reshape(op.result.type.get_shape())]
            elif isinstance(op, relay.CallLoweredOp):
                outs = [NDArray(np.zeros(r.shape, r.dtype)) for r in ref]
                self.kernels[op.callee.root_reference.data](
                    *(NDArray(np.require(a, requirements="C")) for a in args), *outs
                )
                results = [o.numpy() for o in outs]
            else:
                raise ValueError(f"cannot run {op.name} in the lowered @main")
            env.update(zip(op.results, results))
        raise ValueError("@main has no func.return")


def check_sizes(
    model: DynamicModel,
    make_inputs: Callable[[int, np.random.Generator], Sequence[np.ndarray]],
    sizes: Sequence[int] = SIZES,
    rtol: float = 1e-5,
    atol: float = 1e-5,
) -> None:
    """Run ``model`` at every size (``make_inputs(n, rng)``) against NumPy."""
    rng = np.random.default_rng(0)
    for n in sizes:
        inputs = make_inputs(n, rng)
        got, want = model.run(inputs)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, f"size {n}: shape {g.shape}, expected {w.shape}"
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"size {n}")


def uniform(*shape: int, rng: np.random.Generator, dtype: str = "float32") -> np.ndarray:
    return rng.uniform(-2, 2, size=shape).astype(dtype)
