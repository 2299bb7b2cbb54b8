// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s
// A prim_func with a shape variable: `n` is the extent of argument 0's axis 0
// and of argument 1's axis 0 (tir.shape_vars), read in the body with
// tir.shape_var; a dynamic tir.allocate takes one extent per `?`.

// CHECK-LABEL: tir.prim_func @rows(%A: memref<?x8xf32>, %B: memref<?x8xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %n = tir.shape_var "n"
// CHECK-NEXT:    %M = tir.allocate "global"(%n) : memref<?xf32>
// CHECK-NEXT:    tir.for %i = %c0 to %n kind "serial" {
tir.prim_func @rows(%A: memref<?x8xf32>, %B: memref<?x8xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  %M = tir.allocate "global"(%n) : memref<?xf32>
  tir.for %i = %c0 to %n kind "serial" {
    %v = tir.load %A[%i, %c0] : memref<?x8xf32>
    tir.store %v, %M[%i] : memref<?xf32>
    tir.store %v, %B[%i, %c0] : memref<?x8xf32>
  }
  tir.return
}

// Flattened: the logical shapes keep -1 for the dynamic axis.
// CHECK-LABEL: tir.prim_func @flat(%A: memref<?xf32>) attributes {tir.buffer_shapes = [array<i64: 3, -1>], tir.shape_vars = {m = [array<i64: 0, 1>]}} {
tir.prim_func @flat(%A: memref<?xf32>) attributes {tir.buffer_shapes = [array<i64: 3, -1>], tir.shape_vars = {m = [array<i64: 0, 1>]}} {
  tir.return
}
