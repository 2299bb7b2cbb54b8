"""``relay-external-codegen``: hand each partitioned function to its codegen.

TVM's ``relay.ext.<compiler>`` step of ``relay.build``. Each ``func.func``
marked ``relay.compiler`` (``relay-partition-graph``) is given to the codegen
registered under that name (:mod:`xtvm.byoc.registry`), whose C source
becomes an external kernel: a ``tir.prim_func`` with the kernel calling
convention and no body, marked ``tir.external``, carrying the source. The
rest of the pipeline treats it as any kernel (memory planning, the AOT
entry, the graph executor's metadata, the packed entry's argument checks);
code generation compiles its source with the system C compiler and links it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from xtvm.byoc.registry import CodegenError, get_codegen
from xtvm.dialects.relay import CallLoweredOp
from xtvm.dialects.tir import PrimFuncOp, ReturnOp
from xtvm.passes.relay.partition.attrs import (
    COMPILER_ATTR,
    COMPOSITE_ATTR,
    composite_callee,
    functions_by_name,
    string_attr,
)

EXTERNAL_ATTR = "tir.external"
"""The codegen that made an external kernel (``"dnnl"``)."""
SOURCE_ATTR = "tir.external_source"
"""Its C source, defining ``int32_t <name>_impl(float*...)``."""
LINK_ATTR = "tir.external_link"
"""How to compile and link it: ``["-I/usr/include", "-L/usr/lib/...", "-ldnnl"]``."""
OPS_ATTR = "tir.external_ops"
"""The relay ops it computes (for error messages)."""


def region_ops(function: func.FuncOp, functions: dict[str, func.FuncOp]) -> list[str]:
    """The op names of a partitioned function, composites spelled out."""
    names = []
    for op in function.body.block.ops:
        callee = composite_callee(op, functions)
        if callee is not None:
            inner = [o.name for o in callee.body.block.ops if not isinstance(o, func.ReturnOp)]
            names.append(f"{string_attr(callee, COMPOSITE_ATTR)}({', '.join(inner)})")
        elif not isinstance(op, func.ReturnOp):
            names.append(op.name)
    return names


def _memref(ty) -> MemRefType:
    assert isinstance(ty, TensorType)
    return MemRefType(ty.element_type, ty.get_shape())


def external_kernel(function: func.FuncOp, functions: dict[str, func.FuncOp]) -> PrimFuncOp:
    """The external kernel of one partitioned function (its codegen's C source)."""
    target = string_attr(function, COMPILER_ATTR) or ""
    name = function.sym_name.data
    ops = region_ops(function, functions)
    composites = {
        callee.sym_name.data: callee
        for op in function.body.block.ops
        if (callee := composite_callee(op, functions)) is not None
    }
    try:
        for ty in (*function.function_type.inputs, *function.function_type.outputs):
            if not isinstance(ty, TensorType) or not ty.has_static_shape():
                raise CodegenError(f"expects statically shaped tensors, got {ty}")
        source = get_codegen(target).generate(function, composites)
    except CodegenError as e:
        raise PassFailedException(
            f"relay-external-codegen: codegen '{target}' failed on region @{name} "
            f"(ops: {', '.join(ops)}): {e}"
        ) from None
    arg_types = [
        _memref(t) for t in (*function.function_type.inputs, *function.function_type.outputs)
    ]
    n_in = len(function.function_type.inputs)
    arg_names = [f"p{i}" for i in range(n_in)]
    arg_names += [f"out{i}" for i in range(len(arg_types) - n_in)]
    block = Block(arg_types=arg_types)
    block.add_op(ReturnOp())
    kernel = PrimFuncOp(name, arg_types, Region(block), arg_names)
    link = [
        *(f"-I{d}" for d in source.include_dirs),
        *(f"-L{d}" for d in source.library_dirs),
        *(f"-l{lib}" for lib in source.libraries),
    ]
    kernel.attributes[EXTERNAL_ATTR] = StringAttr(target)
    kernel.attributes[SOURCE_ATTR] = StringAttr(source.source)
    kernel.attributes[LINK_ATTR] = ArrayAttr([StringAttr(f) for f in link])
    kernel.attributes[OPS_ATTR] = ArrayAttr([StringAttr(o) for o in ops])
    return kernel


@dataclass(frozen=True)
class ExternalCodegenPass(ModulePass):
    """Replace each partitioned function by the external kernel its codegen makes.

    Input: a module whose graph functions call partitioned functions
    (``func.func`` with ``relay.compiler``, from ``relay-partition-graph``).

    Output: each partitioned function ``@f`` is ``tir.prim_func @f`` with its
    inputs then its outputs as buffers (``p0, ..., out0, ...``), an empty
    body and the attributes ``tir.external`` (the codegen),
    ``tir.external_source`` (C source defining ``int32_t f_impl(float*
    ...)``), ``tir.external_link`` (compiler flags) and ``tir.external_ops``;
    its calls are ``relay.call_lowered @f``. Composite functions that only
    partitioned functions called are erased.

    Invariants: a codegen failing on a region (an op it cannot compile, a
    missing library) fails the pass with a message naming the region, its
    ops and the codegen's reason. Without partitioned functions nothing
    changes.

    ```mlir
    %y = func.call @tvmgen_default_ccompiler_main_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // becomes
    %y = relay.call_lowered @tvmgen_default_ccompiler_main_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.prim_func @tvmgen_default_ccompiler_main_0(%p0: memref<4xf32>, %out0: memref<4xf32>)
        attributes {tir.external = "ccompiler", tir.external_source = "...", ...} { tir.return }
    ```
    """

    name = "relay-external-codegen"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = functions_by_name(op)
        external = {
            name: f for name, f in functions.items() if COMPILER_ATTR in f.attributes
        }
        if not external:
            return
        kernels = {name: external_kernel(f, functions) for name, f in external.items()}
        for inner in list(op.walk()):
            if isinstance(inner, func.CallOp) and inner.callee.string_value() in kernels:
                call = CallLoweredOp(
                    inner.callee.string_value(), inner.arguments, [r.type for r in inner.results]
                )
                for old, new in zip(inner.results, call.results):
                    new.name_hint = old.name_hint
                Rewriter.replace_op(inner, call)
        for name, function in external.items():
            Rewriter.insert_op(kernels[name], InsertPoint.after(function))
            op.body.block.erase_op(function)
        called = {
            inner.callee.string_value() for inner in op.walk() if isinstance(inner, func.CallOp)
        }
        for function in list(op.ops):
            if COMPOSITE_ATTR in function.attributes and function.sym_name.data not in called:
                op.body.block.erase_op(function)
