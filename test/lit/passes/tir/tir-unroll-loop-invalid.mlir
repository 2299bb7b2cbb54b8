// RUN: not xtvm-opt %s -p tir-unroll-loop 2>&1 | filecheck %s

// A loop of kind "unrolled" needs a constant extent.
// CHECK: tir-unroll-loop: cannot unroll a loop of non-constant extent:
// CHECK-NEXT: tir.for %i = %c0 to %n kind "unrolled" {
tir.prim_func @symbolic(%A: memref<8xf32>, %n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  tir.for %i = %c0 to %n kind "unrolled" {
    tir.store %x, %A[%i] : memref<8xf32>
  }
  tir.return
}
