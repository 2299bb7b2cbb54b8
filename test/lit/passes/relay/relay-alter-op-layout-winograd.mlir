// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16}' | filecheck %s
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16},relay-convert-layout{lanes=16},relay-fold-constant' | filecheck %s --check-prefix=FOLD
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=8}' | filecheck %s --check-prefix=AVX2
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16 conv2d-tile=4}' | filecheck %s --check-prefix=S2D
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16 conv2d-tile=2}' | filecheck %s --check-prefix=F24
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16 conv2d-tile=4},relay-convert-layout{lanes=16},relay-fold-constant' | filecheck %s --check-prefix=S2D-FOLD

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

// conv2d-winograd-stride2: a 7x7 stride-2 f32 conv of a constant weight on
// 3 channels (ResNet-50's stem) with F(4,4) forced (conv2d-tile=4, as under
// a tuning record choosing it): the data zero-padded to an even size the
// 4x4 conv reads (38x38: 2 x (16 + 3)) and split by row and column parity
// (space_to_depth CRD: 12 channels, one NCHW12c block), the weight likewise
// (padded to 8x8, then [64, 12, 4, 4]) and transformed (7x7 tiles); the
// Winograd conv keeps the 7x7 conv's workload. Folded, the weight is one
// constant and the trailing transform moves below the relu.
// S2D-LABEL: func.func @stem
// S2D: %[[Z:.*]] = relay.const dense<0.000000e+00> : tensor<f32>
// S2D-NEXT: %[[P:.*]] = relay.nn.pad %x, %[[Z]] {pad_width = array<i64: 0, 0, 0, 0, 3, 3, 3, 3>} : (tensor<1x3x32x32xf32>, tensor<f32>) -> tensor<1x3x38x38xf32>
// S2D-NEXT: %[[D:.*]] = relay.nn.space_to_depth %[[P]] {block_size = 2 : i64, mode = "CRD"} : (tensor<1x3x38x38xf32>) -> tensor<1x12x19x19xf32>
// S2D-NEXT: %[[PW:.*]] = relay.nn.pad %w, %[[Z]] {pad_width = array<i64: 0, 0, 0, 0, 0, 1, 0, 1>} : (tensor<64x3x7x7xf32>, tensor<f32>) -> tensor<64x3x8x8xf32>
// S2D-NEXT: %w_s2d = relay.nn.space_to_depth %[[PW]] {block_size = 2 : i64, mode = "CRD"} : (tensor<64x3x8x8xf32>) -> tensor<64x12x4x4xf32>
// S2D-NEXT: %w_s2d_winograd = relay.nn.contrib_conv2d_winograd_weight_transform %w_s2d {tile_size = 4 : i64, block = 16 : i64} : (tensor<64x12x4x4xf32>) -> tensor<7x7x4x12x16xf32>
// S2D-NEXT: %[[B:.*]] = relay.layout_transform %[[D]] {src_layout = "NCHW", dst_layout = "NCHW12c"} : (tensor<1x12x19x19xf32>) -> tensor<1x1x19x19x12xf32>
// S2D-NEXT: %[[Y:.*]] = relay.nn.contrib_conv2d_winograd_without_weight_transform %[[B]], %w_s2d_winograd {tile_size = 4 : i64, data_layout = "NCHW12c", workload = "conv2d f32 data=1x3x32x32 weight=64x3x7x7 strides=2x2 padding=3x3x3x3 dilation=1x1 groups=1"} : (tensor<1x1x19x19x12xf32>, tensor<7x7x4x12x16xf32>) -> tensor<1x4x16x16x16xf32>
// S2D-NEXT: relay.layout_transform %[[Y]] {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x4x16x16x16xf32>) -> tensor<1x64x16x16xf32>
// S2D-FOLD-LABEL: func.func @stem
// S2D-FOLD: relay.nn.space_to_depth
// S2D-FOLD-NOT: relay.nn.space_to_depth
// S2D-FOLD: relay.const dense_resource<w_s2d_winograd> : tensor<7x7x4x12x16xf32>
// S2D-FOLD: relay.nn.contrib_conv2d_winograd_without_weight_transform
// S2D-FOLD-NEXT: relay.nn.relu {{.*}} : tensor<1x4x16x16x16xf32>
// S2D-FOLD-NEXT: relay.layout_transform {{.*}} {src_layout = "NCHW16c", dst_layout = "NCHW"}
// F24-LABEL: func.func @stem
// F24: relay.nn.contrib_conv2d_winograd_weight_transform %w_s2d {tile_size = 2 : i64, block = 16 : i64} : (tensor<64x12x4x4xf32>) -> tensor<5x5x4x12x16xf32>
// Without a dispatch context choosing it, the direct conv (the hand-written choice).
// CHECK-LABEL: func.func @stem
// CHECK-NOT: space_to_depth
// CHECK: relay.nn.contrib_conv2d_packed
func.func @stem(%x: tensor<1x3x32x32xf32>) -> tensor<1x64x16x16xf32> {
  %w = relay.const dense<0.5> : tensor<64x3x7x7xf32>
  %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x32x32xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x16x16xf32>
  %r = relay.nn.relu %y : tensor<1x64x16x16xf32>
  func.return %r : tensor<1x64x16x16xf32>
}

