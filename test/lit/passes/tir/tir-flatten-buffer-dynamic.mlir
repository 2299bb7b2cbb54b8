// RUN: xtvm-opt %s -p tir-flatten-buffer | filecheck %s
// Buffers with dynamic axes become memref<?xT>: the logical shapes keep -1
// (tir.buffer_shapes), strides that involve a shape variable are computed
// once after it is read, and a dynamic allocation takes its element count.

// A dynamic axis after the first: the stride of axis 0 is the variable.
// CHECK-LABEL: tir.prim_func @transpose(%A: memref<?xf32>, %B: memref<?xf32>) attributes {tir.shape_vars = {m = [array<i64: 0, 1>, array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: 3, -1>, array<i64: -1, 3>]} {
// CHECK:         %m = tir.shape_var "m"
// CHECK:             %[[O:.*]] = arith.muli %j, %m : index
// CHECK-NEXT:        %[[IJ:.*]] = arith.addi %[[O]], %i : index
// CHECK-NEXT:        %[[V:.*]] = tir.load %A[%[[IJ]]] : memref<?xf32>
// CHECK-NEXT:        %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[P:.*]] = arith.muli %i, %[[C3]] : index
// CHECK-NEXT:        %[[Q:.*]] = arith.addi %[[P]], %j : index
// CHECK-NEXT:        tir.store %[[V]], %B[%[[Q]]] : memref<?xf32>
tir.prim_func @transpose(%A: memref<3x?xf32>, %B: memref<?x3xf32>) attributes {tir.shape_vars = {m = [array<i64: 0, 1>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %m = tir.shape_var "m"
  tir.for %i = %c0 to %m kind "serial" {
    tir.for %j = %c0 to %c3 kind "serial" {
      %v = tir.load %A[%j, %i] : memref<3x?xf32>
      tir.store %v, %B[%i, %j] : memref<?x3xf32>
    }
  }
  tir.return
}

// A dynamic 2-d allocation: one allocation of n * 8 elements.
// CHECK-LABEL: tir.prim_func @scratch(%A: memref<?xf32>)
// CHECK:         %n = tir.shape_var "n"
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.muli %[[C8]], %n : index
// CHECK-NEXT:    %T = tir.allocate "global"(%[[COUNT]]) : memref<?xf32>
tir.prim_func @scratch(%A: memref<?x8xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  %T = tir.allocate "global"(%n) : memref<?x8xf32>
  tir.for %i = %c0 to %n kind "serial" {
    %v = tir.load %A[%i, %c0] : memref<?x8xf32>
    tir.store %v, %T[%i, %c0] : memref<?x8xf32>
  }
  tir.return
}
