// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s
// RUN: xtvm-opt %s -p tir-apply-schedule,tir-unroll-loop,tir-flatten-buffer,tir-simplify | filecheck %s --check-prefix=LOWERED

// vectorize, parallel and unroll set the loop kind. After the tir pipeline
// the unrolled loop is gone (two copies of its body) and the vectorized and
// parallel loops survive flattening and simplification.
// CHECK-LABEL: tir.prim_func @kinds(
// CHECK:         tir.for %n = %c0 to %c4 kind "parallel" {
// CHECK-NEXT:      tir.for %h = %c0 to %c2 kind "unrolled" {
// CHECK-NEXT:        tir.for %w = %c0 to %c8 kind "vectorized" {
// CHECK-NEXT:          %v = tir.load %A[%n, %h, %w] : memref<4x2x8xf32>

// LOWERED-LABEL: tir.prim_func @kinds(
// LOWERED:         tir.for %n = %c0 to %c4 kind "parallel" {
// LOWERED-NOT:       tir.for %h
// LOWERED:           tir.for %w = %c0 to %c8 kind "vectorized" {
// LOWERED:             tir.load %A[{{.*}}] : memref<64xf32>
// LOWERED:           tir.for %w{{.*}} = %c0 to %c8 kind "vectorized" {
// LOWERED:             tir.load %A[{{.*}}] : memref<64xf32>
// LOWERED-NOT:     tir.for
// LOWERED:         tir.return
tir.prim_func @kinds(%A: memref<4x2x8xf32>, %B: memref<4x2x8xf32>) attributes {schedule = ["vectorize B.w", "parallel B.n", "unroll B.h"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %n = %c0 to %c4 kind "serial" {
    tir.for %h = %c0 to %c2 kind "serial" {
      tir.for %w = %c0 to %c8 kind "serial" {
        %v = tir.load %A[%n, %h, %w] : memref<4x2x8xf32>
        tir.store %v, %B[%n, %h, %w] : memref<4x2x8xf32>
      }
    }
  }
  tir.return
}
