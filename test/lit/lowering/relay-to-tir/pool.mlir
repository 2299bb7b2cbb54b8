// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// Pools (xtvm.topi.x86.pool): the data padded once into a buffer whose
// fill never wins (-inf for max, 0 for a sum), branch-free (the element at
// the clamped index, or the fill) and with its rows split into the padded
// borders and the interior; then window reductions without guards,
// register-tiled (rows x row, the row vectorized).

// max_pool2d: the maximum starts from -inf (a window of -inf is -inf).
// CHECK-LABEL: tir.prim_func @fused_nn_max_pool2d(%p0: memref<1x2x5x5xf32>, %T_max_pool2d: memref<1x2x3x3xf32>)
// CHECK:         %cst = arith.constant 0xff800000 : f32
// CHECK:         %T_pool_pad = tir.allocate "global" : memref<1x2x7x7xf32>
// CHECK:         tir.for %i0_i1_i2_fused = %c0 to %c14 kind "parallel" {
// CHECK:           tir.for %i3 = %c0 to %c1 kind "serial" {
// CHECK:             %[[L:.*]] = tir.load %p0[%i0, %i1, %{{.*}}, %{{.*}}] : memref<1x2x5x5xf32>
// CHECK-NEXT:        %[[P:.*]] = arith.select %{{.*}}, %[[L]], %cst : f32
// CHECK-NEXT:        tir.store %[[P]], %T_pool_pad[%i0, %i1, %i2, %i3] : memref<1x2x7x7xf32>
// CHECK:           tir.for %i3_1 = %c1 to %c6 kind "serial" {
// CHECK:           tir.for %i3_2 = %c6 to %c7 kind "serial" {
// CHECK:         %T_max_pool2d_acc = tir.allocate "local" : memref<3x3xf32>
// CHECK:           tir.store %cst, %T_max_pool2d_acc[%i2.1_init, %i3.1_init] : memref<3x3xf32>
// CHECK:         tir.for %ry = %c0 to %c3 kind "serial" {
// CHECK:           tir.for %rx = %c0 to %c3 kind "serial" {
// CHECK:             tir.for %i3.1 = %c0 to %c3 kind "vectorized" {
// CHECK-NOT:           tir.if
// CHECK:               %[[M:.*]] = tir.load %T_max_pool2d_acc[%i2.1, %i3.1] : memref<3x3xf32>
// CHECK:               %[[V:.*]] = tir.load %T_pool_pad[%i0_1, %i1_1, %{{.*}}, %{{.*}}] : memref<1x2x7x7xf32>
// CHECK-NEXT:          %[[N:.*]] = arith.maximumf %[[M]], %[[V]] : f32
// CHECK-NEXT:          tir.store %[[N]], %T_max_pool2d_acc[%i2.1, %i3.1] : memref<3x3xf32>

// avg_pool2d: zero padding, the window sum, and a division by the count of
// window elements in the data: a [3, 3] stage (2 at the borders, 3 inside,
// per axis) computed once, read at the output position.
// CHECK-LABEL: tir.prim_func @fused_nn_avg_pool2d(%p0: memref<1x2x5x5xf32>, %T_avg_pool2d: memref<1x2x3x3xf32>)
// CHECK:         %cst = arith.constant 0.000000e+00 : f32
// CHECK:         %T_pool_pad = tir.allocate "global" : memref<1x2x7x7xf32>
// CHECK:         %T_pool_count = tir.allocate "global" : memref<3x3xf32>
// CHECK:             %[[R:.*]] = arith.select %{{.*}}, %c2_i32, %c3_i32 : i32
// CHECK:             %[[FY:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK:             %[[FX:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT:        %[[F:.*]] = arith.mulf %[[FY]], %[[FX]] : f32
// CHECK-NEXT:        tir.store %[[F]], %T_pool_count[%i0_1, %i1_1] : memref<3x3xf32>
// CHECK:         %T_pool_sum_acc = tir.allocate "local" : memref<3x3xf32>
// CHECK:               %[[V2:.*]] = tir.load %T_pool_pad[%i0_2, %i1_2, %{{.*}}, %{{.*}}] : memref<1x2x7x7xf32>
// CHECK-NEXT:          %{{.*}} = arith.addf %{{.*}}, %[[V2]] : f32
// CHECK:           tir.for %i3.1_wb = %c0 to %c3 kind "vectorized" {
// CHECK:             %[[S:.*]] = tir.load %T_pool_sum_acc[%i2.1_wb, %i3.1_wb] : memref<3x3xf32>
// CHECK-NEXT:        %[[K:.*]] = tir.load %T_pool_count[%i2_2, %i3_4] : memref<3x3xf32>
// CHECK-NEXT:        %[[A:.*]] = arith.divf %[[S]], %[[K]] : f32
// CHECK-NEXT:        tir.store %[[A]], %T_avg_pool2d[%i0_2, %i1_2, %i2_2, %i3_4] : memref<1x2x3x3xf32>

