"""tir → llvm: `convert-tir-to-llvm` and the kernel calling convention.

* `convert_tir_to_llvm`: the pass, its patterns and conversion target;
* `function`: a prim_func body → `NAME_impl` (loops → CFG, buffers → GEPs);
* `vectorize`, `parallel`: vectorized loops → LLVM vectors, parallel loops
  → outlined OpenMP bodies;
* `packed_api`: the checked entry point `NAME(args, num_args)`;
* `arith`, `math`: the scalar op-family patterns, one category a file
  (`scalar_pattern`: their base; `scalar`: the list and the op table);
* `signature`: the metadata `functions` entry of a prim_func;
* `emitter`, `types`: building blocks.
"""

from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import ConvertTirToLlvmPass
from xtvm.lowering.tir_to_llvm.signature import tir_signature

__all__ = ["ConvertTirToLlvmPass", "tir_signature"]
