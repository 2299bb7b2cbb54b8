// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// B = A * 2 materialized in its own nest; C reads B at two points. After
// compute_inline both loads of B become the product, B's nest and buffer go.
// CHECK-LABEL: tir.prim_func @chain(
// CHECK-NOT:     tir.allocate
// CHECK:         tir.for %y = %c0 to %c7 kind "serial" {
// CHECK-NEXT:      %y1 = arith.addi %y, %c1 : index
// CHECK-NEXT:      %[[A0:.*]] = tir.load %A[%y] : memref<8xf32>
// CHECK-NEXT:      %[[B0:.*]] = arith.mulf %[[A0]], %two : f32
// CHECK-NEXT:      %[[A1:.*]] = tir.load %A[%y1] : memref<8xf32>
// CHECK-NEXT:      %[[B1:.*]] = arith.mulf %[[A1]], %two : f32
// CHECK-NEXT:      %s = arith.addf %[[B0]], %[[B1]] : f32
// CHECK-NEXT:      tir.store %s, %C[%y] : memref<7xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
tir.prim_func @chain(%A: memref<8xf32>, %C: memref<7xf32>) attributes {schedule = ["compute_inline B"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %B = tir.allocate "global" : memref<8xf32>
  tir.for %i = %c0 to %c8 kind "serial" {
    %a = tir.load %A[%i] : memref<8xf32>
    %b = arith.mulf %a, %two : f32
    tir.store %b, %B[%i] : memref<8xf32>
  }
  tir.for %y = %c0 to %c7 kind "serial" {
    %y1 = arith.addi %y, %c1 : index
    %b0 = tir.load %B[%y] : memref<8xf32>
    %b1 = tir.load %B[%y1] : memref<8xf32>
    %s = arith.addf %b0, %b1 : f32
    tir.store %s, %C[%y] : memref<7xf32>
  }
  tir.return
}
