"""The C target on single kernels: every arith/math op gives what the llvm
path gives (and NumPy where it is simple) on random and edge inputs; the
packed entry refuses bad arguments with the llvm path's messages; parallel
loops, asserts and heap buffers behave alike; compiler failures are clear
errors naming the kernel."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import xtvm
from xtvm.codegen import CodegenError
from xtvm.driver.pipeline import mlir_context
from xtvm.lowering.tir_to_c.function import _STATEMENTS
from xtvm.lowering.tir_to_c.prelude import PRELUDE
from xtvm.lowering.tir_to_c.scalar import EXPRESSIONS
from xtvm.lowering.tir_to_llvm.function import STRUCTURAL_LOWERINGS
from xtvm.lowering.tir_to_llvm.scalar import LOWERINGS
from xtvm.runtime import XTVMError

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")

N = 64


def parse(text: str) -> ModuleOp:
    return Parser(mlir_context(), text).parse_module()


def build_both(text: str):
    """The kernel library of tir `text` for the llvm target and for the c target."""
    return xtvm.build(parse(text), target="llvm"), xtvm.build(parse(text), target="c")


NOT_IN_C: dict[str, str] = {}
"""tir ops the llvm path lowers and the C target refuses, with the reason (docs/c-target.md)."""


def test_tables_cover_what_the_llvm_path_lowers() -> None:
    assert set(EXPRESSIONS) == set(LOWERINGS)
    llvm_ops = {op.name for op in STRUCTURAL_LOWERINGS} - set(NOT_IN_C)
    assert {op.name for op in _STATEMENTS} == llvm_ops


def _kernel(ops: list[tuple[str, str, str, str]], types: dict[str, str]) -> str:
    """One prim_func computing each `(result, op text, result type)` element-wise
    over buffers `a`, `b` (and `d`, f64), one output buffer per op."""
    params = [f"%A_{name}: memref<{N}x{ty}>" for name, ty in types.items()]
    params += [f"%R{k}: memref<{N}x{rt}>" for k, (_, _, rt, _) in enumerate(ops)]
    body = [f"%{name} = tir.load %A_{name}[%i] : memref<{N}x{ty}>" for name, ty in types.items()]
    for k, (res, text, rt, _) in enumerate(ops):
        body.append(f"%{res} = {text}")
        body.append(f"tir.store %{res}, %R{k}[%i] : memref<{N}x{rt}>")
    lines = "\n      ".join(body)
    return f"""
