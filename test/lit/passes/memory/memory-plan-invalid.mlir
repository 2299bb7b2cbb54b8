// RUN: xtvm-opt %s -p memory-plan --split-input-file --verify-diagnostics
// RUN: not xtvm-opt %s -p 'memory-plan{alignment=0}' 2>&1 | filecheck %s --check-prefix=OPTION
// Functions whose tensors the pass cannot re-place; each expected-error is the error, at the op it names.

// Storage that the caller passes in cannot be replaced by an arena.
func.func @storage_argument(%s: !memory.storage) -> tensor<4xf32> {
  // expected-error @+1 {{memory-plan: @storage_argument places a tensor in storage that is not allocated in the function:}}
  %t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @k outs(%t : tensor<4xf32>)
  func.return %t : tensor<4xf32>
}

// -----

// Storage with a user other than memory.alloc_tensor is not the planner's to erase.
func.func @storage_escapes() -> (tensor<4xf32>, !memory.storage) {
  // expected-error @+1 {{memory-plan: @storage_escapes uses a storage for something other than memory.alloc_tensor:}}
  %s = memory.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !memory.storage
  %t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @k outs(%t : tensor<4xf32>)
  func.return %t, %s : tensor<4xf32>, !memory.storage
}

// OPTION: error: memory-plan: alignment 0 is not a power of two
