// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// CHECK-LABEL: func.func @winograd
// CHECK-NEXT: %u = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x3x3xf32>) -> tensor<6x6x2x16x16xf32>
// CHECK-NEXT: %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %v = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 2 : i64, block = 8 : i64} : (tensor<32x16x3x3xf32>) -> tensor<4x4x4x16x8xf32>
// CHECK-NEXT: %z = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %v {tile_size = 2 : i64, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<4x4x4x16x8xf32>) -> tensor<1x4x6x6x8xf32>
// CHECK-NEXT: %f = relay.nn.contrib_conv2d_winograd_weight_transform %w4 {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x4x4xf32>) -> tensor<7x7x2x16x16xf32>
// CHECK-NEXT: %g = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %f {tile_size = 4 : i64, data_layout = "NCHW16c", workload = "conv2d f32 data=1x3x16x16 weight=32x3x7x7 strides=2x2 padding=0x0x0x0 dilation=1x1 groups=1"} : (tensor<1x1x8x8x16xf32>, tensor<7x7x2x16x16xf32>) -> tensor<1x2x5x5x16xf32>
func.func @winograd(%x: tensor<1x1x8x8x16xf32>, %w: tensor<32x16x3x3xf32>, %w4: tensor<32x16x4x4xf32>) -> (tensor<1x2x8x8x16xf32>, tensor<1x4x6x6x8xf32>, tensor<1x2x5x5x16xf32>) {
  %u = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x3x3xf32>) -> tensor<6x6x2x16x16xf32>
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
  %v = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 2 : i64, block = 8 : i64} : (tensor<32x16x3x3xf32>) -> tensor<4x4x4x16x8xf32>
  %z = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %v {tile_size = 2 : i64, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<4x4x4x16x8xf32>) -> tensor<1x4x6x6x8xf32>
  %f = relay.nn.contrib_conv2d_winograd_weight_transform %w4 {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x4x4xf32>) -> tensor<7x7x2x16x16xf32>
  %g = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %f {tile_size = 4 : i64, data_layout = "NCHW16c", workload = "conv2d f32 data=1x3x16x16 weight=32x3x7x7 strides=2x2 padding=0x0x0x0 dilation=1x1 groups=1"} : (tensor<1x1x8x8x16xf32>, tensor<7x7x2x16x16xf32>) -> tensor<1x2x5x5x16xf32>
  func.return %y, %z, %g : tensor<1x2x8x8x16xf32>, tensor<1x4x6x6x8xf32>, tensor<1x2x5x5x16xf32>
}