tir.prim_func @k({", ".join(params)}) {{
  %c0 = arith.constant 0 : index
  %cN = arith.constant {N} : index
  tir.for %i = %c0 to %cN kind "serial" {{
      {lines}
  }}
  tir.return
}}"""


_NUMPY = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "ui8": np.uint8, "ui32": np.uint32,
          "i64": np.int64, "f16": np.float16, "f32": np.float32, "f64": np.float64}  # fmt: skip


def _run_both(ops, types, inputs) -> None:
    llvm_lib, c_lib = build_both(_kernel(ops, types))
    results = []
    for lib in (llvm_lib, c_lib):
        outs = [np.zeros(N, _NUMPY[rt]) for _, _, rt, _ in ops]
        lib["k"](*[inputs[n] for n in types], *outs)
        results.append(outs)
    for (res, text, _, _), got, want in zip(ops, results[1], results[0], strict=True):
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=2e-7, atol=0, equal_nan=True, err_msg=text)
        else:
            np.testing.assert_array_equal(got, want, err_msg=text)


def _ints(rng: np.random.Generator, dtype, nonzero: bool = False) -> np.ndarray:
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    x[:6] = [info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 7]
    if nonzero:
        x[x == 0] = 3
        if info.min < 0:
            x[x == -1] = -2  # no INT_MIN / -1
    return x


def test_integer_ops_match_llvm() -> None:
    rng = np.random.default_rng(0)
    a, b = _ints(rng, np.int32), _ints(rng, np.int32, nonzero=True)
    s = (rng.integers(0, 32, N)).astype(np.int32)
    t = "i32"
    binary = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi",
              "ceildivsi", "ceildivui", "minsi", "maxsi", "minui", "maxui", "andi", "ori", "xori"]  # fmt: skip
    ops = [(f"r_{o}", f"arith.{o} %a, %b : {t}", t, o) for o in binary]
    ops += [(f"r_{o}", f"arith.{o} %a, %s : {t}", t, o) for o in ("shli", "shrsi", "shrui")]
    ops += [(f"r_{p}", f"arith.cmpi {p}, %a, %b : {t}", "i1", p)
            for p in ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")]  # fmt: skip
    ops += [
        ("r_sel", "arith.select %r_slt, %a, %b : i32", t, ""),
        ("r_ext", "arith.extsi %a : i32 to i64", "i64", ""),
        ("r_extu", "arith.extui %a : i32 to i64", "i64", ""),
        ("r_tr", "arith.trunci %a : i32 to i8", "i8", ""),
        ("r_tr1", "arith.trunci %a : i32 to i1", "i1", ""),
        ("r_clz", "math.ctlz %a : i32", t, ""),
        ("r_ctz", "math.cttz %a : i32", t, ""),
        ("r_pop", "math.ctpop %a : i32", t, ""),
        ("r_abs", "math.absi %a : i32", t, ""),
        ("r_sitofp", "arith.sitofp %a : i32 to f32", "f32", ""),
        ("r_uitofp", "arith.uitofp %a : i32 to f64", "f64", ""),
        ("r_bits", "arith.bitcast %a : i32 to f32", "f32", ""),
    ]
    _run_both(ops, {"a": t, "b": t, "s": t}, {"a": a, "b": b, "s": s})
    # and against NumPy where its semantics are C's
    lib = xtvm.build(parse(_kernel(ops, {"a": t, "b": t, "s": t})), target="c")
    outs = [np.zeros(N, _NUMPY[rt]) for _, _, rt, _ in ops]
    lib["k"](a, b, s, *outs)
    got = {res: out for (res, *_), out in zip(ops, outs, strict=True)}
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got["r_addi"], a + b)
        np.testing.assert_array_equal(got["r_muli"], a * b)
    np.testing.assert_array_equal(got["r_floordivsi"], a // b)
    np.testing.assert_array_equal(got["r_ult"], a.view(np.uint32) < b.view(np.uint32))
    np.testing.assert_array_equal(got["r_tr"], a.astype(np.int8))


def test_narrow_integer_ops_match_llvm() -> None:
    rng = np.random.default_rng(1)
    a, b = _ints(rng, np.int8), _ints(rng, np.int8, nonzero=True)
    ops = [(f"r_{o}", f"arith.{o} %a, %b : i8", "i8", o)
           for o in ("addi", "subi", "muli", "divsi", "divui", "remui", "maxui")]  # fmt: skip
    ops += [
        ("r_ext", "arith.extsi %a : i8 to i32", "i32", ""),
        ("r_extu", "arith.extui %a : i8 to i32", "i32", ""),
        ("r_f", "arith.uitofp %a : i8 to f32", "f32", ""),
    ]
    _run_both(ops, {"a": "i8", "b": "i8"}, {"a": a, "b": b})


def _floats(rng: np.random.Generator, dtype) -> np.ndarray:
    x = (rng.standard_normal(N) * 3).astype(dtype)
    x[:10] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 0.5, 2.5, -2.5]
    return x


def test_float_ops_match_llvm() -> None:
    rng = np.random.default_rng(2)
    a, b = _floats(rng, np.float32), _floats(rng, np.float32)[::-1].copy()
    d = _floats(rng, np.float64) * 1e-3
    t = "f32"
    ops = [(f"r_{o}", f"arith.{o} %a, %b : {t}", t, o)
           for o in ("addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf",
                     "minnumf")]  # fmt: skip
    ops += [(f"r_{p}", f"arith.cmpf {p}, %a, %b : {t}", "i1", p)
            for p in ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                      "uge", "ult", "ule", "une", "uno", "true")]  # fmt: skip
    unary = ["absf", "ceil", "floor", "trunc", "round", "roundeven", "sqrt", "exp", "exp2",
             "log", "log2", "log10", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos",
             "atan", "erf", "cbrt", "expm1", "log1p", "asinh", "acosh", "atanh", "rsqrt"]  # fmt: skip
    ops += [(f"r_{o}", f"math.{o} %a : {t}", t, o) for o in unary]
    ops += [
        ("r_neg", "arith.negf %a : f32", t, ""),
        ("r_pow", "math.powf %a, %b : f32", t, ""),
        ("r_atan2", "math.atan2 %a, %b : f32", t, ""),
        ("r_copysign", "math.copysign %a, %b : f32", t, ""),
        ("r_fma", "math.fma %a, %b, %a : f32", t, ""),
        ("r_i8", "arith.fptosi %a : f32 to i8", "i8", ""),
        ("r_i32", "arith.fptosi %a : f32 to i32", "i32", ""),
        ("r_u8", "arith.fptoui %a : f32 to ui8", "ui8", ""),
        ("r_u32", "arith.fptoui %a : f32 to ui32", "ui32", ""),
        ("r_ext", "arith.extf %a : f32 to f64", "f64", ""),
        ("r_h", "arith.truncf %a : f32 to f16", "f16", ""),
        ("r_dh", "arith.truncf %d : f64 to f16", "f16", ""),
        ("r_df", "arith.truncf %d : f64 to f32", "f32", ""),
        ("r_hexp", "math.exp %r_h : f16", "f16", ""),
        ("r_hadd", "arith.addf %r_h, %r_dh : f16", "f16", ""),
        ("r_hmax", "arith.maximumf %r_h, %r_dh : f16", "f16", ""),
        ("r_hcmp", "arith.cmpf olt, %r_h, %r_dh : f16", "i1", ""),
        ("r_hbits", "arith.bitcast %r_h : f16 to i16", "i16", ""),
        ("r_bits", "arith.bitcast %a : f32 to i32", "i32", ""),
    ]
    _run_both(ops, {"a": t, "b": t, "d": "f64"}, {"a": a, "b": b, "d": d})


def test_powi_matches_numpy() -> None:
    """`math.fpowi`: by repeated squaring in C, through `llvm.pow` on the llvm
    path (whose `llvm.powi` called compiler-rt's __powisf2, which the JIT
    does not resolve: a crash); both against NumPy."""
    x = np.array([1.5, -2.0, 0.5, 3.0, 0.0, -1.25] * 2, np.float32)
    n = np.array([0, 1, 2, 3, -1, -2, 5, 7, 4, 10, -3, 6], np.int32)
    text = """
