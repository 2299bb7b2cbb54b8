// RUN: xtvm-opt %s -p convert-memory-to-llvm --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p convert-memory-to-llvm --split-input-file | filecheck %s --check-prefix=DUP

// Outputs that no kernel writes in place are copied into the caller's
// buffers: a graph input returned as is, a constant. A returned tuple counts
// as its fields.
// CHECK-LABEL: llvm.func @tvmgen_default_run_with_workspace(%inputs: !llvm.ptr, %outputs: !llvm.ptr, %workspace: !llvm.ptr) -> i32 {
// After the NULL checks, the kernel writes output 0 in place.
// CHECK:         llvm.cond_br
// CHECK:         %[[SLOT0:.*]] = llvm.getelementptr inbounds %outputs[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[OUT0:.*]] = llvm.load %[[SLOT0]]
// CHECK:         llvm.call @neg_impl(%x, %[[OUT0]])
// Output 1 (the input) and 2 (the constant) are copies.
// CHECK:         %[[SLOT1:.*]] = llvm.getelementptr inbounds %outputs[1]
// CHECK:         %[[DST1:.*]] = llvm.load %[[SLOT1]]
// CHECK:         %[[N1:.*]] = llvm.mlir.constant(16) : i64
// CHECK:         llvm.call @memcpy(%[[DST1]], %x, %[[N1]])
// CHECK:         %[[SLOT2:.*]] = llvm.getelementptr inbounds %outputs[2]
// CHECK:         %[[DST2:.*]] = llvm.load %[[SLOT2]]
// CHECK:         llvm.call @memcpy(%[[DST2]], %c,
// CHECK:         llvm.return
// CHECK:       llvm.func @memcpy(!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
// CHECK-NOT:   relay.

tir.prim_func @neg(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    %x = tir.load %p0[%i] : memref<4xf32>
    %n = arith.negf %x : f32
    tir.store %n, %out[%i] : memref<4xf32>
  }
  tir.return
}
func.func @main(%x: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>> {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %c = relay.const dense<2.0> : tensor<4xf32>
  %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @neg ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
  %t = relay.tuple %a, %x, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>>
  func.return %t : tuple<tensor<4xf32>, tensor<4xf32>, tensor<4xf32>>
}

// -----

// A tensor returned twice is copied into both outputs, not written in place.
// DUP-LABEL: llvm.func @tvmgen_default_run_with_workspace
// DUP:         llvm.cond_br
// DUP:         %[[A:.*]] = llvm.getelementptr inbounds %arena[0]
// DUP:         llvm.call @neg_impl(%x, %[[A]])
// DUP:         llvm.call @memcpy(%{{.*}}, %[[A]],
// DUP:         llvm.call @memcpy(%{{.*}}, %[[A]],
tir.prim_func @neg(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
func.func @main(%x: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @neg ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
  %t = relay.tuple %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  func.return %t : tuple<tensor<4xf32>, tensor<4xf32>>
}
