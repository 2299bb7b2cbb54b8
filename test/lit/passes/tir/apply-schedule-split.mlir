// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// A dividing split: two loops, the old variable rebuilt as i.0 * 4 + i.1, no guard.
// CHECK-LABEL: tir.prim_func @dividing(
// CHECK-NOT:     schedule
// CHECK:         tir.for %i.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      %[[O:.*]] = arith.muli %i.0, %c4 : index
// CHECK-NEXT:      tir.for %i.1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %i = arith.addi %[[O]], %i.1 : index
// CHECK-NEXT:        %v = tir.load %A[%i] : memref<8xf32>
// CHECK-NEXT:        tir.store %v, %B[%i] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tir.prim_func @dividing(%A: memref<8xf32>, %B: memref<8xf32>) attributes {schedule = ["split B.i [2, 4]"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 kind "serial" {
    %v = tir.load %A[%i] : memref<8xf32>
    tir.store %v, %B[%i] : memref<8xf32>
  }
  tir.return
}

// 10 iterations split by [None, 4]: the outer factor is inferred as 3 and a
// guard skips the two iterations past the end.
// CHECK-LABEL: tir.prim_func @guarded(
// CHECK:         tir.for %i.0 = %c0 to %c3 kind "serial" {
// CHECK-NEXT:      %[[O:.*]] = arith.muli %i.0, %c4 : index
// CHECK-NEXT:      tir.for %i.1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %i = arith.addi %[[O]], %i.1 : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi slt, %i, %c10 : index
// CHECK-NEXT:        tir.if %[[IN]] {
// CHECK-NEXT:          %v = tir.load %A[%i] : memref<10xf32>
// CHECK-NEXT:          tir.store %v, %B[%i] : memref<10xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tir.prim_func @guarded(%A: memref<10xf32>, %B: memref<10xf32>) attributes {schedule = ["split B.i [None, 4]"]} {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  tir.for %i = %c0 to %c10 kind "serial" {
    %v = tir.load %A[%i] : memref<10xf32>
    tir.store %v, %B[%i] : memref<10xf32>
  }
  tir.return
}

// Three factors, and a loop that starts at 2 (a reduction axis over [2, 26)):
// k = i.0 * 12 + i.1 * 4 + i.2 + 2.
// CHECK-LABEL: tir.prim_func @three_factors_offset(
// CHECK:         tir.for %k.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      %[[A:.*]] = arith.muli %k.0, %c12 : index
// CHECK-NEXT:      tir.for %k.1 = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %[[B:.*]] = arith.muli %k.1, %c4 : index
// CHECK-NEXT:        %[[AB:.*]] = arith.addi %[[A]], %[[B]] : index
// CHECK-NEXT:        tir.for %k.2 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:          %[[ABC:.*]] = arith.addi %[[AB]], %k.2 : index
// CHECK-NEXT:          %k = arith.addi %[[ABC]], %c2 : index
// CHECK-NEXT:          %v = tir.load %A[%k] : memref<26xf32>
tir.prim_func @three_factors_offset(%A: memref<26xf32>, %S: memref<1xf32>) attributes {schedule = ["split S.k [2, 3, 4]"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c26 = arith.constant 26 : index
  tir.for %k = %c2 to %c26 kind "serial" {
    %v = tir.load %A[%k] : memref<26xf32>
    %s = tir.load %S[%c0] : memref<1xf32>
    %t = arith.addf %s, %v : f32
    tir.store %t, %S[%c0] : memref<1xf32>
  }
  tir.return
}
