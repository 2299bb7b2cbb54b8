"""Builders of relay graph functions for the pass tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.dialects.relay import (
    AddOp,
    BiasAddOp,
    DenseOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    SoftmaxOp,
    SubtractOp,
    TransposeOp,
)
from xtvm.constants import const_from_numpy


class GraphBuilder:
    """Appends ops to the body of one function; ``module()`` closes it."""

    def __init__(self, *arg_types: Attribute):
        self.block = Block(arg_types=arg_types)

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.block.args

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def const(self, array: np.ndarray) -> SSAValue:
        return self.add(const_from_numpy(array))

    def module(self, outputs: Sequence[SSAValue], name: str = "main") -> ModuleOp:
        self.block.add_op(func.ReturnOp(*outputs))
        types = ([a.type for a in self.args], [o.type for o in outputs])
        module = ModuleOp([func.FuncOp(name, types, Region(self.block))])
        module.verify()
        return module


SHAPES = [(4, 8), (8, 4), (32,), (2, 16)]


def random_graph(rng: np.random.Generator, num_ops: int) -> ModuleOp:
    """A random DAG of ``num_ops`` relay ops on 32-element f32 tensors: every
    fusion pattern kind, values with several consumers, several outputs."""
    g = GraphBuilder(TensorType(f32, [4, 8]), TensorType(f32, [4, 8]))
    pool: list[SSAValue] = list(g.args)
    used: set[SSAValue] = set()

    def pick(shape: tuple[int, ...] | None = None) -> SSAValue:
        choices = [v for v in pool if shape is None or v.type.get_shape() == shape]
        if len(choices) > 4 and rng.random() < 0.7:
            choices = choices[-4:]  # mostly recent values: long chains, few outputs
        value = choices[int(rng.integers(len(choices)))]
        used.add(value)
        return value

    for _ in range(num_ops):
        x = pick()
        shape = x.type.get_shape()
        kind = rng.choice(["binary", "const_binary", "relu", "softmax", "dense", "bias",
                           "reshape", "transpose"])
        if kind == "binary":
            op = rng.choice([AddOp, SubtractOp, MultiplyOp])(x, pick(shape))
        elif kind == "const_binary":
            c = g.const(rng.standard_normal(shape[-1:]).astype(np.float32))
            op = rng.choice([AddOp, MultiplyOp])(x, c)
        elif kind == "relu":
            op = ReluOp(x)
        elif kind == "softmax":
            op = SoftmaxOp(x)
        elif kind == "dense" and len(shape) == 2:
            w = g.const(rng.standard_normal((shape[1], shape[1])).astype(np.float32) / 4)
            op = DenseOp(x, w)
        elif kind == "bias" and len(shape) == 2:
            op = BiasAddOp(x, g.const(rng.standard_normal(shape[1:]).astype(np.float32)))
        elif kind == "transpose" and len(shape) == 2:
            op = TransposeOp(x, [1, 0])
        else:
            op = ReshapeOp(x, SHAPES[int(rng.integers(len(SHAPES)))])
        pool.append(g.add(op))
    outputs = [v for v in pool[2:] if v not in used] or [pool[-1]]
    outputs += [v for v in pool[2:] if v in used and rng.random() < 0.1]
    return g.module(outputs)
