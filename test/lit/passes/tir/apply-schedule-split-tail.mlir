// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s
// split_tail: a loop of run-time extent (a shape variable) becomes a nest
// over whole chunks of the factor (the inner loop of constant extent, here
// vectorized) and a scalar tail loop over the rest, on a copy of the body.

// CHECK-LABEL: tir.prim_func @chunks(
// CHECK-NOT:     schedule
// CHECK:         %n = tir.shape_var "n"
// CHECK-NEXT:    %[[Q:.*]] = arith.divui %n, %c8 : index
// CHECK-NEXT:    %[[END:.*]] = arith.muli %[[Q]], %c8 : index
// CHECK-NEXT:    tir.for %i.0 = %c0 to %[[Q]] kind "serial" {
// CHECK-NEXT:      %[[O:.*]] = arith.muli %i.0, %c8 : index
// CHECK-NEXT:      tir.for %i.1 = %c0 to %c8 kind "vectorized" {
// CHECK-NEXT:        %i = arith.addi %[[O]], %i.1 : index
// CHECK-NEXT:        %v = tir.load %A[%i] : memref<?xf32>
// CHECK-NEXT:        tir.store %v, %B[%i] : memref<?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %i.t = %[[END]] to %n kind "serial" {
// CHECK-NEXT:      %[[T:.*]] = tir.load %A[%i.t] : memref<?xf32>
// CHECK-NEXT:      tir.store %[[T]], %B[%i.t] : memref<?xf32>
// CHECK-NEXT:    }
tir.prim_func @chunks(%A: memref<?xf32>, %B: memref<?xf32>) attributes {schedule = ["split_tail B.i 8", "vectorize B.i.1"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  tir.for %i = %c0 to %n kind "serial" {
    %v = tir.load %A[%i] : memref<?xf32>
    tir.store %v, %B[%i] : memref<?xf32>
  }
  tir.return
}

// A lower bound other than 0: the chunks count from it.
// CHECK-LABEL: tir.prim_func @offset(
// CHECK:         %[[E:.*]] = arith.subi %n, %c2 : index
// CHECK-NEXT:    %[[Q2:.*]] = arith.divui %[[E]], %c4 : index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[Q2]], %c4 : index
// CHECK-NEXT:    %[[END2:.*]] = arith.addi %[[M]], %c2 : index
// CHECK:           %[[S:.*]] = arith.addi %{{.*}}, %i.1 : index
// CHECK-NEXT:      %i = arith.addi %[[S]], %c2 : index
// CHECK:         tir.for %i.t = %[[END2]] to %n kind "serial" {
tir.prim_func @offset(%A: memref<?xf32>, %B: memref<?xf32>) attributes {schedule = ["split_tail B.i 4"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c2 = arith.constant 2 : index
  %n = tir.shape_var "n"
  tir.for %i = %c2 to %n kind "serial" {
    %v = tir.load %A[%i] : memref<?xf32>
    tir.store %v, %B[%i] : memref<?xf32>
  }
  tir.return
}
