// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s
// Every memory op in its custom syntax, round-tripped directly and through
// the generic form.

// Storage, two tensors placed in it, kernel calls with and without inputs,
// a kill, and a multi-output call.
// CHECK-LABEL: func.func @all_ops(%x: tensor<1x784xf32>, %w: tensor<256x784xf32>) -> tensor<1x256xf32> {
// CHECK-NEXT:    %s = memory.alloc_storage {size = 2048 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
// CHECK-NEXT:    %u = memory.alloc_tensor %s {offset = 1024 : i64} : tensor<1x256xf32>
// CHECK-NEXT:    memory.invoke_kernel @fused_nn_dense ins(%x, %w : tensor<1x784xf32>, tensor<256x784xf32>) outs(%t : tensor<1x256xf32>)
// CHECK-NEXT:    memory.invoke_kernel @fill_zero outs(%u : tensor<1x256xf32>)
// CHECK-NEXT:    memory.kill %u : tensor<1x256xf32>
// CHECK-NEXT:    func.return %t : tensor<1x256xf32>
// CHECK-NEXT:  }
func.func @all_ops(%x: tensor<1x784xf32>, %w: tensor<256x784xf32>) -> tensor<1x256xf32> {
  %s = memory.alloc_storage {size = 2048 : i64, alignment = 64 : i64} : !memory.storage
  %t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<1x256xf32>
  %u = memory.alloc_tensor %s {offset = 1024 : i64} : tensor<1x256xf32>
  memory.invoke_kernel @fused_nn_dense ins(%x, %w : tensor<1x784xf32>, tensor<256x784xf32>) outs(%t : tensor<1x256xf32>)
  memory.invoke_kernel @fill_zero outs(%u : tensor<1x256xf32>)
  memory.kill %u : tensor<1x256xf32>
  func.return %t : tensor<1x256xf32>
}

// A kernel with two outputs of different element types (i1 takes one byte),
// and storage passed in as an argument (its size is unknown here).
// CHECK-LABEL: func.func @two_outputs(%x: tensor<8xf32>, %s: !memory.storage) -> (tensor<8xf32>, tensor<8xi1>) {
// CHECK-NEXT:    %v = memory.alloc_tensor %s {offset = 0 : i64} : tensor<8xf32>
// CHECK-NEXT:    %m = memory.alloc_tensor %s {offset = 32 : i64} : tensor<8xi1>
// CHECK-NEXT:    memory.invoke_kernel @split ins(%x : tensor<8xf32>) outs(%v, %m : tensor<8xf32>, tensor<8xi1>)
// CHECK-NEXT:    func.return %v, %m : tensor<8xf32>, tensor<8xi1>
func.func @two_outputs(%x: tensor<8xf32>, %s: !memory.storage) -> (tensor<8xf32>, tensor<8xi1>) {
  %v = memory.alloc_tensor %s {offset = 0 : i64} : tensor<8xf32>
  %m = memory.alloc_tensor %s {offset = 32 : i64} : tensor<8xi1>
  memory.invoke_kernel @split ins(%x : tensor<8xf32>) outs(%v, %m : tensor<8xf32>, tensor<8xi1>)
  func.return %v, %m : tensor<8xf32>, tensor<8xi1>
}