tir.prim_func @powi(%X: memref<12xf32>, %E: memref<12xi32>, %Y: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  tir.for %i = %c0 to %c12 kind "serial" {
    %x = tir.load %X[%i] : memref<12xf32>
    %e = tir.load %E[%i] : memref<12xi32>
    %y = math.fpowi %x, %e : f32, i32
    tir.store %y, %Y[%i] : memref<12xf32>
  }
  tir.return
}"""
    for target in ("c", "llvm"):
        y = np.zeros(12, np.float32)
        xtvm.build(parse(text), target=target)["powi"](x, n, y)
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(y, x.astype(np.float64) ** n, rtol=1e-6, err_msg=target)


def test_f16_conversions_are_exact(tmp_path) -> None:
    """The prelude's integer f16 <-> f32 and f64 -> f16 conversions equal NumPy's."""
    source = tmp_path / "h.c"
    source.write_text(PRELUDE + """
void h2f(float* out) { for (uint32_t i = 0; i < 65536; i++) out[i] = xtvm_h2f((uint16_t)i); }
void f2h(const float* x, uint16_t* out, int n) { for (int i = 0; i < n; i++) out[i] = xtvm_f2h(x[i]); }
void d2h(const double* x, uint16_t* out, int n) { for (int i = 0; i < n; i++) out[i] = xtvm_d2h(x[i]); }
""")
    lib_path = tmp_path / "h.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib_path), str(source), "-lm"],
                   check=True)  # fmt: skip
    lib = ctypes.CDLL(str(lib_path))
    p = ctypes.c_void_p
    lib.h2f.argtypes, lib.f2h.argtypes, lib.d2h.argtypes = [p], [p, p, ctypes.c_int], [p, p, ctypes.c_int]
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    out = np.zeros(65536, np.float32)
    lib.h2f(out.ctypes.data)
    np.testing.assert_array_equal(out, every.astype(np.float32))  # NaNs compare equal here
    rng = np.random.default_rng(3)
    with np.errstate(all="ignore"):
        x = np.concatenate([rng.standard_normal(20000).astype(np.float32) * np.float32(s)
                            for s in (1e-7, 1e-5, 1, 1e3, 7e4)] + [out, out + np.float32(3e-5)])  # fmt: skip
        d = np.concatenate([rng.standard_normal(20000) * s for s in (1e-6, 1, 6e4)])
        for fn, values in ((lib.f2h, x), (lib.d2h, d)):
            bits = np.zeros(values.size, np.uint16)
            fn(values.ctypes.data, bits.ctypes.data, values.size)
            ok = ~np.isnan(values)
            np.testing.assert_array_equal(bits[ok], values[ok].astype(np.float16).view(np.uint16))
            assert np.isnan(bits[~ok].view(np.float16)).all()


CHECK = """
tir.prim_func @check(%A: memref<4x8xf32>, %n: i32) attributes {arg_names = ["A", "n"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %zero : i32
  tir.assert %pos, "n must be positive"
  tir.for %i = %c0 to %c4 kind "parallel" {
    tir.for %j = %c0 to %c8 kind "vectorized" {
      %x = tir.load %A[%i, %j] : memref<4x8xf32>
      %ii = arith.index_cast %i : index to i32
      %small = arith.cmpi slt, %ii, %n : i32
      tir.assert %small, "row below n"
      %y = arith.addf %x, %x : f32
      tir.store %y, %A[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}
"""


def test_argument_checks_and_asserts_like_llvm() -> None:
    """Wrong arguments and failed asserts (inside a parallel loop too) give the
    llvm path's errors; a good call computes the same."""
    results = []
    for lib in build_both(CHECK):
        a = np.arange(32, dtype=np.float32).reshape(4, 8)
        lib["check"](a, np.array(9, np.int32))
        np.testing.assert_array_equal(a, 2 * np.arange(32, dtype=np.float32).reshape(4, 8))
        messages = []
        for args in [
            (np.zeros((4, 8), np.float32), np.array(-1, np.int32)),  # the first assert
            (np.zeros((4, 8), np.float32), np.array(2, np.int32)),  # in the parallel loop
            (np.zeros((4, 7), np.float32), np.array(9, np.int32)),  # shape
            (np.zeros((4, 8), np.float64), np.array(9, np.int32)),  # dtype
            (np.zeros(32, np.float32), np.array(9, np.int32)),  # ndim
            (np.zeros((4, 8), np.float32),),  # count
        ]:
            with pytest.raises(XTVMError) as info:
                lib["check"](*args)
            messages.append(str(info.value))
        results.append(messages)
    assert results[0] == results[1]
    assert "n must be positive" in results[1][0] and "row below n" in results[1][1]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8),
                ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]  # fmt: skip


def test_packed_entry_return_codes(tmp_path) -> None:
    """The C packed entry's own codes (the runtime checks some arguments
    before the call): strides, NULL tensors, the count; codes as docs/abi.md."""
    path = tmp_path / "check.so"
    xtvm.build(parse(CHECK), target="c").export_library(str(path))
    entry = ctypes.CDLL(str(path)).check
    entry.restype = ctypes.c_int32
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32]
    a, n = np.zeros((4, 16), np.float32), np.array(9, np.int32)
    shape, scalar_shape = (ctypes.c_int64 * 2)(4, 8), (ctypes.c_int64 * 1)(0)
    strided = (ctypes.c_int64 * 2)(16, 2)
    ta = DLTensor(a.ctypes.data, 1, 0, 2, 2, 32, 1, shape, strided, 0)
    tn = DLTensor(n.ctypes.data, 1, 0, 0, 0, 32, 1, scalar_shape, None, 0)

    def call(*tensors, count=None):
        ptrs = (ctypes.c_void_p * 2)(*[ctypes.addressof(t) if t else None for t in tensors])
        return entry(ptrs, len(tensors) if count is None else count)

    assert call(ta, tn) == (6 << 16) | 0  # strides not compact
    assert call(None, tn) == (2 << 16) | 0  # NULL tensor
    assert call(ta, tn, count=3) == (1 << 16) | 3  # argument count
    ta.strides = None
    assert call(ta, tn) == 0


HEAP = """
tir.prim_func @heap(%A: memref<4xf32>, %B: memref<4xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %big = tir.allocate "global" : memref<600000xf32>
  tir.for %i = %c0 to %c4 kind "parallel" {
    %per_row = tir.allocate "global" : memref<300000xf32>
    %x = tir.load %A[%i] : memref<4xf32>
    tir.store %x, %per_row[%c1] : memref<300000xf32>
    %y = tir.load %per_row[%c1] : memref<300000xf32>
    tir.store %y, %big[%i] : memref<600000xf32>
  }
  tir.for %i = %c0 to %c4 kind "serial" {
    %z = tir.load %big[%i] : memref<600000xf32>
    %w = arith.mulf %z, %z : f32
    tir.store %w, %B[%i] : memref<4xf32>
  }
  tir.return
}
"""


def test_heap_buffers_in_and_outside_parallel_loops() -> None:
    lib = xtvm.build(parse(HEAP), target="c")
    a, b = np.array([1, 2, 3, 4], np.float32), np.zeros(4, np.float32)
    lib["heap"](a, b)
    np.testing.assert_array_equal(b, a * a)


ADDONE = """
tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tir.for %i = %c0 to %c3 kind "serial" {
    %v = tir.load %A[%i] : memref<3xf32>
    %one = arith.constant 1.0 : f32
    %s = arith.addf %v, %one : f32
    tir.store %s, %B[%i] : memref<3xf32>
  }
  tir.return
}
"""


def test_a_compiler_error_names_the_kernel(tmp_path, monkeypatch) -> None:
    failing = tmp_path / "failing-cc"
    failing.write_text("#!/bin/sh\necho 'unit.c:1:1: error: no space left on device' >&2\nexit 1\n")
    failing.chmod(0o755)
    monkeypatch.setenv("CC", str(failing))
    monkeypatch.setenv("XTVM_CACHE_DIR", "off")
    with pytest.raises(CodegenError, match=r"the C compiler failed on kernel @addone \(target c\)") as info:
        xtvm.build(parse(ADDONE), target="c")
    assert "no space left on device" in str(info.value)
    assert "its source is kept at" in str(info.value)


def test_a_missing_compiler_is_a_clear_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("XTVM_CACHE_DIR", "off")
    with pytest.raises(CodegenError, match="needs a C compiler"):
        xtvm.build(parse(ADDONE), target="c")


def test_export_and_load_in_a_fresh_process(tmp_path) -> None:
    path = tmp_path / "addone.so"
    xtvm.build(parse(ADDONE), target="c").export_library(str(path))
    script = (
        "import sys, numpy as np\nfrom xtvm.runtime import load_module\n"
        "m = load_module(sys.argv[1]); a = np.array([1, 2, 3], np.float32); b = np.zeros(3, np.float32)\n"
        "m['addone'](a, b); print(b.tolist())"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert out.strip() == "[2.0, 3.0, 4.0]"


TILE = """
tir.prim_func @tile(%X: memref<64xT>, %W: memref<832xT>, %Y: memref<13xT>) attributes {arg_names = ["X", "W", "Y"]} {
  %c0 = arith.constant 0 : index
  %c13 = arith.constant 13 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : T
  %acc = tir.allocate "local" : memref<13xT>
  tir.for %l = %c0 to %c13 kind "vectorized" {
    tir.store %zero, %acc[%l] : memref<13xT>
  }
  tir.for %k = %c0 to %c64 kind "serial" {
    tir.for %l = %c0 to %c13 kind "vectorized" {
      %a = tir.load %acc[%l] : memref<13xT>
      %x = tir.load %X[%k] : memref<64xT>
      %wrow = arith.muli %k, %c13 : index
      %j = arith.addi %wrow, %l : index
      %w = tir.load %W[%j] : memref<832xT>
      %p = arith.mulf %x, %w : T
      %q = arith.divf %p, %x : T
      %n = arith.negf %q : T
      %d = arith.subf %p, %n : T
      %s = arith.addf %a, %d : T
      tir.store %s, %acc[%l] : memref<13xT>
    }
  }
  tir.for %l = %c0 to %c13 kind "vectorized" {
    %v = tir.load %acc[%l] : memref<13xT>
    tir.store %v, %Y[%l] : memref<13xT>
  }
  tir.return
}
"""


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_vector_form_of_a_register_tile(dtype: str) -> None:
    """A vectorized loop in vector chunks (13 lanes: 8 + 4 + 1) computes what
    the llvm path and NumPy compute."""
    np_type = _NUMPY[dtype]
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 2, 64).astype(np_type)
    w = rng.standard_normal(832).astype(np_type)
    outs = []
    for lib in build_both(TILE.replace("xT>", f"x{dtype}>").replace(": T", f": {dtype}")):
        y = np.zeros(13, np_type)
        lib["tile"](x, w, y)
        outs.append(y)
    expected = (x[:, None] * w.reshape(64, 13)).sum(axis=0) + w.reshape(64, 13).sum(axis=0)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5)
    np.testing.assert_allclose(outs[1], expected, rtol=1e-4, atol=1e-4)


