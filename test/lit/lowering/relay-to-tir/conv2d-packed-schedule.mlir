// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s

// The x86 schedule of a packed conv2d with its fused epilogue (bias + relu):
// (n, fo, y) fused and parallel; per row tile a register accumulator of
// 8 pixels x 16 channels for each of the two channel blocks (tile_oc = 2:
// 2 x 8 accumulators fit in half of AVX-512's registers, and each broadcast
// pixel feeds two FMAs); its init, the reduction loops with the tile
// innermost (blocks and pixels unrolled, channels vectorized), and the
// write-back that applies the epilogue, row-contiguous (channels unrolled,
// pixels vectorized). The weight index [f // 16, c, ky, kx, f % 16] is
// [fo, c, ky, kx, fi] after tir-simplify.
// CHECK-LABEL: tir.prim_func @fused_conv(%p0: memref<1x8x8x8xf32>, %p1: memref<2x8x1x1x16xf32>, %p2: memref<32x1x1xf32>, %T_relu: memref<1x32x8x8xf32>)
// CHECK:         tir.for %{{.*}}_fused = %c0 to %c8 kind "parallel" {
// CHECK:           %T_conv2d_packed_acc = tir.allocate "local" : memref<2x8x16xf32>
// CHECK-NEXT:      tir.for %[[FC:.*]] = %c0 to %c2 kind "unrolled" {
// CHECK-NEXT:        tir.for %[[XI:.*]] = %c0 to %c8 kind "unrolled" {
// CHECK-NEXT:          tir.for %[[FI:.*]] = %c0 to %c16 kind "vectorized" {
// CHECK-NEXT:            tir.store %cst, %T_conv2d_packed_acc[%[[FC]], %[[XI]], %[[FI]]] : memref<2x8x16xf32>
// CHECK:           tir.for %rc = %c0 to %c8 kind "serial" {
// CHECK:             tir.for %ry = %c0 to %c1 kind "serial" {
// CHECK-NEXT:          tir.for %rx = %c0 to %c1 kind "serial" {
// CHECK-NEXT:            tir.for %{{.*}} = %c0 to %c2 kind "unrolled" {
// CHECK:                   tir.for %{{.*}} = %c0 to %c8 kind "unrolled" {
// CHECK:                     tir.for %{{.*}} = %c0 to %c16 kind "vectorized" {
// CHECK:                       arith.mulf
// CHECK:                       arith.addf
// CHECK:                       tir.store %{{.*}}, %T_conv2d_packed_acc
// CHECK:           tir.for %{{.*}}_wb = %c0 to %c2 kind "unrolled" {
// CHECK:             tir.for %{{.*}}_wb = %c0 to %c16 kind "unrolled" {
// CHECK:               tir.for %{{.*}}_wb = %c0 to %c8 kind "vectorized" {
// CHECK:                 tir.load %T_conv2d_packed_acc
// CHECK:                 arith.addf
// CHECK:                 arith.maximumf
// CHECK:                 tir.store %{{.*}}, %T_relu

// On a stride-1 row of 16 pixels the vectors run along the row: the tile is
// 16 channels x 16 pixels, each weight broadcast, the input and the output rows
// contiguous.
// CHECK-LABEL: tir.prim_func @fused_conv_rows(
// CHECK:         tir.for %{{.*}}_fused = %c0 to %c32 kind "parallel" {
// CHECK:           %T_conv2d_packed_acc = tir.allocate "local" : memref<16x16xf32>
// CHECK:           tir.for %rc = %c0 to %c8 kind "serial" {
// CHECK:                 tir.for %{{.*}} = %c0 to %c16 kind "unrolled" {
// CHECK:                   tir.for %{{.*}} = %c0 to %c16 kind "vectorized" {
// CHECK:           tir.for %{{.*}}_wb = %c0 to %c16 kind "unrolled" {
// CHECK:             tir.for %{{.*}}_wb = %c0 to %c16 kind "vectorized" {
// CHECK:               tir.store %{{.*}}, %T_relu[
builtin.module {
  func.func @main(%x: tensor<1x8x8x8xf32>, %w: tensor<2x8x1x1x16xf32>, %b: tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32> {
    %r = func.call @fused_conv(%x, %w, %b) : (tensor<1x8x8x8xf32>, tensor<2x8x1x1x16xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
    func.return %r : tensor<1x32x8x8xf32>
  }
  func.func private @fused_conv(%p0: tensor<1x8x8x8xf32>, %p1: tensor<2x8x1x1x16xf32>, %p2: tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32> attributes {relay.primitive} {
    %c = relay.nn.contrib_conv2d_packed %p0, %p1 {kernel_layout = "OIHW16o"} : (tensor<1x8x8x8xf32>, tensor<2x8x1x1x16xf32>) -> tensor<1x32x8x8xf32>
    %a = relay.add %c, %p2 : (tensor<1x32x8x8xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
    %r = relay.nn.relu %a : tensor<1x32x8x8xf32>
    func.return %r : tensor<1x32x8x8xf32>
  }
  func.func @rows(%x: tensor<1x8x16x16xf32>, %w: tensor<2x8x1x1x16xf32>, %b: tensor<32x1x1xf32>) -> tensor<1x32x16x16xf32> {
    %r = func.call @fused_conv_rows(%x, %w, %b) : (tensor<1x8x16x16xf32>, tensor<2x8x1x1x16xf32>, tensor<32x1x1xf32>) -> tensor<1x32x16x16xf32>
    func.return %r : tensor<1x32x16x16xf32>
  }
  func.func private @fused_conv_rows(%p0: tensor<1x8x16x16xf32>, %p1: tensor<2x8x1x1x16xf32>, %p2: tensor<32x1x1xf32>) -> tensor<1x32x16x16xf32> attributes {relay.primitive} {
    %c = relay.nn.contrib_conv2d_packed %p0, %p1 {kernel_layout = "OIHW16o"} : (tensor<1x8x16x16xf32>, tensor<2x8x1x1x16xf32>) -> tensor<1x32x16x16xf32>
    %a = relay.add %c, %p2 : (tensor<1x32x16x16xf32>, tensor<32x1x1xf32>) -> tensor<1x32x16x16xf32>
    %r = relay.nn.relu %a : tensor<1x32x16x16xf32>
    func.return %r : tensor<1x32x16x16xf32>
  }
}
