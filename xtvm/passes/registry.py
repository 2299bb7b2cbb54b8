"""Name → factory map of every xtvm pass and lowering (kebab-case names).

Factories import on demand so that ``xtvm-opt`` starts fast; a new pass is
one line here plus its module.
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(import_module(module), cls)


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "relay-infer-type": _lazy("xtvm.passes.relay.infer_type", "InferTypePass"),
    "relay-fold-constant": _lazy("xtvm.passes.relay.fold_constant", "FoldConstantPass"),
    "relay-dead-code-elimination": _lazy(
        "xtvm.passes.relay.dead_code_elimination", "DeadCodeEliminationPass"
    ),
    "relay-simplify-expr": _lazy("xtvm.passes.relay.simplify_expr", "SimplifyExprPass"),
    "relay-simplify-inference": _lazy(
        "xtvm.passes.relay.simplify_inference", "SimplifyInferencePass"
    ),
    "relay-eliminate-common-subexpr": _lazy(
        "xtvm.passes.relay.eliminate_common_subexpr", "EliminateCommonSubexprPass"
    ),
    "relay-fold-scale-axis": _lazy("xtvm.passes.relay.fold_scale_axis", "FoldScaleAxisPass"),
    "relay-alter-op-layout": _lazy("xtvm.passes.relay.alter_op_layout", "AlterOpLayoutPass"),
    "relay-int8-nchwc": _lazy("xtvm.passes.relay.int8_nchwc", "Int8NchwcPass"),
    "relay-convert-layout": _lazy("xtvm.passes.relay.convert_layout", "ConvertLayoutPass"),
    "qnn-canonicalize": _lazy("xtvm.passes.qnn.canonicalize", "QnnCanonicalizePass"),
    "qnn-fake-quantization-to-integer": _lazy(
        "xtvm.passes.qnn.fake_quantization_to_integer", "FakeQuantizationToIntegerPass"
    ),
    "relay-fuse-ops": _lazy("xtvm.passes.relay.fuse_ops", "FuseOpsPass"),
    "convert-relay-to-tir": _lazy(
        "xtvm.lowering.relay_to_tir.convert_relay_to_tir", "ConvertRelayToTirPass"
    ),
    "tir-flatten-buffer": _lazy("xtvm.passes.tir.flatten_buffer", "TirFlattenBufferPass"),
    "tir-simplify": _lazy("xtvm.passes.tir.simplify", "TirSimplifyPass"),
    "tir-unroll-loop": _lazy("xtvm.passes.tir.unroll_loop", "TirUnrollLoopPass"),
    "tir-apply-schedule": _lazy("xtvm.passes.tir.apply_schedule", "TirApplySchedulePass"),
    "convert-tir-to-c": _lazy("xtvm.lowering.tir_to_c.convert_tir_to_c", "ConvertTirToCPass"),
    "convert-tir-to-llvm": _lazy(
        "xtvm.lowering.tir_to_llvm.convert_tir_to_llvm", "ConvertTirToLlvmPass"
    ),
    "memory-manifest-alloc": _lazy("xtvm.passes.memory.manifest_alloc", "ManifestAllocPass"),
    "memory-plan": _lazy("xtvm.passes.memory.plan_memory", "PlanMemoryPass"),
    "memory-concat-in-place": _lazy("xtvm.passes.memory.concat_in_place", "ConcatInPlacePass"),
    "convert-memory-to-llvm": _lazy(
        "xtvm.lowering.memory_to_llvm.convert_memory_to_llvm", "ConvertMemoryToLlvmPass"
    ),
    "llvm-embed-metadata": _lazy("xtvm.lowering.memory_to_llvm.embed_metadata", "EmbedMetadataPass"),
    "convert-memory-to-vm": _lazy(
        "xtvm.lowering.memory_to_vm.convert_memory_to_vm", "ConvertMemoryToVmPass"
    ),
    "vm-embed-executable": _lazy("xtvm.lowering.memory_to_vm.embed_executable", "EmbedExecutablePass"),
    "vm-manifest-dynamic-alloc": _lazy(
        "xtvm.lowering.memory_to_vm.dynamic_alloc", "ManifestDynamicAllocPass"
    ),
    "vm-manifest-value-shapes": _lazy(
        "xtvm.lowering.memory_to_vm.value_shapes", "ManifestValueShapesPass"
    ),
    "vm-share-dynamic-storage": _lazy(
        "xtvm.lowering.memory_to_vm.share_storage", "ShareDynamicStoragePass"
    ),
    "apply-pdl": _lazy("xtvm.rewrite.apply_pdl", "ApplyPdlPass"),
    "relay-merge-composite": _lazy(
        "xtvm.passes.relay.partition.merge_composite", "MergeCompositePass"
    ),
    "relay-annotate-target": _lazy(
        "xtvm.passes.relay.partition.annotate_target", "AnnotateTargetPass"
    ),
    "relay-merge-compiler-regions": _lazy(
        "xtvm.passes.relay.partition.merge_compiler_regions", "MergeCompilerRegionsPass"
    ),
    "relay-partition-graph": _lazy(
        "xtvm.passes.relay.partition.partition_graph", "PartitionGraphPass"
    ),
    "relay-external-codegen": _lazy(
        "xtvm.passes.relay.partition.external_codegen", "ExternalCodegenPass"
    ),
}
