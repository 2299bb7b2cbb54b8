"""``llvm-embed-metadata``: the module's description for the runtime, as
globals in the IR (docs/abi.md, "Metadata").

Input: a module on its way to the llvm dialect, before
``convert-tir-to-llvm``: its ``tir.prim_func`` kernels and, for a model,
what ``convert-memory-to-llvm`` made (``@__xtvm_graph_info``, the constant
globals). Output: two exported globals,

* ``@__xtvm_metadata``: the metadata, ASCII JSON: each kernel's signature,
  the graph executor's JSON, each parameter's shape, dtype and the symbol
  of its constant global, and the AOT entry's inputs and outputs;
* ``@__xtvm_metadata_size``: its byte length;
* ``@__xtvm_metadata_sha256``: its SHA-256 in hex, which ``load_module``
  checks (a damaged library is an error, not a wrong model);

and ``@__xtvm_graph_info`` erased; the module gets the target's
``llvm.target_triple`` and ``llvm.data_layout``. A library (JIT or shared object) is fully
described by them: the runtime reads nothing else.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass

from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.memory_to_llvm.convert_memory_to_llvm import GRAPH_INFO_SYMBOL, const_symbol
from xtvm.lowering.tir_to_llvm.signature import tir_signature
from xtvm.runtime.metadata import pack_header

METADATA_SYMBOL = "__xtvm_metadata"
METADATA_SIZE_SYMBOL = "__xtvm_metadata_size"
METADATA_SHA256_SYMBOL = "__xtvm_metadata_sha256"


def _graph_info(module: ModuleOp) -> dict | None:
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp) and op.sym_name.data == GRAPH_INFO_SYMBOL:
            assert isinstance(op.value, StringAttr)
            info = json.loads(op.value.data)
            op.detach()
            op.erase()
            return info
    return None


def _params(graph: dict) -> dict[str, dict]:
    """Each constant of the graph: its shape, dtype and global."""
    shapes = graph["attrs"]["shape"][1]
    dtypes = graph["attrs"]["dltype"][1]
    row = graph["node_row_ptr"]
    inputs = {n["name"] for n in graph["nodes"] if n["op"] == "null"}
    params: dict[str, dict] = {}
    for nid in graph["arg_nodes"]:
        node = graph["nodes"][nid]
        if node["name"] in inputs and node.get("xtvm_input", False):
            continue
        entry = row[nid]
        params[node["name"]] = {
            "shape": shapes[entry],
            "dtype": dtypes[entry],
            "symbol": const_symbol(node["name"]),
        }
    return params


def _describe_target(module: ModuleOp) -> None:
    """Record the target's triple and data layout on the module (as upstream
    MLIR's ``llvm.target_triple`` and ``llvm.data_layout``), so the file alone
    says what it was compiled for: ``mlir-translate``, ``opt`` and ``llc``
    need no ``-mtriple``."""
    from xtvm.codegen.llvm_ir import target_machine
    from xtvm.target import Target

    tm = target_machine(Target.current())
    module.attributes.setdefault("llvm.target_triple", StringAttr(tm.triple))
    module.attributes.setdefault("llvm.data_layout", StringAttr(str(tm.target_data)))


def metadata_globals(blob: bytes) -> list[llvm.GlobalOp]:
    """The exported globals that carry metadata ``blob`` (ASCII JSON): the
    bytes, their length, and their SHA-256 (hex), which the runtime checks so
    that a damaged library is an error rather than a wrong model."""
    return [
        llvm.GlobalOp(
            llvm.LLVMArrayType(len(blob), IntegerType(8)),
            METADATA_SYMBOL,
            "external",
            constant=True,
            value=StringAttr(blob.decode("ascii")),
            alignment=64,
        ),
        llvm.GlobalOp(
            i64,
            METADATA_SIZE_SYMBOL,
            "external",
            constant=True,
            value=IntegerAttr(len(blob), i64),
            alignment=8,
        ),
        llvm.GlobalOp(
            llvm.LLVMArrayType(64, IntegerType(8)),
            METADATA_SHA256_SYMBOL,
            "external",
            constant=True,
            value=StringAttr(hashlib.sha256(blob).hexdigest()),
        ),
    ]


@dataclass(frozen=True)
class EmbedMetadataPass(ModulePass):
    """Describe the module for the runtime in ``@__xtvm_metadata`` (see the
    module docstring); run it after ``convert-memory-to-llvm`` and before
    ``convert-tir-to-llvm``, which consumes the kernels' signatures.

    ```mlir
    llvm.mlir.global external constant @__xtvm_metadata("{\\22version\\22:2,...}")
    llvm.mlir.global external constant @__xtvm_metadata_size(480 : i64) : i64
    ```
    """

    name = "llvm-embed-metadata"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _describe_target(op)
        functions = {
            f.sym_name.data: tir_signature(f) for f in op.ops if isinstance(f, PrimFuncOp)
        }
        info = _graph_info(op)
        header: dict = {"functions": functions, "graph_json": None, "params": {}}
        if info is not None:
            graph = json.loads(info["graph_json"])
            entry = info["entry"]
            input_names = {t["name"] for t in entry["inputs"]}
            header["graph_json"] = info["graph_json"]
            header["params"] = {
                name: p for name, p in _params(graph).items() if name not in input_names
            }
            header["entry"] = entry
        op.body.block.add_ops(metadata_globals(pack_header(header)))
