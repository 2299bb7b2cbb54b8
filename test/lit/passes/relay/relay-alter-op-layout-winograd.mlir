// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16}' | filecheck %s
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16},relay-convert-layout{lanes=16},relay-fold-constant' | filecheck %s --check-prefix=FOLD
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=8}' | filecheck %s --check-prefix=AVX2

// conv2d-winograd: a 3x3 stride-1 f32 conv of a constant weight, 128
// channels in and out, on a 28x28 output: F(4,3) on blocked data, the weight
// transformed at compile time. Two in a row (with a relu between): once
// relay-convert-layout has run, no layout transform is left between them.
// CHECK-LABEL: func.func @winograd_f43
// CHECK: %[[U:.*]] = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 4 : i64, block = 16 : i64} : (tensor<128x128x3x3xf32>) -> tensor<6x6x8x128x16xf32>
// CHECK-NEXT: %[[B:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"}
// CHECK-NEXT: %[[Y:.*]] = relay.nn.contrib_conv2d_winograd_without_weight_transform %[[B]], %[[U]] {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x8x28x28x16xf32>, tensor<6x6x8x128x16xf32>) -> tensor<1x8x28x28x16xf32>
// CHECK-NEXT: relay.layout_transform %[[Y]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK: relay.nn.contrib_conv2d_winograd_without_weight_transform
// CHECK-NOT: relay.nn.contrib_conv2d_packed
// AVX2-LABEL: func.func @winograd_f43
// AVX2-NOT: winograd
// AVX2: relay.nn.contrib_conv2d_packed
// FOLD-LABEL: func.func @winograd_f43
// FOLD: relay.const {{.*}} : tensor<6x6x8x128x16xf32>
// FOLD: relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"}
// FOLD-NEXT: relay.nn.contrib_conv2d_winograd_without_weight_transform
// FOLD-NEXT: relay.nn.relu
// FOLD-NOT: relay.layout_transform
// FOLD: relay.nn.contrib_conv2d_winograd_without_weight_transform
// FOLD-NEXT: relay.layout_transform {{.*}} {src_layout = "NCHW16c", dst_layout = "NCHW"}
// FOLD-NOT: winograd_weight_transform
func.func @winograd_f43(%x: tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32> {
  %w = relay.const dense<0.5> : tensor<128x128x3x3xf32>
  %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32>
  %r = relay.nn.relu %y : tensor<1x128x28x28xf32>
  %z = relay.nn.conv2d %r, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32>
  func.return %z : tensor<1x128x28x28xf32>
}

// conv2d-winograd: 14x14 outputs take F(2,3); a weight computed from
// constants (a folded batch-norm scale) counts as constant.
// CHECK-LABEL: func.func @winograd_f23_scaled_weight
// CHECK: relay.nn.contrib_conv2d_winograd_weight_transform %ws {tile_size = 2 : i64, block = 16 : i64} : (tensor<256x256x3x3xf32>) -> tensor<4x4x16x256x16xf32>
// CHECK: relay.nn.contrib_conv2d_winograd_without_weight_transform {{.*}} {tile_size = 2 : i64, padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"}
func.func @winograd_f23_scaled_weight(%x: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w = relay.const dense<0.5> : tensor<256x256x3x3xf32>
  %s = relay.const dense<2.0> : tensor<256x1x1x1xf32>
  %ws = relay.multiply %w, %s : (tensor<256x256x3x3xf32>, tensor<256x1x1x1xf32>) -> tensor<256x256x3x3xf32>
  %y = relay.nn.conv2d %x, %ws {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x14x14xf32>
  func.return %y : tensor<1x256x14x14xf32>
}

// Near misses of conv2d-winograd, each left to conv2d-packed: stride 2, a
// 1x1 conv, a weight that is an argument (not constant), 24 channels (not
// whole 16-channel blocks), a 7x7 output, a weight above 2^20 elements
// (512 x 512 x 3 x 3).
// A weight above 2^18 elements (256 x 256 x 3 x 3) takes F(2,3) even on a
// 28x28 output: the transformed weight is 1.8x the conv's, not 4x.
// CHECK-LABEL: func.func @winograd_f23_large_weight
// CHECK: relay.nn.contrib_conv2d_winograd_without_weight_transform {{.*}} {tile_size = 2 : i64
func.func @winograd_f23_large_weight(%x: tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32> {
  %w = relay.const dense<0.5> : tensor<256x256x3x3xf32>
  %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x256x28x28xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x28x28xf32>
  func.return %y : tensor<1x256x28x28xf32>
}

// CHECK-LABEL: func.func @near_misses
// CHECK-NOT: winograd
// CHECK-COUNT-6: relay.nn.contrib_conv2d_packed
// CHECK-NOT: winograd
// CHECK: func.return
func.func @near_misses(%x: tensor<1x128x28x28xf32>, %wa: tensor<128x128x3x3xf32>, %x24: tensor<1x24x56x56xf32>, %x7: tensor<1x512x7x7xf32>, %x512: tensor<1x512x28x28xf32>) -> (tensor<1x128x14x14xf32>, tensor<1x128x28x28xf32>, tensor<1x128x28x28xf32>, tensor<1x24x56x56xf32>, tensor<1x512x7x7xf32>, tensor<1x512x28x28xf32>) {
  %w = relay.const dense<0.5> : tensor<128x128x3x3xf32>
  %s2 = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  %w1 = relay.const dense<0.5> : tensor<128x128x1x1xf32>
  %k1 = relay.nn.conv2d %x, %w1 : (tensor<1x128x28x28xf32>, tensor<128x128x1x1xf32>) -> tensor<1x128x28x28xf32>
  %arg = relay.nn.conv2d %x, %wa {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x28x28xf32>
  %w24 = relay.const dense<0.5> : tensor<24x24x3x3xf32>
  %c24 = relay.nn.conv2d %x24, %w24 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x24x56x56xf32>, tensor<24x24x3x3xf32>) -> tensor<1x24x56x56xf32>
  %w7 = relay.const dense<0.5> : tensor<512x512x3x3xf32>
  %p7 = relay.nn.conv2d %x7, %w7 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %big = relay.nn.conv2d %x512, %w7 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x512x28x28xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32>
  func.return %s2, %k1, %arg, %c24, %p7, %big : tensor<1x128x14x14xf32>, tensor<1x128x28x28xf32>, tensor<1x128x28x28xf32>, tensor<1x24x56x56xf32>, tensor<1x512x7x7xf32>, tensor<1x512x28x28xf32>
}
