"""``ccompiler``: TVM's example C codegen, for elementwise ops and dense.

A partitioned function becomes plain C (one loop nest per op, NumPy
broadcasting for binary ops), compiled by the system C compiler. It takes
float32 ops with static shapes: unary (relu, negative, exp, sigmoid, tanh,
sqrt), binary (add, subtract, multiply, divide, maximum, minimum),
bias_add, dense, and 2-d matmul without ``transpose_a`` (a transposed
first operand is rejected: the predicate reads the attribute).
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import func
from xdsl.ir import Operation

from xtvm.byoc.c_source import (
    Buffers,
    broadcast_loops,
    c_function,
    is_f32_static,
    numel,
    shape_of,
)
from xtvm.byoc.registry import ExternalCodegen, ExternalSource

_UNARY = {
    "relay.nn.relu": "v > 0.0f ? v : 0.0f",
    "relay.negative": "-v",
    "relay.exp": "expf(v)",
    "relay.sigmoid": "1.0f / (1.0f + expf(-v))",
    "relay.tanh": "tanhf(v)",
    "relay.sqrt": "sqrtf(v)",
}
_BINARY = {
    "relay.add": "a + b",
    "relay.subtract": "a - b",
    "relay.multiply": "a * b",
    "relay.divide": "a / b",
    "relay.maximum": "a > b ? a : b",
    "relay.minimum": "a < b ? a : b",
}


def _unary(op: Operation, buf: Buffers) -> str:
    x, y = op.operands[0], op.results[0]
    expr = _UNARY[op.name]
    return (
        f"  for (long i = 0; i < {numel(y)}L; ++i) {{ float v = {buf[x]}[i]; "
        f"{buf[y]}[i] = {expr}; }}"
    )


def _binary(op: Operation, buf: Buffers) -> str:
    lhs, rhs, y = op.operands[0], op.operands[1], op.results[0]
    expr = _BINARY[op.name]

    def body(out: str, ins: list[str]) -> str:
        a, b = f"{buf[lhs]}[{ins[0]}]", f"{buf[rhs]}[{ins[1]}]"
        return f"float a = {a}; float b = {b}; {buf[y]}[{out}] = {expr};"

    return broadcast_loops(shape_of(y), [shape_of(lhs), shape_of(rhs)], body)


def _bias_add(op: Operation, buf: Buffers) -> str:
    data, bias, y = op.operands[0], op.operands[1], op.results[0]
    shape = shape_of(y)
    axis = op.attrs["axis"] % len(shape)
    bshape = tuple(shape[axis] if a == axis else 1 for a in range(len(shape)))

    def body(out: str, ins: list[str]) -> str:
        return f"{buf[y]}[{out}] = {buf[data]}[{ins[0]}] + {buf[bias]}[{ins[1]}];"

    return broadcast_loops(shape, [shape, bshape], body)


def _matrix_product(x: str, w: str, y: str, m: int, k: int, n: int, w_nk: bool) -> str:
    """y[m, n] = sum_k x[m, k] * w[n, k] (``w_nk``) or w[k, n]."""
    w_at = f"{w}[j * {k}L + r]" if w_nk else f"{w}[r * {n}L + j]"
    return (
        f"  for (long i = 0; i < {m}L; ++i) for (long j = 0; j < {n}L; ++j) {{\n"
        f"    float acc = 0.0f;\n"
        f"    for (long r = 0; r < {k}L; ++r) acc += {x}[i * {k}L + r] * {w_at};\n"
        f"    {y}[i * {n}L + j] = acc;\n  }}"
    )


def _dense(op: Operation, buf: Buffers) -> str:
    x, w, y = op.operands[0], op.operands[1], op.results[0]
    n, k = shape_of(w)
    m = numel(x) // k
    return _matrix_product(buf[x], buf[w], buf[y], m, k, n, True)


def _matmul(op: Operation, buf: Buffers) -> str:
    a, b, y = op.operands[0], op.operands[1], op.results[0]
    m, k = shape_of(a)
    n = shape_of(y)[1]
    return _matrix_product(buf[a], buf[b], buf[y], m, k, n, bool(op.attrs["transpose_b"]))


def _rank2(op: Operation) -> bool:
    return all(len(shape_of(v)) == 2 for v in op.operands)


PREDICATES = {
    **{name: is_f32_static for name in (*_UNARY, *_BINARY, "relay.nn.bias_add")},
    "relay.nn.dense": lambda op: is_f32_static(op) and len(shape_of(op.operands[0])) >= 1,
    "relay.nn.matmul": lambda op: is_f32_static(op)
    and _rank2(op)
    and not op.attrs["transpose_a"],
}

EMITTERS = {
    **{name: _unary for name in _UNARY},
    **{name: _binary for name in _BINARY},
    "relay.nn.bias_add": _bias_add,
    "relay.nn.dense": _dense,
    "relay.nn.matmul": _matmul,
}


def generate(function: func.FuncOp, composites: Mapping[str, func.FuncOp]) -> ExternalSource:
    """C source of one partitioned function (see the module docstring)."""
    body = c_function(function, function.sym_name.data, EMITTERS)
    header = "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    return ExternalSource(header + "\n" + body + "\n", libraries=("m",))


CODEGEN = ExternalCodegen("ccompiler", PREDICATES, generate)