// global_avg_pool2d: per channel the columns summed over the rows (a
// vector of the row, one update a row), then the columns' sum, divided by
// the spatial size.
// CHECK-LABEL: tir.prim_func @fused_nn_global_avg_pool2d(%p0: memref<1x2x5x5xf32>, %T_global_avg_pool2d: memref<1x2x1x1xf32>)
// CHECK:         %cst_1 = arith.constant 2.500000e+01 : f32
// CHECK:         %T_pool_columns = tir.allocate "global" : memref<1x2x5xf32>
// CHECK:         tir.for %b_ch_fused = %c0 to %c2 kind "parallel" {
// CHECK:           %T_pool_columns_acc = tir.allocate "local" : memref<5xf32>
// CHECK:           tir.for %ry = %c0 to %c5 kind "serial" {
// CHECK-NEXT:        tir.for %x = %c0 to %c5 kind "vectorized" {
// CHECK-NEXT:          %[[A0:.*]] = tir.load %T_pool_columns_acc[%x] : memref<5xf32>
// CHECK-NEXT:          %[[X0:.*]] = tir.load %p0[%b, %ch, %ry, %x] : memref<1x2x5x5xf32>
// CHECK-NEXT:          %{{.*}} = arith.addf %[[A0]], %[[X0]] : f32
// CHECK:         tir.for %rx = %c0 to %c5 kind "serial" {
// CHECK:           tir.load %T_pool_columns[%i0, %i1, %rx] : memref<1x2x5xf32>
// CHECK:         arith.divf %{{.*}}, %cst_1 : f32
// Blocked max pools (the vector along the channel block): overlapping windows
// take x > acc ? x : acc (x86: one vmaxps) plus isnan(x) ? NaN : 0, disjoint
// ones the select pair isnan(x) ? x : (x > acc ? x : acc); both propagate
// NaN, neither costs llvm.maximum's six instructions.
// CHECK-LABEL: tir.prim_func @fused_nn_max_pool3d(
// CHECK:         %[[QNAN:.*]] = arith.constant 0x7fc00000 : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:               %[[BM:.*]] = tir.load %T_max_pool3d_acc
// CHECK:               %[[BV:.*]] = tir.load %p0
// CHECK:               %[[BGT:.*]] = arith.cmpf ogt, %[[BV]], %[[BM]] : f32
// CHECK-NEXT:          %[[BMAX:.*]] = arith.select %[[BGT]], %[[BV]], %[[BM]] : f32
// CHECK-NEXT:          %[[BISNAN:.*]] = arith.cmpf une, %[[BV]], %[[BV]] : f32
// CHECK-NEXT:          %[[BNAN:.*]] = arith.select %[[BISNAN]], %[[QNAN]], %[[ZERO]] : f32
// CHECK-NEXT:          %{{.*}} = arith.addf %[[BMAX]], %[[BNAN]] : f32
// CHECK-LABEL: tir.prim_func @fused_nn_max_pool3d_1(
// CHECK:               %[[DM:.*]] = tir.load %T_max_pool3d_acc
// CHECK:               %[[DV:.*]] = tir.load %p0
// CHECK:               %[[DISNAN:.*]] = arith.cmpf une, %[[DV]], %[[DV]] : f32
// CHECK-NEXT:          %[[DGT:.*]] = arith.cmpf ogt, %[[DV]], %[[DM]] : f32
// CHECK-NEXT:          %[[DMAX:.*]] = arith.select %[[DGT]], %[[DV]], %[[DM]] : f32
// CHECK-NEXT:          %{{.*}} = arith.select %[[DISNAN]], %[[DV]], %[[DMAX]] : f32
func.func @main(%x: tensor<1x2x5x5xf32>, %y: tensor<1x1x5x5x16xf32>, %z: tensor<1x1x4x4x16xf32>) -> tensor<1x2x3x3xf32> {
  %0 = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %1 = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %2 = relay.nn.global_avg_pool2d %x : (tensor<1x2x5x5xf32>) -> tensor<1x2x1x1xf32>
  %b = relay.nn.max_pool3d %y {pool_size = array<i64: 3, 3, 1>, strides = array<i64: 2, 2, 1>} : (tensor<1x1x5x5x16xf32>) -> tensor<1x1x2x2x16xf32>
  %d = relay.nn.max_pool3d %z {pool_size = array<i64: 2, 2, 1>, strides = array<i64: 2, 2, 1>} : (tensor<1x1x4x4x16xf32>) -> tensor<1x1x2x2x16xf32>
  func.return %0 : tensor<1x2x3x3xf32>
}
