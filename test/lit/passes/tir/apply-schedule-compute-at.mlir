// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// A 3-point stencil over a padded row: P (zero padding) is computed under
// C's loop y.0 for the 4 + 2 elements the 4 iterations of y.1 read,
// starting at y.0 * 4; the last tile would reach past P's end (index 9 of
// 9), so the moved nest is guarded.
// CHECK-LABEL: tir.prim_func @stencil(
// CHECK:         tir.for %y.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      %[[START:.*]] = arith.muli %y.0, %c4 : index
// CHECK-NEXT:      tir.for %x = %c0 to %c6 kind "serial" {
// CHECK-NEXT:        %[[X:.*]] = arith.addi %[[START]], %x : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi slt, %[[X]], %c9 : index
// CHECK-NEXT:        tir.if %[[IN]] {
// CHECK:               tir.store %pv, %P[%[[X]]] : memref<9xf32>
// CHECK:           tir.for %y.1 = %c0 to %c4 kind "serial" {
tir.prim_func @stencil(%A: memref<7xf32>, %C: memref<7xf32>) attributes {schedule = ["split C.y [None, 4]", "compute_at P C.y.0"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %zero = arith.constant 0.0 : f32
  %P = tir.allocate "global" : memref<9xf32>
  tir.for %x = %c0 to %c9 kind "serial" {
    %ax = arith.subi %x, %c1 : index
    %lo = arith.cmpi sge, %ax, %c0 : index
    %hi = arith.cmpi slt, %ax, %c7 : index
    %in = arith.andi %lo, %hi : i1
    %p = arith.select %in, %ax, %c0 : index
    %v = tir.load %A[%p] : memref<7xf32>
    %pv = arith.select %in, %v, %zero : f32
    tir.store %pv, %P[%x] : memref<9xf32>
  }
  tir.for %y = %c0 to %c7 kind "serial" {
    %y1 = arith.addi %y, %c1 : index
    %y2 = arith.addi %y, %c2 : index
    %a = tir.load %P[%y] : memref<9xf32>
    %b = tir.load %P[%y1] : memref<9xf32>
    %c = tir.load %P[%y2] : memref<9xf32>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    tir.store %t, %C[%y] : memref<7xf32>
  }
  tir.return
}
