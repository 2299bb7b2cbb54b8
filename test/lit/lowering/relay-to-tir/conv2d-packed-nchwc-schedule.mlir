// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s

// The x86 schedule of a packed conv2d on blocked data (NCHW8c, padded) with
// its fused epilogue (per-channel add + relu), the result blocked NCHW16c:
// the padding in the blocked layout, its own parallel nest, branch-free (a
// border pixel reads pixel (0, 0) and selects zeros) so that a pixel's
// channels are one vector; (n, fo, y) fused
// and parallel; per row a register accumulator of 2 blocks x 7 pixels x 16
// channels; the reduction outside the tile, on this small plane with the
// window innermost (rco, rci, ry, rx: the packed weight read in memory
// order), the tile's blocks and pixels unrolled and channels vectorized; the write-back applies
// the epilogue and stores whole 16-channel vectors (no transposition).
// CHECK-LABEL: tir.prim_func @fused_conv_nchwc(%p0: memref<1x2x7x7x8xf32>, %p1: memref<2x16x3x3x16xf32>, %p2: memref<1x2x1x1x16xf32>, %T_relu: memref<1x2x7x7x16xf32>)
// CHECK:         %T_pad = tir.allocate "global" : memref<1x2x9x9x8xf32>
// CHECK-NEXT:    tir.for %{{.*}}_fused = %c0 to %c162 kind "parallel" {
// CHECK:           tir.for %j = %c0 to %c8 kind "vectorized" {
// CHECK:             %[[IN:.*]] = tir.load %p0
// CHECK-NEXT:        %[[SEL:.*]] = arith.select %{{.*}}, %[[IN]], %cst : f32
// CHECK-NEXT:        tir.store %[[SEL]], %T_pad
// CHECK:         tir.for %{{.*}}_fused = %c0 to %c7 kind "parallel" {
// CHECK:           %T_conv2d_packed_acc = tir.allocate "local" : memref<2x7x16xf32>
// CHECK-NEXT:      tir.for %[[FC:.*]] = %c0 to %c2 kind "unrolled" {
// CHECK-NEXT:        tir.for %[[XI:.*]] = %c0 to %c7 kind "unrolled" {
// CHECK-NEXT:          tir.for %[[FI:.*]] = %c0 to %c16 kind "vectorized" {
// CHECK-NEXT:            tir.store %cst, %T_conv2d_packed_acc[%[[FC]], %[[XI]], %[[FI]]] : memref<2x7x16xf32>
// CHECK:           tir.for %rco = %c0 to %c2 kind "serial" {
// CHECK:             tir.for %rci = %c0 to %c8 kind "serial" {
// CHECK-NEXT:          tir.for %ry = %c0 to %c3 kind "serial" {
// CHECK-NEXT:            tir.for %rx = %c0 to %c3 kind "serial" {
// CHECK-NEXT:              tir.for %{{.*}} = %c0 to %c2 kind "unrolled" {
// CHECK:                     tir.for %{{.*}} = %c0 to %c7 kind "unrolled" {
// CHECK:                       tir.for %{{.*}} = %c0 to %c16 kind "vectorized" {
// CHECK:                         tir.load %T_pad
// CHECK:                         arith.mulf
// CHECK:                         arith.addf
// CHECK:                         tir.store %{{.*}}, %T_conv2d_packed_acc
// CHECK:           tir.for %{{.*}}_wb = %c0 to %c2 kind "unrolled" {
// CHECK:             tir.for %{{.*}}_wb = %c0 to %c7 kind "unrolled" {
// CHECK:               tir.for %[[WB:.*]] = %c0 to %c16 kind "vectorized" {
// CHECK:                 tir.load %T_conv2d_packed_acc
// CHECK:                 arith.addf
// CHECK:                 arith.maximumf
// CHECK:                 tir.store %{{.*}}, %T_relu[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WB]]]
builtin.module {
  func.func @main(%x: tensor<1x2x7x7x8xf32>, %w: tensor<2x16x3x3x16xf32>, %b: tensor<1x2x1x1x16xf32>) -> tensor<1x2x7x7x16xf32> {
    %r = func.call @fused_conv_nchwc(%x, %w, %b) : (tensor<1x2x7x7x8xf32>, tensor<2x16x3x3x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x7x7x16xf32>
    func.return %r : tensor<1x2x7x7x16xf32>
  }
  func.func private @fused_conv_nchwc(%p0: tensor<1x2x7x7x8xf32>, %p1: tensor<2x16x3x3x16xf32>, %p2: tensor<1x2x1x1x16xf32>) -> tensor<1x2x7x7x16xf32> attributes {relay.primitive} {
    %c = relay.nn.contrib_conv2d_packed %p0, %p1 {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW8c"} : (tensor<1x2x7x7x8xf32>, tensor<2x16x3x3x16xf32>) -> tensor<1x2x7x7x16xf32>
    %a = relay.add %c, %p2 : (tensor<1x2x7x7x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x7x7x16xf32>
    %r = relay.nn.relu %a : tensor<1x2x7x7x16xf32>
    func.return %r : tensor<1x2x7x7x16xf32>
  }
}
