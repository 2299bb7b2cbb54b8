"""Generated kernels against NumPy: loop nests, allocations, conditionals,
casts, extern calls, asserts, scalar arguments and integer index arithmetic."""

import random

import numpy as np
import pytest
from tir_kernels import DEFAULT_PASSES, build

from xtvm.runtime import XTVMError

NEST = """
tir.prim_func @nest(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %ten = arith.constant 10.0 : f32
  %one = arith.constant 1.0 : f32
  %tmp = tir.allocate "local" : memref<8xf32>
  %big = tir.allocate "global" : memref<64x1024xf32>
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      %low = arith.cmpi slt, %j, %c4 : index
      tir.if %low {
        %d = arith.mulf %v, %two : f32
        tir.store %d, %tmp[%j] : memref<8xf32>
      } else {
        %p = arith.addf %v, %ten : f32
        tir.store %p, %tmp[%j] : memref<8xf32>
      }
      %t = tir.load %tmp[%j] : memref<8xf32>
      tir.store %t, %big[%i, %j] : memref<64x1024xf32>
    }
    tir.for %j = %c0 to %c8 kind "serial" {
      %w = tir.load %big[%i, %j] : memref<64x1024xf32>
      %r = arith.subf %w, %one : f32
      tir.store %r, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}
"""

CAST = """
tir.prim_func @cast(%X: memref<16xf32>, %E: memref<16xf32>, %I: memref<16xi32>, %U: memref<16xf32>)
    attributes {arg_names = ["X", "E", "I", "U"]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %three = arith.constant 3.0 : f32
  tir.for %i = %c0 to %c16 kind "serial" {
    %x = tir.load %X[%i] : memref<16xf32>
    %e = tir.call_extern "expf"(%x) : (f32) -> f32
    tir.store %e, %E[%i] : memref<16xf32>
    %y = arith.mulf %x, %three : f32
    %n = arith.fptosi %y : f32 to i32
    tir.store %n, %I[%i] : memref<16xi32>
    %k = arith.index_cast %i : index to i64
    %big = arith.constant -1 : i64
    %m = arith.subi %big, %k : i64
    %u = arith.uitofp %m : i64 to f32
    tir.store %u, %U[%i] : memref<16xf32>
  }
  tir.return
}
"""

CHECK = """
tir.prim_func @check(%A: memref<4xi32>, %n: index, %v: i32)
    attributes {arg_names = ["A", "n", "v"]} {
  %c4 = arith.constant 4 : index
  %ok = arith.cmpi slt, %n, %c4 : index
  tir.assert %ok, "n must be less than 4"
  tir.store %v, %A[%n] : memref<4xi32>
  tir.return
}
"""


@pytest.mark.parametrize("passes", [(), DEFAULT_PASSES], ids=["raw", "flat-simplified"])
def test_nest_with_allocate_and_if(passes) -> None:
    mod = build(NEST, passes)
    a = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    b = np.zeros((4, 8), np.float32)
    mod["nest"](a, b)
    j = np.arange(8)
    np.testing.assert_allclose(b, np.where(j < 4, a * 2, a + 10) - 1, rtol=1e-6)


def test_cast_and_extern_call() -> None:
    mod = build(CAST)
    x = np.linspace(-4.0, 4.0, 16, dtype=np.float32)
    e = np.zeros(16, np.float32)
    n = np.zeros(16, np.int32)
    u = np.zeros(16, np.float32)
    mod["cast"](x, e, n, u)
    np.testing.assert_allclose(e, np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(n, (x * np.float32(3)).astype(np.int32))
    expected_u = (np.uint64(2**64 - 1) - np.arange(16, dtype=np.uint64)).astype(np.float32)
    np.testing.assert_array_equal(u, expected_u)


def test_assert_and_scalar_arguments() -> None:
    mod = build(CHECK)
    a = np.zeros(4, np.int32)
    mod["check"](a, np.array(2, np.int64), np.array(7, np.int32))
    np.testing.assert_array_equal(a, [0, 0, 7, 0])
    with pytest.raises(XTVMError, match="n must be less than 4"):
        mod["check"](a, np.array(9, np.int64), np.array(7, np.int32))
    with pytest.raises(XTVMError, match="dtype mismatch"):
        mod["check"](a, np.array(2, np.int32), np.array(7, np.int32))


# Random integer index expressions over i in [0, 6) and j in [0, 5): the
# compiled value must equal Python's, with and without tir-simplify (which
# rewrites them using loop bounds).


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINARY = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "minsi": min,
    "maxsi": max,
}
_BY_CONST = {
    "floordivsi": lambda a, c: a // c,
    "divsi": _trunc_div,
    "remsi": lambda a, c: a - c * _trunc_div(a, c),
    "ceildivsi": lambda a, c: -(-a // c),
}


def _random_expr(rng: random.Random, lines: list[str], depth: int) -> tuple[str, object]:
    """An SSA name and a Python evaluator `f(i, j)` for a random expression."""
    name = f"%e{len(lines)}"
    if depth == 0 or rng.random() < 0.2:
        choice = rng.choice(["i", "j", "const"])
        if choice == "const":
            c = rng.randint(-5, 9)
            lines.append(f"{name} = arith.constant {c} : index")
            return name, lambda i, j, c=c: c
        return f"%{choice}", (lambda i, j: i) if choice == "i" else (lambda i, j: j)
    if rng.random() < 0.4:
        op = rng.choice(list(_BY_CONST))
        c = rng.randint(1, 7)
        lhs, f = _random_expr(rng, lines, depth - 1)
        cname = f"%k{len(lines)}"
        lines.append(f"{cname} = arith.constant {c} : index")
        name = f"%e{len(lines)}"
        lines.append(f"{name} = arith.{op} {lhs}, {cname} : index")
        return name, lambda i, j, f=f, c=c, g=_BY_CONST[op]: g(f(i, j), c)
    op = rng.choice(list(_BINARY))
    lhs, f = _random_expr(rng, lines, depth - 1)
    rhs, g = _random_expr(rng, lines, depth - 1)
    name = f"%e{len(lines)}"
    lines.append(f"{name} = arith.{op} {lhs}, {rhs} : index")
    return name, lambda i, j, f=f, g=g, h=_BINARY[op]: h(f(i, j), g(i, j))


def _index_kernel(seed: int) -> tuple[str, np.ndarray]:
    rng = random.Random(seed)
    lines: list[str] = []
    root, evaluate = _random_expr(rng, lines, depth=4)
    body = "\n        ".join(lines)
    text = f"""
tir.prim_func @expr(%R: memref<6x5xi64>) {{
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  tir.for %i = %c0 to %c6 kind "serial" {{
    tir.for %j = %c0 to %c5 kind "serial" {{
        {body}
        %out = arith.index_cast {root} : index to i64
        tir.store %out, %R[%i, %j] : memref<6x5xi64>
    }}
  }}
  tir.return
}}
"""
    expected = np.array([[evaluate(i, j) for j in range(5)] for i in range(6)], np.int64)
    return text, expected


@pytest.mark.parametrize("seed", range(12))
def test_random_index_arithmetic(seed: int) -> None:
    text, expected = _index_kernel(seed)
    for passes in ((), DEFAULT_PASSES):
        result = np.zeros((6, 5), np.int64)
        build(text, passes)["expr"](result)
        np.testing.assert_array_equal(result, expected, err_msg=f"passes={passes}\n{text}")
