// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s

// A blocked 3x3 conv on a wide plane (112-pixel rows: the two-row tile) with
// its epilogue: the padding is computed per row tile (`pad_rows`), not as a
// nest of its own. The row tiles are outermost and parallel; under each, the
// 4 padded input rows its 2 output rows read (all 114 columns, all channel
// blocks) are written first, then every block pair's register tiles of the
// rows read them while they are in cache.
// CHECK-LABEL: tir.prim_func @fused_conv_pad_rows(
// CHECK:         %T_pad = tir.allocate "global" : memref<1x1x6x114x16xf32>
// CHECK-NEXT:    tir.for %[[N:.*]] = %c0 to %c1 kind "serial" {
// CHECK-NEXT:      tir.for %[[ROWS:.*]] = %c0 to %c2 kind "parallel" {
// CHECK:             tir.for %{{.*}} = %c0 to %c4 kind "serial" {
// CHECK:               tir.for %{{.*}} = %c0 to %c114 kind "serial" {
// CHECK:                 tir.for %{{.*}} = %c0 to %c16 kind "vectorized" {
// CHECK:                   tir.store %{{.*}}, %T_pad
// CHECK:             tir.for %{{.*}} = %c0 to %c1 kind "serial" {
// CHECK:               tir.for %{{.*}} = %c0 to %c28 kind "serial" {
// CHECK-NEXT:            %T_conv2d_packed_acc = tir.allocate "local" : memref<2x2x4x16xf32>
// CHECK:                 tir.load %T_pad
// CHECK:                 tir.store %{{.*}}, %T_relu
// CHECK-NOT:     tir.store %{{.*}}, %T_pad
builtin.module {
  func.func @main(%x: tensor<1x1x4x112x16xf32>, %w: tensor<2x16x3x3x16xf32>, %b: tensor<1x2x1x1x16xf32>) -> tensor<1x2x4x112x16xf32> {
    %r = func.call @fused_conv_pad_rows(%x, %w, %b) : (tensor<1x1x4x112x16xf32>, tensor<2x16x3x3x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x4x112x16xf32>
    func.return %r : tensor<1x2x4x112x16xf32>
  }
  func.func private @fused_conv_pad_rows(%p0: tensor<1x1x4x112x16xf32>, %p1: tensor<2x16x3x3x16xf32>, %p2: tensor<1x2x1x1x16xf32>) -> tensor<1x2x4x112x16xf32> attributes {relay.primitive} {
    %c = relay.nn.contrib_conv2d_packed %p0, %p1 {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x1x4x112x16xf32>, tensor<2x16x3x3x16xf32>) -> tensor<1x2x4x112x16xf32>
    %a = relay.add %c, %p2 : (tensor<1x2x4x112x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x4x112x16xf32>
    %r = relay.nn.relu %a : tensor<1x2x4x112x16xf32>
    func.return %r : tensor<1x2x4x112x16xf32>
  }
}
