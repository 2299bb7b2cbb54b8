// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// Reductions: one loop per reduced axis inside the output's loops; kept axes
// (keepdims) are size-1 output axes.

// CHECK-LABEL: tir.prim_func @fused_sum(%p0: memref<2x3x4xf32>, %T_sum: memref<2x1x4xf32>)
// CHECK:         tir.for %i0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c1 kind "serial" {
// CHECK-NEXT:        tir.for %i2 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:          %T_sum_acc = tir.allocate "local" : memref<1xf32>
// CHECK-NEXT:          tir.store %cst, %T_sum_acc[%c0] : memref<1xf32>
// CHECK-NEXT:          tir.for %k1 = %c0 to %c3 kind "serial" {
// CHECK-NEXT:            %[[A:.*]] = tir.load %T_sum_acc[%c0] : memref<1xf32>
// CHECK-NEXT:            %[[X:.*]] = tir.load %p0[%i0, %k1, %i2] : memref<2x3x4xf32>
// CHECK-NEXT:            %[[S:.*]] = arith.addf %[[A]], %[[X]] : f32
// CHECK-NEXT:            tir.store %[[S]], %T_sum_acc[%c0] : memref<1xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[V:.*]] = tir.load %T_sum_acc[%c0] : memref<1xf32>
// CHECK-NEXT:          tir.store %[[V]], %T_sum[%i0, %i1, %i2] : memref<2x1x4xf32>

// An integer mean truncates: the sum, then a signed division by the count.
// CHECK-LABEL: tir.prim_func @fused_mean(%p0: memref<2x3xi32>, %T_mean: memref<i32>)
// CHECK:         tir.for %k0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %k1 = %c0 to %c3 kind "serial" {
// CHECK:             arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:           }
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[T:.*]] = tir.load %T_sum_acc[%c0] : memref<1xi32>
// CHECK-NEXT:    %[[M:.*]] = arith.divsi %[[T]], %c6_i32 : i32
// CHECK-NEXT:    tir.store %[[M]], %T_mean[] : memref<i32>

// max over the last axis starts from the lowest int64.
// CHECK-LABEL: tir.prim_func @fused_max(%p0: memref<2x3xi64>, %T_max: memref<2xi64>)
// CHECK:         %c-9223372036854775808_i64 = arith.constant -9223372036854775808 : i64
// CHECK:         arith.maxsi
func.func @main(%x: tensor<2x3x4xf32>, %y: tensor<2x3xi32>, %z: tensor<2x3xi64>) -> tensor<2x1x4xf32> {
  %0 = relay.sum %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %1 = relay.mean %y : (tensor<2x3xi32>) -> tensor<i32>
  %2 = relay.max %z {axis = array<i64: -1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  func.return %0 : tensor<2x1x4xf32>
}
