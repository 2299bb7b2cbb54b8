// RUN: xtvm-opt %s -p tir-simplify | filecheck %s

// Dead-op erasure (EraseTriviallyDead, xDSL's is_trivially_dead decided by a
// walk that stops at the first effect that keeps the op): a loop nest that
// only loads is erased, one that stores (however deep) is kept, and an
// unused load goes.
// CHECK-LABEL: tir.prim_func @dead(%A: memref<64xf32>, %B: memref<64xf32>) {
// CHECK-NOT:     tir.load
// CHECK:         tir.for %k = %{{.*}} to %{{.*}} kind "serial" {
// CHECK-NEXT:      tir.for %l = %{{.*}} to %{{.*}} kind "serial" {
// CHECK-NEXT:        %{{.*}} = tir.load %A[%l] : memref<64xf32>
// CHECK-NEXT:        tir.store %{{.*}}, %B[%k] : memref<64xf32>
// CHECK:         tir.return
tir.prim_func @dead(%A: memref<64xf32>, %B: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%j] : memref<64xf32>
      tir.yield
    }
    tir.yield
  }
  tir.for %k = %c0 to %c8 kind "serial" {
    tir.for %l = %c0 to %c8 kind "serial" {
      %w = tir.load %A[%l] : memref<64xf32>
      tir.store %w, %B[%k] : memref<64xf32>
      tir.yield
    }
    tir.yield
  }
  %u = tir.load %B[%c0] : memref<64xf32>
  tir.return
}
