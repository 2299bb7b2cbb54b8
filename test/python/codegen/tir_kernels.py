"""Helpers of the codegen tests: tir text → passes → llvm dialect → JIT module.

Also a ctypes `DLTensor` to call packed entry points directly, so the tests
check the generated argument checks' return codes without the runtime.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xtvm import codegen
from xtvm.dialects.tir import PrimFuncOp
from xtvm.driver.pipeline import mlir_context
from xtvm.lowering.tir_to_llvm import ConvertTirToLlvmPass, tir_signature
from xtvm.passes.registry import PASSES

DEFAULT_PASSES = ("tir-flatten-buffer", "tir-simplify")

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
"""The canonical example: B[i] = A[i] + 1 over 3 floats."""


def parse(text: str) -> ModuleOp:
    return Parser(mlir_context(), text).parse_module()


def run_passes(module: ModuleOp, passes: Sequence[str]) -> None:
    ctx = mlir_context()
    for name in passes:
        PASSES[name]()().apply(ctx, module)
        module.verify()


def header_of(module: ModuleOp) -> dict:
    functions = {
        op.sym_name.data: tir_signature(op) for op in module.ops if isinstance(op, PrimFuncOp)
    }
    return {"version": 1, "functions": functions, "graph_json": None}


def lower(text: str, passes: Sequence[str] = DEFAULT_PASSES) -> tuple[ModuleOp, dict]:
    """The llvm-dialect module of tir `text` after `passes`, and its metadata header."""
    module = parse(text)
    run_passes(module, passes)
    header = header_of(module)
    ConvertTirToLlvmPass().apply(mlir_context(), module)
    module.verify()
    return module, header


def build(text: str, passes: Sequence[str] = DEFAULT_PASSES):
    """A JIT-compiled runtime Module of tir `text`."""
    module, header = lower(text, passes)
    return codegen.jit(module, header, {})


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int32),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_CODES = {"f": 2, "i": 0, "u": 1, "b": 6}
PACKED = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32)


def dltensor(array: np.ndarray, strides: Sequence[int] | None = None) -> tuple[DLTensor, list]:
    """A DLTensor over `array` (element `strides` if given) and what keeps it alive."""
    shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    tensor = DLTensor(
        data=array.ctypes.data,
        ndim=array.ndim,
        code=_CODES[array.dtype.kind],
        bits=array.dtype.itemsize * 8,
        lanes=1,
        shape=shape,
    )
    keep: list = [array, shape]
    if strides is not None:
        stride_array = (ctypes.c_int64 * len(strides))(*strides)
        tensor.strides = stride_array
        keep.append(stride_array)
    return tensor, keep


def call_packed(address: int, tensors: Sequence[DLTensor | None], num_args: int | None = None):
    """Call a packed entry point on DLTensors (None = a NULL tensor); the return code."""
    pointers = (ctypes.c_void_p * max(len(tensors), 1))(
        *[None if t is None else ctypes.addressof(t) for t in tensors]
    )
    count = len(tensors) if num_args is None else num_args
    return PACKED(address)(pointers, count)


def raw_jit(text: str, passes: Sequence[str] = DEFAULT_PASSES):
    """MCJIT-compile tir `text` without the runtime: (engine, {function: address})."""
    import llvmlite.binding as llvm

    module, header = lower(text, passes)
    llvm_module, tm = codegen.compile_module(module)
    engine = llvm.create_mcjit_compiler(llvm_module, tm)
    engine.finalize_object()
    return engine, {name: engine.get_function_address(name) for name in header["functions"]}
