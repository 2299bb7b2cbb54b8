// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16}' | filecheck %s
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=8}' | filecheck %s --check-prefix=AVX2
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16},relay-fold-constant' | filecheck %s --check-prefix=FOLD
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16 vnni=1}' | filecheck %s --check-prefix=VNNI
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16 vnni=1},relay-fold-constant' | filecheck %s --check-prefix=VNNI-FOLD
// RUN: xtvm-opt %s -p 'relay-alter-op-layout{lanes=16 vnni=0}' | filecheck %s --check-prefix=NO-VNNI

// conv2d-packed: conv2d reads its weight packed with one register of output
// channels innermost.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT: %w = relay.const
// CHECK-NEXT: %w_packed = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<32x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
// CHECK-NEXT: %y = relay.nn.contrib_conv2d_packed %x, %w_packed {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
// AVX2-LABEL: func.func @conv
// AVX2: relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW8o"} : (tensor<32x8x3x3xf32>) -> tensor<4x8x3x3x8xf32>
// The constant weight is packed at compile time.
// FOLD-LABEL: func.func @conv
// FOLD-NEXT: %{{.*}} = relay.const dense<{{.*}}> : tensor<2x8x3x3x16xf32>
// FOLD-NEXT: relay.nn.contrib_conv2d_packed
func.func @conv(%x: tensor<1x8x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = relay.const dense<0.5> : tensor<32x8x3x3xf32>
  %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
  func.return %y : tensor<1x32x8x8xf32>
}

// dense-pack: a channel count the register does not divide takes the largest
// power-of-two block that divides it (1000 = 125 * 8).
// CHECK-LABEL: func.func @dense
// CHECK-NEXT: %w_packed = relay.layout_transform %w {src_layout = "NK", dst_layout = "NK8n"} : (tensor<1000x64xf32>) -> tensor<125x64x8xf32>
// CHECK-NEXT: %y = relay.nn.contrib_dense_pack %x, %w_packed {weight_layout = "NK8n"} : (tensor<1x64xf32>, tensor<125x64x8xf32>) -> tensor<1x1000xf32>
func.func @dense(%x: tensor<1x64xf32>, %w: tensor<1000x64xf32>) -> tensor<1x1000xf32> {
  %y = relay.nn.dense %x, %w : (tensor<1x64xf32>, tensor<1000x64xf32>) -> tensor<1x1000xf32>
  func.return %y : tensor<1x1000xf32>
}

// Depthwise convolutions (one output channel per group), integer convs and
// dense layers of rank-3 data keep their generic kernels.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: relay.layout_transform
// CHECK: relay.nn.conv2d
// CHECK: relay.nn.conv2d
// CHECK: relay.nn.dense
func.func @kept(%x: tensor<1x8x8x8xf32>, %dw: tensor<8x1x3x3xf32>, %i: tensor<1x8x8x8xi8>, %iw: tensor<16x8x1x1xi8>, %d: tensor<2x3x8xf32>, %w: tensor<16x8xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x16x8x8xi32>, tensor<2x3x16xf32>) {
  %a = relay.nn.conv2d %x, %dw {groups = 8 : i64} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  %b = relay.nn.conv2d %i, %iw {out_dtype = "int32"} : (tensor<1x8x8x8xi8>, tensor<16x8x1x1xi8>) -> tensor<1x16x8x8xi32>
  %c = relay.nn.dense %d, %w : (tensor<2x3x8xf32>, tensor<16x8xf32>) -> tensor<2x3x16xf32>
  func.return %a, %b, %c : tensor<1x8x6x6xf32>, tensor<1x16x8x8xi32>, tensor<2x3x16xf32>
}

// conv2d-int8-packed: a u8 x s8 conv accumulating in i32 reads its weight as
// i32 words of four input channels (3 channels padded to 4), 16 output
// channels a row; the packing folds to one constant. Without VNNI it stays.
// VNNI-LABEL: func.func @int8
// VNNI: relay.nn.pad %w, %{{.*}} {pad_width = array<i64: 0, 0, 0, 1, 0, 0, 0, 0>} : (tensor<32x3x7x7xi8>, tensor<i8>) -> tensor<32x4x7x7xi8>
// VNNI-NEXT: relay.layout_transform %{{.*}} {src_layout = "OIHW", dst_layout = "OIHW16o4i"} : (tensor<32x4x7x7xi8>) -> tensor<2x1x7x7x16x4xi8>
// VNNI-NEXT: relay.cast
// VNNI-NEXT: relay.const dense<[255, 255, 255, -1]> : tensor<4xi32>
// VNNI-NEXT: relay.bitwise_and
// VNNI-NEXT: relay.const dense<[1, 256, 65536, 16777216]> : tensor<4xi32>
// VNNI-NEXT: relay.multiply
// VNNI-NEXT: %[[W:.*]] = relay.sum %{{.*}} {axis = array<i64: 5>} : (tensor<2x1x7x7x16x4xi32>) -> tensor<2x1x7x7x16xi32>
// VNNI-NEXT: relay.nn.contrib_conv2d_int8_packed %x, %[[W]] {kernel_layout = "OIHW16o4i", strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x16x16xui8>, tensor<2x1x7x7x16xi32>) -> tensor<1x32x8x8xi32>
// VNNI-FOLD-LABEL: func.func @int8
// VNNI-FOLD-NEXT: relay.const dense<{{.*}}> : tensor<2x1x7x7x16xi32>
// VNNI-FOLD-NEXT: relay.nn.contrib_conv2d_int8_packed
// NO-VNNI-LABEL: func.func @int8
// NO-VNNI-NOT: relay.layout_transform
// NO-VNNI: relay.nn.conv2d
func.func @int8(%x: tensor<1x3x16x16xui8>) -> tensor<1x32x8x8xi32> {
  %w = relay.const dense<3> : tensor<32x3x7x7xi8>
  %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>, out_dtype = "int32"} : (tensor<1x3x16x16xui8>, tensor<32x3x7x7xi8>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}
