// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm -t llvm | filecheck %s --check-prefix=LLVM
// `tir.call_intrin "llvm.prefetch.p0"` on a `tir.load` read by nothing else
// prefetches that element: the load becomes its address (no llvm.load); a
// load read by anything else stays a load.

// CHECK-LABEL: llvm.func @prefetch_impl(%W: !llvm.ptr {llvm.noalias}, %O: !llvm.ptr {llvm.noalias}, %i: i64) -> i32 {
// CHECK:         %ahead = llvm.getelementptr inbounds %W[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.prefetch.p0"(%ahead, %rw, %locality, %data) : (!llvm.ptr, i32, i32, i32) -> ()
// CHECK:         %[[Q:.*]] = llvm.getelementptr inbounds %W[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %v = llvm.load %[[Q]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         llvm.store %v, %{{.*}}
// LLVM: call void @"llvm.prefetch.p0"(ptr %{{.*}}, i32 0, i32 1, i32 1)
tir.prim_func @prefetch(%W: memref<4x16xi32>, %O: memref<16xi32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rw = arith.constant 0 : i32
  %locality = arith.constant 1 : i32
  %data = arith.constant 1 : i32
  %ahead = tir.load %W[%c1, %c0] : memref<4x16xi32>
  tir.call_intrin "llvm.prefetch.p0"(%ahead, %rw, %locality, %data) : (i32, i32, i32, i32) -> ()
  %v = tir.load %W[%c0, %i] : memref<4x16xi32>
  tir.store %v, %O[%i] : memref<16xi32>
  tir.return
}