def test_dynamic_kernel_binds_and_checks_its_shape_variable() -> None:
    """A kernel with a `?` axis: the C entry binds `n` from the first tensor,
    checks the second against it, and passes it to the impl (same codes and
    messages as the llvm path); a scratch buffer of run-time size is made
    where it stands."""
    text = """
tir.prim_func @addone(%A: memref<?xf32>, %B: memref<?xf32>) attributes {tir.buffer_shapes = [array<i64: -1>, array<i64: -1>], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  %t = tir.allocate "global"(%n) : memref<?xf32>
  %one = arith.constant 1.0 : f32
  tir.for %i = %c0 to %n kind "serial" {
    %a = tir.load %A[%i] : memref<?xf32>
    %s = arith.addf %a, %one : f32
    tir.store %s, %t[%i] : memref<?xf32>
  }
  tir.for %j = %c0 to %n kind "serial" {
    %v = tir.load %t[%j] : memref<?xf32>
    tir.store %v, %B[%j] : memref<?xf32>
  }
  tir.return
}"""
    messages = {}
    for target in ("c", "llvm"):
        kernel = xtvm.build(parse(text), target=target)["addone"]
        for n in (1, 3, 64, 0):
            a = np.arange(n, dtype=np.float32)
            b = np.zeros(n, np.float32)
            kernel(a, b)
            np.testing.assert_array_equal(b, a + 1, err_msg=f"{target} n={n}")
        with pytest.raises(xtvm.runtime.XTVMError) as info:
            kernel(np.zeros(3, np.float32), np.zeros(4, np.float32))
        messages[target] = str(info.value)
    assert "shape variable" in messages["c"] and messages["c"] == messages["llvm"]
