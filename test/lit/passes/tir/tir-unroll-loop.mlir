// RUN: xtvm-opt %s -p tir-unroll-loop | filecheck %s --check-prefix=DEFAULT
// RUN: xtvm-opt %s -p 'tir-unroll-loop{auto-max-step=8}' | filecheck %s --check-prefix=STEP8
// RUN: xtvm-opt %s -p 'tir-unroll-loop{auto-max-step=4 explicit-unroll=false}' | filecheck %s --check-prefix=MARK

// A kind "unrolled" loop is always unrolled. With auto-max-step=8 the outer
// serial loop (4 iterations x 2 stores) unrolls too; with
// explicit-unroll=false a small serial loop is only marked "unrolled".
// DEFAULT-LABEL: tir.prim_func @nest(
// DEFAULT:         tir.for %i = %c0 to %c4 kind "serial" {
// DEFAULT-NEXT:      %[[J0:.*]] = arith.constant 0 : index
// DEFAULT-NEXT:      %v = tir.load %A[%i, %[[J0]]] : memref<4x4xf32>
// DEFAULT-NEXT:      tir.store %v, %A[%[[J0]], %i] : memref<4x4xf32>
// DEFAULT-NEXT:      %[[J1:.*]] = arith.constant 1 : index
// DEFAULT-NEXT:      %[[V1:.*]] = tir.load %A[%i, %[[J1]]] : memref<4x4xf32>
// DEFAULT-NEXT:      tir.store %[[V1]], %A[%[[J1]], %i] : memref<4x4xf32>
// DEFAULT-NEXT:    }
// DEFAULT-NEXT:    tir.for %k = %n to %c4 kind "serial" {
// DEFAULT-NEXT:      tir.for %j = %c0 to %c2 kind "serial" {

// STEP8-LABEL: tir.prim_func @nest(
// STEP8-NOT:     tir.for %i
// STEP8-COUNT-8: tir.store
// STEP8-NEXT:    tir.for %k = %n to %c4 kind "serial" {
// STEP8-NEXT:      %[[J0:.*]] = arith.constant 0 : index
// STEP8-NEXT:      %[[V:.*]] = tir.load %A[%k, %[[J0]]] : memref<4x4xf32>

// MARK-LABEL: tir.prim_func @nest(
// MARK:         tir.for %i = %c0 to %c4 kind "serial" {
// MARK:         tir.for %k = %n to %c4 kind "serial" {
// MARK-NEXT:      tir.for %j = %c0 to %c2 kind "unrolled" {
tir.prim_func @nest(%A: memref<4x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c2 kind "unrolled" {
      %v = tir.load %A[%i, %j] : memref<4x4xf32>
      tir.store %v, %A[%j, %i] : memref<4x4xf32>
    }
  }
  tir.for %k = %n to %c4 kind "serial" {
    tir.for %j = %c0 to %c2 kind "serial" {
      %v = tir.load %A[%k, %j] : memref<4x4xf32>
      tir.store %v, %A[%j, %k] : memref<4x4xf32>
    }
  }
  tir.return
}

// The pragma annotation sets auto_max_step for its loop nest; a symbolic
// lower bound unrolls as lb + k.
// DEFAULT-LABEL: tir.prim_func @pragma(
// DEFAULT:         %[[K0:.*]] = arith.constant 0 : index
// DEFAULT-NEXT:    %[[I0:.*]] = arith.addi %n, %[[K0]] : index
// DEFAULT-NEXT:    tir.store %x, %A[%[[I0]]] : memref<8xf32>
// DEFAULT-NEXT:    %[[K1:.*]] = arith.constant 1 : index
// DEFAULT-NEXT:    %[[I1:.*]] = arith.addi %n, %[[K1]] : index
// DEFAULT-NEXT:    tir.store %x, %A[%[[I1]]] : memref<8xf32>
// DEFAULT-NEXT:    tir.return
tir.prim_func @pragma(%A: memref<8xf32>, %n: index, %x: f32) {
  %c2 = arith.constant 2 : index
  %ub = arith.addi %n, %c2 : index
  tir.for %i = %n to %ub kind "serial" annotations {pragma_auto_unroll_max_step = 2 : i64} {
    tir.store %x, %A[%i] : memref<8xf32>
  }
  tir.return
}
