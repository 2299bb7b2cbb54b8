// RUN: xtvm-opt %s -p convert-memory-to-llvm | filecheck %s
// A concatenation marked memory.in_place (memory-concat-in-place: its inputs
// were written into its output) is not called. Returned, it is copied out of
// the workspace like an output no kernel writes: its producers wrote the
// workspace, not the caller's buffer.
// CHECK-LABEL: llvm.func @tvmgen_default_run_with_workspace(%inputs: !llvm.ptr, %outputs: !llvm.ptr, %workspace: !llvm.ptr) -> i32 {
// CHECK:         %[[A:.*]] = llvm.getelementptr inbounds %arena[0]
// CHECK:         llvm.call @neg_impl(%x, %[[A]])
// CHECK:         %[[B:.*]] = llvm.getelementptr inbounds %arena[16]
// CHECK:         llvm.call @neg_impl(%x, %[[B]])
// CHECK-NOT:     llvm.call @cat_impl
// CHECK:         %[[C:.*]] = llvm.getelementptr inbounds %arena[0]
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr inbounds %outputs[0]
// CHECK:         %[[DST:.*]] = llvm.load %[[SLOT]]
// CHECK:         %[[N:.*]] = llvm.mlir.constant(32) : i64
// CHECK:         llvm.call @memcpy(%[[DST]], %[[C]], %[[N]])
// CHECK:         llvm.return

tir.prim_func @neg(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
tir.prim_func @cat(%p0: memref<4xf32>, %p1: memref<4xf32>, %out: memref<8xf32>) attributes {arg_names = ["p0", "p1", "out"], xtvm.concatenate_axis = 0 : i64} {
  tir.return
}
func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @neg ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
  %b = memory.alloc_tensor %arena {offset = 16 : i64} : tensor<4xf32>
  memory.invoke_kernel @neg ins(%x : tensor<4xf32>) outs(%b : tensor<4xf32>)
  %c = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<8xf32>
  memory.invoke_kernel @cat ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%c : tensor<8xf32>) {memory.in_place}
  func.return %c : tensor<8xf32>
}
