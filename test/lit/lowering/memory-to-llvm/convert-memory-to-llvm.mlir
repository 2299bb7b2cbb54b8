// RUN: xtvm-opt %s -p convert-memory-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-memory-to-llvm,llvm-embed-metadata,convert-tir-to-llvm | filecheck %s --check-prefix=FULL

// The planned graph function of two kernels: %a lives in the arena at
// offset 0, the returned %b is written in place into the caller's output
// buffer; the weight is a constant global.

// The workspace: the planned arena, zeroed, and its size for callers that
// bring their own.
// CHECK:      llvm.mlir.global internal @__tvmgen_default_workspace() {{.*}}alignment = 64 : i64{{.*}} : !llvm.array<64 x i8> {
// CHECK-NEXT:   %{{.*}} = llvm.mlir.zero : !llvm.array<64 x i8>
// CHECK:      llvm.mlir.global external constant @tvmgen_default_workspace_size(64 : i64)
// The graph executor's JSON, read off the IR (offset 0 for %a and %b).
// CHECK:      llvm.mlir.global internal constant @__xtvm_graph_info("{{.*}}storage_offset
// Each called kernel's loop program, declared for convert-tir-to-llvm to define.
// CHECK:      llvm.func @addw_impl(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK:      llvm.func @neg_impl(!llvm.ptr, !llvm.ptr) -> i32
// The weight, 64-byte aligned, named after its name hint.
// CHECK:      llvm.mlir.global external constant @__xtvm_const_w(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>) {{.*}}alignment = 64 : i64{{.*}} : !llvm.array<4 x f32>

// The entry: NULL inputs or outputs give (2 << 16) | index, then the
// kernels in order, each call's nonzero code returned at once.
// CHECK-LABEL: llvm.func @tvmgen_default_run_with_workspace(%inputs: !llvm.ptr, %outputs: !llvm.ptr, %workspace: !llvm.ptr) -> i32 {
// CHECK:         llvm.mlir.constant(131072 : i32)
// CHECK:         llvm.mlir.constant(131073 : i32)
// CHECK:         llvm.cond_br
// CHECK:         %[[ARENA:.*]] = llvm.getelementptr inbounds %workspace[0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         %[[W:.*]] = llvm.mlir.addressof @__xtvm_const_w : !llvm.ptr
// CHECK:         %[[A:.*]] = llvm.getelementptr inbounds %[[ARENA]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         %[[RC1:.*]] = llvm.call @addw_impl(%x, %[[W]], %[[A]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK:         llvm.cond_br %{{.*}}, ^[[FAIL:.*]](%[[RC1]] : i32), ^[[NEXT:.*]]
// CHECK:       ^[[NEXT]]:
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr inbounds %outputs[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[B:.*]] = llvm.load %[[SLOT]] {{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[RC2:.*]] = llvm.call @neg_impl(%[[A]], %[[B]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT:     memcpy
// CHECK:         llvm.return
// CHECK:       ^[[FAIL]](%[[CODE:.*]]: i32):
// CHECK-NEXT:    llvm.return %[[CODE]] : i32
// CHECK-NOT:   builtin.unrealized_conversion_cast
// CHECK-NOT:   memory.

// The static entry runs on the static workspace.
// CHECK-LABEL: llvm.func @tvmgen_default_run(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32 {
// CHECK-NEXT:    %[[STATIC:.*]] = llvm.mlir.addressof @__tvmgen_default_workspace : !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.call @tvmgen_default_run_with_workspace(%{{.*}}, %{{.*}}, %[[STATIC]])

// After the whole llvm-dialect stage, the declarations have become the
// kernels' definitions and the metadata describes kernels, weights and entry.
// FULL:     llvm.func @addw_impl(%{{.*}}: !llvm.ptr {llvm.noalias}
// FULL-NOT: llvm.func @addw_impl(!llvm.ptr
// FULL:     llvm.mlir.global external constant @__xtvm_metadata("{{.*}}\22params\22:{\22w\22:{\22shape\22:[4],\22dtype\22:\22float32\22,\22symbol\22:\22__xtvm_const_w\22}}
// FULL:     llvm.mlir.global external constant @__xtvm_metadata_size

tir.prim_func @addw(%p0: memref<4xf32>, %p1: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "p1", "out"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    %x = tir.load %p0[%i] : memref<4xf32>
    %y = tir.load %p1[%i] : memref<4xf32>
    %s = arith.addf %x, %y : f32
    tir.store %s, %out[%i] : memref<4xf32>
  }
  tir.return
}
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
func.func @main(%x: tensor<4xf32> {relay.name = "x"}) -> (tensor<4xf32> {relay.name = "y"}) attributes {memory.planned_bytes = 64 : i64, memory.naive_bytes = 128 : i64} {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %w = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @addw ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>)
  %b = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @neg ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>)
  memory.kill %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
