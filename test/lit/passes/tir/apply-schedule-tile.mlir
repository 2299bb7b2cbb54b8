// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// tile(i, j, 2, 4) = split i [None, 2], split j [None, 4], reorder(i.0, j.0, i.1, j.1).
// j (extent 6) does not divide by 4: its guard sits inside j.1, the loop
// that completes j = j.0 * 4 + j.1; i divides and has no guard.
// CHECK-LABEL: tir.prim_func @tile2d(
// CHECK:         tir.for %i.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      %[[I0:.*]] = arith.muli %i.0, %c2 : index
// CHECK-NEXT:      tir.for %j.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:        %[[J0:.*]] = arith.muli %j.0, %c4 : index
// CHECK-NEXT:        tir.for %i.1 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:          %i = arith.addi %[[I0]], %i.1 : index
// CHECK-NEXT:          tir.for %j.1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:            %j = arith.addi %[[J0]], %j.1 : index
// CHECK-NEXT:            %[[IN:.*]] = arith.cmpi slt, %j, %c6 : index
// CHECK-NEXT:            tir.if %[[IN]] {
// CHECK-NEXT:              %v = tir.load %A[%i, %j] : memref<4x6xf32>
// CHECK-NEXT:              tir.store %v, %B[%i, %j] : memref<4x6xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tir.prim_func @tile2d(%A: memref<4x6xf32>, %B: memref<4x6xf32>) attributes {schedule = ["tile B.i B.j [2, 4]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c6 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x6xf32>
      tir.store %v, %B[%i, %j] : memref<4x6xf32>
    }
  }
  tir.return
}

// One loop tiles like a split.
// CHECK-LABEL: tir.prim_func @tile1d(
// CHECK:         tir.for %i.0 = %c0 to %c2 kind "serial" {
// CHECK:           tir.for %i.1 = %c0 to %c4 kind "serial" {
tir.prim_func @tile1d(%B: memref<8xf32>, %x: f32) attributes {schedule = ["tile B.i [4]"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 kind "serial" {
    tir.store %x, %B[%i] : memref<8xf32>
  }
  tir.return
}
