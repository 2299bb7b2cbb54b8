// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// Packing an input: 10 rows of W go into blocks of 8 (OI -> O/8 I 8o). The
// caller's layout cannot change, so a packed copy is filled at the start
// (zeroed first: 2 x 8 rows leave 6 unused) and the loads read the copy.
// CHECK-LABEL: tir.prim_func @pack_input(
// CHECK:         %W_packed = tir.allocate "global" : memref<2x3x8xf32>
// CHECK-NEXT:    %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    tir.for %ax0_zero = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %ax1_zero = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        tir.for %ax2_zero = %c0 to %c8 kind "serial" {
// CHECK-NEXT:          tir.store %zero, %W_packed[%ax0_zero, %ax1_zero, %ax2_zero] : memref<2x3x8xf32>
// CHECK:         tir.for %ax0 = %c0 to %c10 kind "serial" {
// CHECK-NEXT:      tir.for %ax1 = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %[[BLOCK:.*]] = arith.divui %ax0, %c8 : index
// CHECK-NEXT:        %[[LANE:.*]] = arith.remui %ax0, %c8 : index
// CHECK-NEXT:        %[[V:.*]] = tir.load %W[%ax0, %ax1] : memref<10x3xf32>
// CHECK-NEXT:        tir.store %[[V]], %W_packed[%[[BLOCK]], %ax1, %[[LANE]]] : memref<2x3x8xf32>
// CHECK:         tir.for %o = %c0 to %c10 kind "serial" {
// CHECK-NEXT:      tir.for %i = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %[[B:.*]] = arith.divui %o, %c8 : index
// CHECK-NEXT:        %[[L:.*]] = arith.remui %o, %c8 : index
// CHECK-NEXT:        %w = tir.load %W_packed[%[[B]], %i, %[[L]]] : memref<2x3x8xf32>
tir.prim_func @pack_input(%W: memref<10x3xf32>, %C: memref<10x3xf32>) attributes {
    schedule = ["transform_layout W (o, i) -> (o floordiv 8, i, o mod 8)"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %two = arith.constant 2.0 : f32
  tir.for %o = %c0 to %c10 kind "serial" {
    tir.for %i = %c0 to %c3 kind "serial" {
      %w = tir.load %W[%o, %i] : memref<10x3xf32>
      %r = arith.mulf %w, %two : f32
      tir.store %r, %C[%o, %i] : memref<10x3xf32>
    }
  }
  tir.return
}

// An allocated buffer changes shape in place: B is stored transposed, and
// every store and load of it follows.
// CHECK-LABEL: tir.prim_func @transpose_intermediate(
// CHECK:         %B = tir.allocate "global" : memref<8x4xf32>
// CHECK:           tir.store %a, %B[%j, %i] : memref<8x4xf32>
// CHECK:           %b = tir.load %B[%j{{.*}}, %i{{.*}}] : memref<8x4xf32>
tir.prim_func @transpose_intermediate(%A: memref<4x8xf32>, %C: memref<4x8xf32>) attributes {
    schedule = ["transform_layout B (d0, d1) -> (d1, d0)"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %B = tir.allocate "global" : memref<4x8xf32>
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %a = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %a, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %b = tir.load %B[%i, %j] : memref<4x8xf32>
      tir.store %b, %C[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// The packing loops are named NAME_packed.axK and schedule like any other.
// CHECK-LABEL: tir.prim_func @schedule_packing(
// CHECK:         tir.for %ax0 = %c0 to %c4 kind "parallel" {
// CHECK-NEXT:      tir.for %ax1 = %c0 to %c8 kind "vectorized" {
tir.prim_func @schedule_packing(%A: memref<4x8xf32>, %C: memref<8x4xf32>) attributes {
    schedule = ["transform_layout A (d0, d1) -> (d1, d0)", "parallel A_packed.ax0", "vectorize A_packed.ax1"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %j = %c0 to %c8 kind "serial" {
    tir.for %i = %c0 to %c4 kind "serial" {
      %a = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %a, %C[%j, %i] : memref<8x4xf32>
    }
  }
  tir.return
}
