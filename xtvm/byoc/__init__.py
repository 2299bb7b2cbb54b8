"""Bring your own codegen (TVM's BYOC): external codegens for partitioned regions.

``xtvm.build(mod, params=params, byoc=["dnnl"])`` (or ``xtvm-compile --byoc
dnnl``) partitions the graph (:mod:`xtvm.passes.relay.partition`: merge
composite patterns, annotate the ops each codegen's predicates accept, merge
regions without cycles, outline each as ``func.func`` with ``relay.compiler``)
and hands each region to its codegen (:mod:`xtvm.byoc.registry`), whose C
source is compiled by the system C compiler and linked into the module.
See docs/byoc.md.
"""

from xtvm.byoc.registry import (
    CODEGENS,
    TARGETS_CONFIG,
    CodegenError,
    ExternalCodegen,
    ExternalSource,
    get_codegen,
)

__all__ = [
    "CODEGENS",
    "TARGETS_CONFIG",
    "CodegenError",
    "ExternalCodegen",
    "ExternalSource",
    "get_codegen",
]
