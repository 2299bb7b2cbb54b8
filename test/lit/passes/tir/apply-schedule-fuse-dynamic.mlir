// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s
// fuse with a dynamic outermost loop (a batch of run-time size n): the fused
// extent n * 8 is computed before the nest; the strides use the constant
// inner extents only, so the outer variable is f / 8 and the inner f % 8.

// CHECK-LABEL: tir.prim_func @batch(
// CHECK:         %n = tir.shape_var "n"
// CHECK-NEXT:    %[[EXTENT:.*]] = arith.muli %n, %c8 : index
// CHECK-NEXT:    tir.for %i_j_fused = %c0 to %[[EXTENT]] kind "parallel" {
// CHECK-NEXT:      %i = arith.divui %i_j_fused, %c8 : index
// CHECK-NEXT:      %j = arith.remui %i_j_fused, %c8 : index
// CHECK-NEXT:      %v = tir.load %A[%i, %j] : memref<?x8xf32>
// CHECK-NEXT:      tir.store %v, %B[%i, %j] : memref<?x8xf32>
tir.prim_func @batch(%A: memref<?x8xf32>, %B: memref<?x8xf32>) attributes {schedule = ["fuse B.i B.j", "parallel B.i_j_fused"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = tir.shape_var "n"
  tir.for %i = %c0 to %n kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<?x8xf32>
      tir.store %v, %B[%i, %j] : memref<?x8xf32>
    }
  }
  tir.return
}
