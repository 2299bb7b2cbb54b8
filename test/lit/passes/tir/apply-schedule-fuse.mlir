// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// Two loops become one over 4 * 8 iterations: i = f / 8, j = f % 8.
// CHECK-LABEL: tir.prim_func @two(
// CHECK:         tir.for %i_j_fused = %c0 to %c32 kind "serial" {
// CHECK-NEXT:      %i = arith.divui %i_j_fused, %c8 : index
// CHECK-NEXT:      %j = arith.remui %i_j_fused, %c8 : index
// CHECK-NEXT:      %v = tir.load %A[%i, %j] : memref<4x8xf32>
// CHECK-NEXT:      tir.store %v, %B[%i, %j] : memref<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
tir.prim_func @two(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["fuse B.i B.j"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// The inner two of three loops fuse; the outer loop is untouched and can be
// marked parallel afterwards.
// CHECK-LABEL: tir.prim_func @inner_pair(
// CHECK:         tir.for %n = %c0 to %c2 kind "parallel" {
// CHECK-NEXT:      tir.for %h_w_fused = %c0 to %c12 kind "serial" {
// CHECK-NEXT:        %h = arith.divui %h_w_fused, %c4 : index
// CHECK-NEXT:        %w = arith.remui %h_w_fused, %c4 : index
// CHECK-NEXT:        %v = tir.load %A[%n, %h, %w] : memref<2x3x4xf32>
tir.prim_func @inner_pair(%A: memref<2x3x4xf32>, %B: memref<2x3x4xf32>) attributes {schedule = ["fuse B.h B.w", "parallel B.n"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  tir.for %n = %c0 to %c2 kind "serial" {
    tir.for %h = %c0 to %c3 kind "serial" {
      tir.for %w = %c0 to %c4 kind "serial" {
        %v = tir.load %A[%n, %h, %w] : memref<2x3x4xf32>
        tir.store %v, %B[%n, %h, %w] : memref<2x3x4xf32>
      }
    }
  }
  tir.return
}

// Three loops fuse at once: a = f / 12, b = (f / 4) % 3, c = f % 4.
// CHECK-LABEL: tir.prim_func @three(
// CHECK:         tir.for %a_b_c_fused = %c0 to %c24 kind "serial" {
// CHECK-NEXT:      %a = arith.divui %a_b_c_fused, %c12 : index
// CHECK-NEXT:      %[[AB:.*]] = arith.divui %a_b_c_fused, %c4 : index
// CHECK-NEXT:      %b = arith.remui %[[AB]], %c3 : index
// CHECK-NEXT:      %c = arith.remui %a_b_c_fused, %c4 : index
// CHECK-NEXT:      tir.store %x, %A[%a, %b, %c] : memref<2x3x4xf32>
tir.prim_func @three(%A: memref<2x3x4xf32>) attributes {schedule = ["fuse A.a A.b A.c"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = arith.constant 1.0 : f32
  tir.for %a = %c0 to %c2 kind "serial" {
    tir.for %b = %c0 to %c3 kind "serial" {
      tir.for %c = %c0 to %c4 kind "serial" {
        tir.store %x, %A[%a, %b, %c] : memref<2x3x4xf32>
      }
    }
  }
  tir.return
}