// conv2d-winograd-stride2 on a 5x5 stride-2 conv of 4 channels and odd
// size (padding 2, 2, 1, 1): F(4,3) on 16 channels; the bottom and right
// padding grow to the 2 x (OH + 2) = 18 rows the 3x3 conv reads.
// S2D-LABEL: func.func @five_by_five
// S2D: relay.nn.pad %x, {{.*}} {pad_width = array<i64: 0, 0, 0, 0, 2, 1, 1, 2>} : (tensor<1x4x15x15xf32>, tensor<f32>) -> tensor<1x4x18x18xf32>
// S2D: relay.nn.contrib_conv2d_winograd_weight_transform %{{.*}} {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x3x3xf32>) -> tensor<6x6x2x16x16xf32>
// S2D: relay.nn.contrib_conv2d_winograd_without_weight_transform {{.*}} data_layout = "NCHW16c", workload = "conv2d f32 data=1x4x15x15 weight=32x4x5x5 strides=2x2 padding=2x1x1x2 dilation=1x1 groups=1"} : (tensor<1x1x9x9x16xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x2x7x7x16xf32>
func.func @five_by_five(%x: tensor<1x4x15x15xf32>) -> tensor<1x32x7x7xf32> {
  %w = relay.const dense<0.5> : tensor<32x4x5x5xf32>
  %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 2, 1, 1, 2>} : (tensor<1x4x15x15xf32>, tensor<32x4x5x5xf32>) -> tensor<1x32x7x7xf32>
  func.return %y : tensor<1x32x7x7xf32>
}

// Near misses of conv2d-winograd-stride2, each left to the direct conv even
// with F(4, r) forced: a 3x3 stride-2 conv, 8 input channels (32 after the
// split: two blocks), a 7x7 stride-1 conv, a weight that is an argument, 24
// output channels (not whole 16-channel blocks), a 9x9 kernel (5x5 after
// the split: no F(m, 5)).
// S2D-LABEL: func.func @stride2_near_misses
// S2D-NOT: winograd
// S2D: func.return
func.func @stride2_near_misses(%x: tensor<1x3x32x32xf32>, %x8: tensor<1x8x32x32xf32>, %wa: tensor<64x3x7x7xf32>) -> (tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>, tensor<1x64x32x32xf32>, tensor<1x64x16x16xf32>, tensor<1x24x16x16xf32>, tensor<1x64x16x16xf32>) {
  %w3 = relay.const dense<0.5> : tensor<64x3x3x3xf32>
  %k3 = relay.nn.conv2d %x, %w3 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<64x3x3x3xf32>) -> tensor<1x64x16x16xf32>
  %w8 = relay.const dense<0.5> : tensor<64x8x7x7xf32>
  %c8 = relay.nn.conv2d %x8, %w8 {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x8x32x32xf32>, tensor<64x8x7x7xf32>) -> tensor<1x64x16x16xf32>
  %w7 = relay.const dense<0.5> : tensor<64x3x7x7xf32>
  %s1 = relay.nn.conv2d %x, %w7 {padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x32x32xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x32x32xf32>
  %arg = relay.nn.conv2d %x, %wa {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x32x32xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x16x16xf32>
  %w24 = relay.const dense<0.5> : tensor<24x3x7x7xf32>
  %o24 = relay.nn.conv2d %x, %w24 {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x32x32xf32>, tensor<24x3x7x7xf32>) -> tensor<1x24x16x16xf32>
  %w9 = relay.const dense<0.5> : tensor<64x3x9x9xf32>
  %k9 = relay.nn.conv2d %x, %w9 {strides = array<i64: 2, 2>, padding = array<i64: 4, 4, 4, 4>} : (tensor<1x3x32x32xf32>, tensor<64x3x9x9xf32>) -> tensor<1x64x16x16xf32>
  func.return %k3, %c8, %s1, %arg, %o24, %k9 : tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>, tensor<1x64x32x32xf32>, tensor<1x64x16x16xf32>, tensor<1x24x16x16xf32>, tensor<1x64x16x16xf32>
}
