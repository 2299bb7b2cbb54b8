"""Helpers of the topi tests: compile kernels end to end (te or relay →
tir → tir-flatten-buffer → convert-tir-to-llvm → xtvm.codegen.jit) and run
them on NumPy arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Region
from xdsl.irdl import VarOperandDef
from xdsl.parser import Parser

from xtvm import te
from xtvm.dialects import relay, tir
from xtvm.driver.pipeline import mlir_context
from xtvm.passes.registry import PASSES
from xtvm.runtime import Module, NDArray
from xtvm.te import dtype as dt


def _run_pass(name: str, module: ModuleOp) -> None:
    PASSES[name]()().apply(mlir_context(), module)
    module.verify()


def compile_kernels(module: ModuleOp) -> Module:
    """A runtime module of every ``tir.prim_func`` in ``module`` (consumed)."""
    from xtvm.codegen import jit, tir_signature

    kernels = ModuleOp([op.clone() for op in module.ops if isinstance(op, tir.PrimFuncOp)])
    _run_pass("tir-flatten-buffer", kernels)
    functions = {
        op.sym_name.data: tir_signature(op)
        for op in kernels.ops
        if isinstance(op, tir.PrimFuncOp)
    }
    _run_pass("convert-tir-to-llvm", kernels)
    header = {"version": 1, "functions": functions, "graph_json": None, "params": {}}
    return jit(kernels, header)


def call(
    mod: Module, name: str, inputs: Sequence[np.ndarray], outputs: Sequence[tuple[tuple, str]]
) -> list[np.ndarray]:
    """Call kernel ``name`` on ``inputs``; ``outputs`` are (shape, dtype) pairs."""
    outs = [NDArray(np.zeros(shape, dtype)) for shape, dtype in outputs]
    mod[name](*(NDArray(np.require(a, requirements="C")) for a in inputs), *outs)
    return [o.numpy() for o in outs]


def run_te(args: Sequence[te.Tensor], inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Lower ``args`` with create_prim_func, compile, run on ``inputs`` (the
    placeholders' values in order); return the computed tensors' values."""
    mod = compile_kernels(ModuleOp([te.create_prim_func(args, "kernel")]))
    outputs = [(t.shape, t.dtype) for t in args if isinstance(t.op, te.ComputeOp)]
    return call(mod, "kernel", inputs, outputs)


def relay_op_module(
    op_cls: type[relay.RelayOp], types: Sequence[TensorType], **kwargs: object
) -> tuple[ModuleOp, relay.RelayOp]:
    """``func.func @main`` applying one relay op (built by its constructor) to
    arguments (passed as one list to an op with a single variadic operand)."""
    block = Block(arg_types=types)
    operand_defs = op_cls.get_irdl_definition().operands
    if len(operand_defs) == 1 and isinstance(operand_defs[0][1], VarOperandDef):
        op = op_cls(list(block.args), **kwargs)  # type: ignore[call-arg]
    else:
        op = op_cls(*block.args, **kwargs)  # type: ignore[call-arg]
    block.add_ops([op, func.ReturnOp(*op.results)])
    fn = func.FuncOp("main", ([*types], [r.type for r in op.results]), Region(block))
    return ModuleOp([fn]), op


def run_relay(module: ModuleOp, kernel: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """convert-relay-to-tir on ``module``, then run ``kernel`` (its outputs are
    the results of the call_lowered that calls it)."""
    _run_pass("convert-relay-to-tir", module)
    (call_op,) = [
        op
        for op in module.walk()
        if isinstance(op, relay.CallLoweredOp) and op.callee.root_reference.data == kernel
    ]
    outputs = [
        (r.type.get_shape(), dt.from_xdsl(r.type.element_type)) for r in call_op.res
    ]
    return call(compile_kernels(module), kernel, inputs, outputs)


def parse(text: str) -> ModuleOp:
    return Parser(mlir_context(), text).parse_module()


def random(shape: Sequence[int], dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Random values of ``dtype``: floats in [-2, 2), integers in [-50, 50)."""
    if dt.is_float(dtype):
        return rng.uniform(-2, 2, size=shape).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)


def tensor_type(shape: Sequence[int], dtype: str) -> TensorType:
    return TensorType(dt.to_xdsl(dtype), shape)
