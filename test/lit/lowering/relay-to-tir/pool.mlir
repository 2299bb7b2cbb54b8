// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// Pools: window reductions whose padded elements are skipped by a guard.

// max_pool2d: the maximum starts from -inf (a window of -inf is -inf) and
// only in-bounds window elements update it.
// CHECK-LABEL: tir.prim_func @fused_nn_max_pool2d(%p0: memref<1x2x5x5xf32>, %T_max_pool2d: memref<1x2x3x3xf32>)
// CHECK:         %cst = arith.constant 0xff800000 : f32
// CHECK:         %T_max_pool2d_acc = tir.allocate "local" : memref<1xf32>
// CHECK-NEXT:    tir.store %cst, %T_max_pool2d_acc[%c0] : memref<1xf32>
// CHECK-NEXT:    tir.for %ry = %c0 to %c3 kind "serial" {
// CHECK-NEXT:      tir.for %rx = %c0 to %c3 kind "serial" {
// CHECK:             tir.if %{{.*}} {
// CHECK-NEXT:          %[[M:.*]] = tir.load %T_max_pool2d_acc[%c0] : memref<1xf32>
// CHECK-NEXT:          %[[V:.*]] = tir.load %p0[%i0, %i1, %{{.*}}, %{{.*}}] : memref<1x2x5x5xf32>
// CHECK-NEXT:          %[[N:.*]] = arith.maximumf %[[M]], %[[V]] : f32
// CHECK-NEXT:          tir.store %[[N]], %T_max_pool2d_acc[%c0] : memref<1xf32>

// avg_pool2d: the window sum and the count of in-bounds elements are two
// accumulators in the output's loop nest, then one division.
// CHECK-LABEL: tir.prim_func @fused_nn_avg_pool2d(%p0: memref<1x2x5x5xf32>, %T_avg_pool2d: memref<1x2x3x3xf32>)
// CHECK-NOT:     tir.allocate "global"
// CHECK:         %T_pool_sum_acc = tir.allocate "local" : memref<1xf32>
// CHECK:         %T_pool_count_acc = tir.allocate "local" : memref<1xf32>
// CHECK:             %[[C:.*]] = tir.load %T_pool_count_acc[%c0] : memref<1xf32>
// CHECK-NEXT:        %[[C1:.*]] = arith.addf %[[C]], %cst_1 : f32
// CHECK:         %[[S:.*]] = tir.load %T_pool_sum_acc[%c0] : memref<1xf32>
// CHECK-NEXT:    %[[K:.*]] = tir.load %T_pool_count_acc[%c0] : memref<1xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.divf %[[S]], %[[K]] : f32
// CHECK-NEXT:    tir.store %[[A]], %T_avg_pool2d[%i0, %i1, %i2, %i3] : memref<1x2x3x3xf32>

// global_avg_pool2d: a sum over both spatial axes, divided by their size.
// CHECK-LABEL: tir.prim_func @fused_nn_global_avg_pool2d(%p0: memref<1x2x5x5xf32>, %T_mean: memref<1x2x1x1xf32>)
// CHECK:         %cst_1 = arith.constant 2.500000e+01 : f32
// CHECK:         tir.for %k2 = %c0 to %c5 kind "serial" {
// CHECK-NEXT:      tir.for %k3 = %c0 to %c5 kind "serial" {
// CHECK:         arith.divf %{{.*}}, %cst_1 : f32
func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %1 = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %2 = relay.nn.global_avg_pool2d %x : (tensor<1x2x5x5xf32>) -> tensor<1x2x1x1xf32>
  func.return %0 : tensor<1x2x3x3xf32>
}
