// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Convolutions over 1 and 3 spatial axes and the transposed convolutions
// round-trip; window attributes equal to their defaults are not printed.

// CHECK-LABEL: func.func @conv1d_3d
func.func @conv1d_3d(%s: tensor<1x4x16xf32>, %v: tensor<8x2x3xf32>, %x: tensor<1x2x5x6x7xf32>, %w: tensor<4x2x2x3x2xf32>) -> tensor<1x8x8xf32> {
  // padding is [left, right]; grouped.
  // CHECK: relay.nn.conv1d %{{.*}}, %{{.*}} {strides = array<i64: 2>, padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x16xf32>, tensor<8x2x3xf32>) -> tensor<1x8x8xf32>
  %a = relay.nn.conv1d %s, %v {strides = array<i64: 2>, padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x16xf32>, tensor<8x2x3xf32>) -> tensor<1x8x8xf32>
  // padding is [front, top, left, back, bottom, right].
  // CHECK-NEXT: relay.nn.conv3d %{{.*}}, %{{.*}} {padding = array<i64: 1, 0, 1, 0, 1, 1>, dilation = array<i64: 2, 1, 1>} : (tensor<1x2x5x6x7xf32>, tensor<4x2x2x3x2xf32>) -> tensor<1x4x4x5x8xf32>
  %b = relay.nn.conv3d %x, %w {padding = array<i64: 1, 0, 1, 0, 1, 1>, dilation = array<i64: 2, 1, 1>} : (tensor<1x2x5x6x7xf32>, tensor<4x2x2x3x2xf32>) -> tensor<1x4x4x5x8xf32>
  func.return %a : tensor<1x8x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %s: tensor<1x3x5xf32>, %v: tensor<3x2x3xf32>, %c: tensor<1x2x3x4x3xf32>, %k: tensor<2x3x3x2x2xf32>) -> tensor<1x2x10x10xf32> {
  // out = (in - 1) * stride - before - after + (k - 1) * dilation + output_padding + 1.
  // CHECK: relay.nn.conv2d_transpose %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  %a = relay.nn.conv2d_transpose %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  // Grouped: the weight is [C, O / groups, KH, KW].
  // CHECK-NEXT: relay.nn.conv2d_transpose %{{.*}}, %{{.*}} {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x7x7xf32>
  %b = relay.nn.conv2d_transpose %x, %w {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x7x7xf32>
  // CHECK-NEXT: relay.nn.conv1d_transpose %{{.*}}, %{{.*}} {dilation = array<i64: 2>} : (tensor<1x3x5xf32>, tensor<3x2x3xf32>) -> tensor<1x2x9xf32>
  %d = relay.nn.conv1d_transpose %s, %v {dilation = array<i64: 2>} : (tensor<1x3x5xf32>, tensor<3x2x3xf32>) -> tensor<1x2x9xf32>
  // CHECK-NEXT: relay.nn.conv3d_transpose %{{.*}}, %{{.*}} {strides = array<i64: 2, 1, 2>} : (tensor<1x2x3x4x3xf32>, tensor<2x3x3x2x2xf32>) -> tensor<1x3x7x5x6xf32>
  %e = relay.nn.conv3d_transpose %c, %k {strides = array<i64: 2, 1, 2>} : (tensor<1x2x3x4x3xf32>, tensor<2x3x3x2x2xf32>) -> tensor<1x3x7x5x6xf32>
  func.return %a : tensor<1x2x10x10xf32>
}
