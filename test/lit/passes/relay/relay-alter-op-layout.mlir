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

// conv2d-packed-padded: 1000 output channels (8-channel blocks, half a
// register, without it) are padded to 1024 = 64 * 16 (an even number of
// blocks, 24 padded channels: under 1/8) and the last 24 dropped; 104 (a
// near miss of the even rule: 128 would pad 24 of 128, over 1/8) to 112;
// a conv of 4 groups of 34 channels (2-channel blocks: the generic kernel
// without it) pads each group to 48 and keeps the first 34 of each. With 8
// lanes (AVX2) 8 divides 1000: plain conv2d-packed. 20 channels a group
// (padding 12 of 32, block 4) and 6 (under half a register) are not padded.
// CHECK-LABEL: func.func @conv_padded
// CHECK-NEXT: %[[G:.*]] = relay.reshape %w {newshape = array<i64: 1, 1000, 16, 1, 1>}
// CHECK-NEXT: %[[Z:.*]] = relay.const dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P:.*]] = relay.nn.pad %[[G]], %[[Z]] {pad_width = array<i64: 0, 0, 0, 24, 0, 0, 0, 0, 0, 0>} : (tensor<1x1000x16x1x1xf32>, tensor<f32>) -> tensor<1x1024x16x1x1xf32>
// CHECK-NEXT: %w_padded = relay.reshape %[[P]] {newshape = array<i64: 1024, 16, 1, 1>}
// CHECK-NEXT: %w_padded_packed = relay.layout_transform %w_padded {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<1024x16x1x1xf32>) -> tensor<64x16x1x1x16xf32>
// CHECK-NEXT: %[[C:.*]] = relay.nn.contrib_conv2d_packed %x, %w_padded_packed {kernel_layout = "OIHW16o"} : (tensor<1x16x13x13xf32>, tensor<64x16x1x1x16xf32>) -> tensor<1x1024x13x13xf32>
// CHECK-NEXT: %{{.*}} = relay.strided_slice %[[C]] {begin = array<i64: 0>, end = array<i64: 1000>, axes = array<i64: 1>} : (tensor<1x1024x13x13xf32>) -> tensor<1x1000x13x13xf32>
// CHECK:      relay.nn.pad %{{.*}}, %{{.*}} {pad_width = array<i64: 0, 0, 0, 8, 0, 0, 0, 0, 0, 0>} : (tensor<1x104x16x1x1xf32>, tensor<f32>) -> tensor<1x112x16x1x1xf32>
// CHECK:      relay.nn.pad %{{.*}}, %{{.*}} {pad_width = array<i64: 0, 0, 0, 14, 0, 0, 0, 0, 0, 0>} : (tensor<4x34x34x1x1xf32>, tensor<f32>) -> tensor<4x48x34x1x1xf32>
// CHECK:      %[[C2:.*]] = relay.nn.contrib_conv2d_packed %g, %{{.*}} {kernel_layout = "OIHW16o", groups = 4 : i64} : (tensor<1x136x7x7xf32>, tensor<12x34x1x1x16xf32>) -> tensor<1x192x7x7xf32>
// CHECK-NEXT: %[[S:.*]] = relay.reshape %[[C2]] {newshape = array<i64: 1, 4, 48, 7, 7>}
// CHECK-NEXT: %[[K:.*]] = relay.strided_slice %[[S]] {begin = array<i64: 0>, end = array<i64: 34>, axes = array<i64: 2>} : (tensor<1x4x48x7x7xf32>) -> tensor<1x4x34x7x7xf32>
// CHECK-NEXT: relay.reshape %[[K]] {newshape = array<i64: 1, 136, 7, 7>}
// CHECK:      relay.layout_transform %w3 {src_layout = "OIHW", dst_layout = "OIHW4o"}
// CHECK-NOT:  relay.strided_slice
// CHECK:      relay.nn.conv2d %g, %w4 {groups = 17 : i64}
// AVX2-LABEL: func.func @conv_padded
// AVX2-NEXT: %w_packed = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW8o"} : (tensor<1000x16x1x1xf32>) -> tensor<125x16x1x1x8xf32>
func.func @conv_padded(%x: tensor<1x16x13x13xf32>, %w: tensor<1000x16x1x1xf32>, %g: tensor<1x136x7x7xf32>, %w2: tensor<136x34x1x1xf32>, %w3: tensor<80x34x1x1xf32>, %w4: tensor<102x8x1x1xf32>, %w5: tensor<104x16x1x1xf32>) -> (tensor<1x1000x13x13xf32>, tensor<1x136x7x7xf32>, tensor<1x80x7x7xf32>, tensor<1x102x7x7xf32>, tensor<1x104x13x13xf32>) {
  %y = relay.nn.conv2d %x, %w : (tensor<1x16x13x13xf32>, tensor<1000x16x1x1xf32>) -> tensor<1x1000x13x13xf32>
  %y5 = relay.nn.conv2d %x, %w5 : (tensor<1x16x13x13xf32>, tensor<104x16x1x1xf32>) -> tensor<1x104x13x13xf32>
  %y2 = relay.nn.conv2d %g, %w2 {groups = 4 : i64} : (tensor<1x136x7x7xf32>, tensor<136x34x1x1xf32>) -> tensor<1x136x7x7xf32>
  %y3 = relay.nn.conv2d %g, %w3 {groups = 4 : i64} : (tensor<1x136x7x7xf32>, tensor<80x34x1x1xf32>) -> tensor<1x80x7x7xf32>
  %y4 = relay.nn.conv2d %g, %w4 {groups = 17 : i64} : (tensor<1x136x7x7xf32>, tensor<102x8x1x1xf32>) -> tensor<1x102x7x7xf32>
  func.return %y, %y2, %y3, %y4, %y5 : tensor<1x1000x13x13xf32>, tensor<1x136x7x7xf32>, tensor<1x80x7x7xf32>, tensor<1x102x7x7xf32>, tensor<1x104x13x13xf32>
}

// The slice conv2d-packed-padded leaves (1024 -> 1000 classes) moves down
// through the classifier's bias add (channel-slice-sink-bias-add: the bias
// zero-padded to 1024), relu (channel-slice-sink-relu) and global average
// pool (channel-slice-sink-global-avg-pool2d), and through a global max pool
// (channel-slice-sink-global-max-pool2d): the slice cuts the pooled result.
// Near misses: a slice that drops half the channels, and one that drops the
// first 8 (not the padding), stay before their relus.
// CHECK-LABEL: func.func @slice_sink
// CHECK:      %[[C:.*]] = relay.nn.contrib_conv2d_packed %x, %w_padded_packed {kernel_layout = "OIHW16o"} : (tensor<1x16x13x13xf32>, tensor<64x16x1x1x16xf32>) -> tensor<1x1024x13x13xf32>
// CHECK-NEXT: %[[Z:.*]] = relay.const dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[B:.*]] = relay.nn.pad %b, %[[Z]] {pad_width = array<i64: 0, 24>} : (tensor<1000xf32>, tensor<f32>) -> tensor<1024xf32>
// CHECK-NEXT: %[[A:.*]] = relay.nn.bias_add %[[C]], %[[B]] : (tensor<1x1024x13x13xf32>, tensor<1024xf32>) -> tensor<1x1024x13x13xf32>
// CHECK-NEXT: %[[R:.*]] = relay.nn.relu %[[A]] : tensor<1x1024x13x13xf32>
// CHECK-NEXT: %[[G:.*]] = relay.nn.global_avg_pool2d %[[R]] : (tensor<1x1024x13x13xf32>) -> tensor<1x1024x1x1xf32>
// CHECK-NEXT: %[[GS:.*]] = relay.strided_slice %[[G]] {begin = array<i64: 0>, end = array<i64: 1000>, axes = array<i64: 1>} : (tensor<1x1024x1x1xf32>) -> tensor<1x1000x1x1xf32>
// CHECK-NEXT: %[[M:.*]] = relay.nn.global_max_pool2d %[[C]] : (tensor<1x1024x13x13xf32>) -> tensor<1x1024x1x1xf32>
// CHECK-NEXT: %[[MS:.*]] = relay.strided_slice %[[M]] {begin = array<i64: 0>, end = array<i64: 1000>, axes = array<i64: 1>} : (tensor<1x1024x1x1xf32>) -> tensor<1x1000x1x1xf32>
// CHECK-NEXT: %half = relay.strided_slice %t
// CHECK-NEXT: %hr = relay.nn.relu %half : tensor<1x500x13x13xf32>
// CHECK-NEXT: %tail = relay.strided_slice %t
// CHECK-NEXT: %tr = relay.nn.relu %tail : tensor<1x1000x13x13xf32>
// CHECK-NEXT: func.return %[[GS]], %[[MS]], %hr, %tr
func.func @slice_sink(%x: tensor<1x16x13x13xf32>, %w: tensor<1000x16x1x1xf32>, %b: tensor<1000xf32>, %t: tensor<1x1008x13x13xf32>) -> (tensor<1x1000x1x1xf32>, tensor<1x1000x1x1xf32>, tensor<1x500x13x13xf32>, tensor<1x1000x13x13xf32>) {
  %y = relay.nn.conv2d %x, %w : (tensor<1x16x13x13xf32>, tensor<1000x16x1x1xf32>) -> tensor<1x1000x13x13xf32>
  %a = relay.nn.bias_add %y, %b : (tensor<1x1000x13x13xf32>, tensor<1000xf32>) -> tensor<1x1000x13x13xf32>
  %r = relay.nn.relu %a : tensor<1x1000x13x13xf32>
  %g = relay.nn.global_avg_pool2d %r : (tensor<1x1000x13x13xf32>) -> tensor<1x1000x1x1xf32>
  %m = relay.nn.global_max_pool2d %y : (tensor<1x1000x13x13xf32>) -> tensor<1x1000x1x1xf32>
  %half = relay.strided_slice %t {begin = array<i64: 0>, end = array<i64: 500>, axes = array<i64: 1>} : (tensor<1x1008x13x13xf32>) -> tensor<1x500x13x13xf32>
  %hr = relay.nn.relu %half : tensor<1x500x13x13xf32>
  %tail = relay.strided_slice %t {begin = array<i64: 8>, end = array<i64: 1008>, axes = array<i64: 1>} : (tensor<1x1008x13x13xf32>) -> tensor<1x1000x13x13xf32>
  %tr = relay.nn.relu %tail : tensor<1x1000x13x13xf32>
  func.return %g, %m, %hr, %tr : tensor<1x1000x1x1xf32>, tensor<1x1000x1x1xf32>, tensor<1x500x13x13xf32>, tensor<1x1000x13x13xf32>
}

// conv2d-grouped-packed: a grouped 1x1 conv (4 groups of 34 channels) on
// 28-pixel rows takes the grouped kernel's block, 17 channels (a divisor of
// 34: no padded channels, no slice). Near misses: the same conv with stride
// 2 (14-pixel output rows, but not stride 1) and with 3x3 taps are padded
// (conv2d-packed-padded); 4 groups of 32 channels (the register divides
// them) take plain 16-channel blocks. With 8 lanes (16 registers, too
// few for its tiles) the conv keeps the padded packed kernel (34 -> 40).
// CHECK-LABEL: func.func @conv_grouped
// CHECK-NEXT: %w_packed = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW17o"} : (tensor<136x34x1x1xf32>) -> tensor<8x34x1x1x17xf32>
// CHECK-NEXT: %[[Y:.*]] = relay.nn.contrib_conv2d_packed %x, %w_packed {kernel_layout = "OIHW17o", groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<8x34x1x1x17xf32>) -> tensor<1x136x28x28xf32>
// CHECK-NOT:  relay.strided_slice %[[Y]]
// CHECK:      relay.nn.contrib_conv2d_packed %x, %{{.*}} {kernel_layout = "OIHW16o", strides = array<i64: 2, 2>, groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<12x34x1x1x16xf32>) -> tensor<1x192x14x14xf32>
// CHECK:      relay.nn.contrib_conv2d_packed %x, %{{.*}} {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<12x34x3x3x16xf32>) -> tensor<1x192x28x28xf32>
// CHECK:      relay.nn.contrib_conv2d_packed %x, %{{.*}} {kernel_layout = "OIHW16o", groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<8x34x1x1x16xf32>) -> tensor<1x128x28x28xf32>
// AVX2-LABEL: func.func @conv_grouped
// AVX2:      relay.nn.pad %{{.*}}, %{{.*}} {pad_width = array<i64: 0, 0, 0, 6, 0, 0, 0, 0, 0, 0>} : (tensor<4x34x34x1x1xf32>, tensor<f32>) -> tensor<4x40x34x1x1xf32>
func.func @conv_grouped(%x: tensor<1x136x28x28xf32>, %w: tensor<136x34x1x1xf32>, %w3: tensor<136x34x3x3xf32>, %w32: tensor<128x34x1x1xf32>) -> (tensor<1x136x28x28xf32>, tensor<1x136x14x14xf32>, tensor<1x136x28x28xf32>, tensor<1x128x28x28xf32>) {
  %y = relay.nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<136x34x1x1xf32>) -> tensor<1x136x28x28xf32>
  %s = relay.nn.conv2d %x, %w {groups = 4 : i64, strides = array<i64: 2, 2>} : (tensor<1x136x28x28xf32>, tensor<136x34x1x1xf32>) -> tensor<1x136x14x14xf32>
  %t = relay.nn.conv2d %x, %w3 {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x136x28x28xf32>, tensor<136x34x3x3xf32>) -> tensor<1x136x28x28xf32>
  %u = relay.nn.conv2d %x, %w32 {groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<128x34x1x1xf32>) -> tensor<1x128x28x28xf32>
  func.return %y, %s, %t, %u : tensor<1x136x28x28xf32>, tensor<1x136x14x14xf32>, tensor<1x136x28x28xf32>, tensor<1x128x28x28xf32>
}

// conv2d-grouped-shuffled: ShuffleNet's channel shuffle (reshape to
// [N, 4, 34, H, W], transpose axes 1 and 2, reshape back) after the grouped
// conv, its per-channel shift and relu: the conv stores its rows in the
// shuffled order (out_shuffle = 4), the shift is shuffled the same way and
// the shuffle is gone. Near misses: a shuffle of 2 groups (not the conv's
// 4), and a shuffle of a conv result that is also used elsewhere.
// CHECK-LABEL: func.func @conv_shuffled
// CHECK:      %[[C:.*]] = relay.nn.contrib_conv2d_packed %x, %w_packed {kernel_layout = "OIHW17o", groups = 4 : i64, out_shuffle = 4 : i64}
// CHECK-NEXT: %[[S1:.*]] = relay.reshape %b {newshape = array<i64: 4, 34, 1, 1>}
// CHECK-NEXT: %[[S2:.*]] = relay.transpose %[[S1]] {axes = array<i64: 1, 0, 2, 3>}
// CHECK-NEXT: %[[S3:.*]] = relay.reshape %[[S2]] {newshape = array<i64: 136, 1, 1>}
// CHECK-NEXT: %[[A:.*]] = relay.add %[[C]], %[[S3]]
// CHECK-NEXT: %[[R:.*]] = relay.nn.relu %[[A]]
// CHECK-NOT:  relay.transpose %[[R]]
// CHECK:      %[[C2:.*]] = relay.nn.contrib_conv2d_packed %x, %{{.*}} {kernel_layout = "OIHW17o", groups = 4 : i64} :
// CHECK:      relay.transpose
// CHECK:      %[[C3:.*]] = relay.nn.contrib_conv2d_packed %x, %{{.*}} {kernel_layout = "OIHW17o", groups = 4 : i64} :
// CHECK:      relay.transpose
func.func @conv_shuffled(%x: tensor<1x136x28x28xf32>, %w: tensor<136x34x1x1xf32>, %b: tensor<136x1x1xf32>) -> (tensor<1x136x28x28xf32>, tensor<1x136x28x28xf32>, tensor<1x136x28x28xf32>, tensor<1x136x28x28xf32>) {
  %c = relay.nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<136x34x1x1xf32>) -> tensor<1x136x28x28xf32>
  %a = relay.add %c, %b : (tensor<1x136x28x28xf32>, tensor<136x1x1xf32>) -> tensor<1x136x28x28xf32>
  %r = relay.nn.relu %a : tensor<1x136x28x28xf32>
  %s1 = relay.reshape %r {newshape = array<i64: 1, 4, 34, 28, 28>} : (tensor<1x136x28x28xf32>) -> tensor<1x4x34x28x28xf32>
  %s2 = relay.transpose %s1 {axes = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x4x34x28x28xf32>) -> tensor<1x34x4x28x28xf32>
  %s3 = relay.reshape %s2 {newshape = array<i64: 1, 136, 28, 28>} : (tensor<1x34x4x28x28xf32>) -> tensor<1x136x28x28xf32>
  %c2 = relay.nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<136x34x1x1xf32>) -> tensor<1x136x28x28xf32>
  %t1 = relay.reshape %c2 {newshape = array<i64: 1, 2, 68, 28, 28>} : (tensor<1x136x28x28xf32>) -> tensor<1x2x68x28x28xf32>
  %t2 = relay.transpose %t1 {axes = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x68x28x28xf32>) -> tensor<1x68x2x28x28xf32>
  %t3 = relay.reshape %t2 {newshape = array<i64: 1, 136, 28, 28>} : (tensor<1x68x2x28x28xf32>) -> tensor<1x136x28x28xf32>
  %c3 = relay.nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x136x28x28xf32>, tensor<136x34x1x1xf32>) -> tensor<1x136x28x28xf32>
  %u1 = relay.reshape %c3 {newshape = array<i64: 1, 4, 34, 28, 28>} : (tensor<1x136x28x28xf32>) -> tensor<1x4x34x28x28xf32>
  %u2 = relay.transpose %u1 {axes = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x4x34x28x28xf32>) -> tensor<1x34x4x28x28xf32>
  %u3 = relay.reshape %u2 {newshape = array<i64: 1, 136, 28, 28>} : (tensor<1x34x4x28x28xf32>) -> tensor<1x136x28x28xf32>
  func.return %s3, %t3, %u3, %c3 : tensor<1x136x28x28xf32>, tensor<1x136x28x28xf32>, tensor<1x136x28x28xf32>, tensor<1x136x28x28xf32>
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

// Near misses of conv2d-int8-packed and conv2d-int8-split-groups: a grouped u8
// conv of 2 input channels a group (under one 4-byte word) and one whose 12
// output channels no block of 16 or 8 divides keep the generic kernel.
// VNNI-LABEL: func.func @int8_near_miss
// VNNI-NOT: relay.nn.contrib_conv2d_int8_packed
// VNNI: relay.nn.conv2d %x, %g {groups = 4 : i64, out_dtype = "int32"}
// VNNI: relay.nn.conv2d
func.func @int8_near_miss(%x: tensor<1x8x6x6xui8>, %g: tensor<32x2x3x3xi8>, %w: tensor<12x8x1x1xi8>) -> (tensor<1x32x4x4xi32>, tensor<1x12x6x6xi32>) {
  %a = relay.nn.conv2d %x, %g {groups = 4 : i64, out_dtype = "int32"} : (tensor<1x8x6x6xui8>, tensor<32x2x3x3xi8>) -> tensor<1x32x4x4xi32>
  %b = relay.nn.conv2d %x, %w {out_dtype = "int32"} : (tensor<1x8x6x6xui8>, tensor<12x8x1x1xi8>) -> tensor<1x12x6x6xi32>
  func.return %a, %b : tensor<1x32x4x4xi32>, tensor<1x12x6x6xi32>
}

// conv2d-int8-split-groups: a grouped u8 conv (2 groups of 4 input and 8
// output channels) is one packed conv per group, concatenated.
// VNNI-LABEL: func.func @int8_grouped
// VNNI: %[[X0:.*]] = relay.strided_slice %x {begin = array<i64: 0>, end = array<i64: 4>, axes = array<i64: 1>} : (tensor<1x8x6x6xui8>) -> tensor<1x4x6x6xui8>
// VNNI: relay.strided_slice %g {begin = array<i64: 0>, end = array<i64: 8>, axes = array<i64: 0>} : (tensor<16x4x3x3xi8>) -> tensor<8x4x3x3xi8>
// VNNI: %[[C0:.*]] = relay.nn.contrib_conv2d_int8_packed %[[X0]], %{{.*}} {kernel_layout = "OIHW8o4i"} : (tensor<1x4x6x6xui8>, tensor<1x1x3x3x8xi32>) -> tensor<1x8x4x4xi32>
// VNNI: %[[X1:.*]] = relay.strided_slice %x {begin = array<i64: 4>, end = array<i64: 8>, axes = array<i64: 1>}
// VNNI: %[[C1:.*]] = relay.nn.contrib_conv2d_int8_packed %[[X1]]
// VNNI: relay.concatenate %[[C0]], %[[C1]] {axis = 1 : i64} : (tensor<1x8x4x4xi32>, tensor<1x8x4x4xi32>) -> tensor<1x16x4x4xi32>
func.func @int8_grouped(%x: tensor<1x8x6x6xui8>, %g: tensor<16x4x3x3xi8>) -> tensor<1x16x4x4xi32> {
  %a = relay.nn.conv2d %x, %g {groups = 2 : i64, out_dtype = "int32"} : (tensor<1x8x6x6xui8>, tensor<16x4x3x3xi8>) -> tensor<1x16x4x4xi32>
  func.return %a : tensor<1x16x4x4xi32>
}

// conv2d-s8-shifted: i8 data moves into u8 (x + 128), padded with 128 (its
// zero), then conv2d-int8-packed; 128 * sum(w) per output channel is
// subtracted (a constant once folded).
// VNNI-LABEL: func.func @s8_conv
// VNNI: relay.cast %x {dtype = "int32"} : (tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi32>
// VNNI-NEXT: relay.const dense<128> : tensor<i32>
// VNNI-NEXT: relay.add
// VNNI-NEXT: %[[U:.*]] = relay.cast %{{.*}} {dtype = "uint8"} : (tensor<1x8x6x6xi32>) -> tensor<1x8x6x6xui8>
// VNNI-NEXT: %[[F:.*]] = relay.const dense<128> : tensor<ui8>
// VNNI-NEXT: %[[P:.*]] = relay.nn.pad %[[U]], %[[F]] {pad_width = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>}
// VNNI: relay.nn.contrib_conv2d_int8_packed %[[P]], %{{.*}} {kernel_layout = "OIHW16o4i"} : (tensor<1x8x8x8xui8>, tensor<1x2x3x3x16xi32>) -> tensor<1x16x6x6xi32>
// VNNI: relay.sum %{{.*}} {axis = array<i64: 1, 2, 3>} : (tensor<16x8x3x3xi32>) -> tensor<16xi32>
// VNNI: relay.reshape %{{.*}} {newshape = array<i64: 1, 16, 1, 1>}
// VNNI-NEXT: relay.subtract %{{.*}}, %{{.*}} : (tensor<1x16x6x6xi32>, tensor<1x16x1x1xi32>) -> tensor<1x16x6x6xi32>
// VNNI-FOLD-LABEL: func.func @s8_conv
// VNNI-FOLD: relay.nn.contrib_conv2d_int8_packed
// VNNI-FOLD-NEXT: relay.const dense<{{.*}}> : tensor<1x16x1x1xi32>
// VNNI-FOLD-NEXT: relay.subtract
// NO-VNNI-LABEL: func.func @s8_conv
// NO-VNNI-NEXT: relay.const
// NO-VNNI-NEXT: relay.nn.conv2d %x
func.func @s8_conv(%x: tensor<1x8x6x6xi8>) -> tensor<1x16x6x6xi32> {
  %w = relay.const dense<-3> : tensor<16x8x3x3xi8>
  %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, out_dtype = "int32"} : (tensor<1x8x6x6xi8>, tensor<16x8x3x3xi8>) -> tensor<1x16x6x6xi32>
  func.return %y : tensor<1x16x6x6xi32>
}

// dense-int8-packed: a u8 x s8 dense accumulating in i32 reads its weight as
// i32 words of four reduction elements (10 padded to 12), 8 outputs a row (8
// divides 24, 16 does not); 3-d data is flattened to rows and shaped back.
// dense-s8-shifted: i8 data moves into u8, minus 128 * sum_k(w) per output.
// VNNI-LABEL: func.func @int8_dense
// VNNI: relay.nn.pad %w, %{{.*}} {pad_width = array<i64: 0, 0, 0, 2>} : (tensor<24x10xi8>, tensor<i8>) -> tensor<24x12xi8>
// VNNI-NEXT: relay.layout_transform %{{.*}} {src_layout = "NK", dst_layout = "NK8n4k"} : (tensor<24x12xi8>) -> tensor<3x3x8x4xi8>
// VNNI: %[[W:.*]] = relay.sum %{{.*}} {axis = array<i64: 3>} : (tensor<3x3x8x4xi32>) -> tensor<3x3x8xi32>
// VNNI-NEXT: relay.nn.contrib_dense_int8_packed %x, %[[W]] {weight_layout = "NK8n4k"} : (tensor<4x10xui8>, tensor<3x3x8xi32>) -> tensor<4x24xi32>
// VNNI: relay.reshape %d {newshape = array<i64: -1, 10>} : (tensor<2x3x10xui8>) -> tensor<6x10xui8>
// VNNI-NEXT: relay.nn.contrib_dense_int8_packed
// VNNI-NEXT: relay.reshape %{{.*}} {newshape = array<i64: 2, 3, 24>} : (tensor<6x24xi32>) -> tensor<2x3x24xi32>
// VNNI: relay.cast %s {dtype = "int32"}
// VNNI: relay.nn.contrib_dense_int8_packed
// VNNI: relay.sum %{{.*}} {axis = array<i64: 1>} : (tensor<24x10xi32>) -> tensor<24xi32>
// VNNI: relay.subtract %{{.*}}, %{{.*}} : (tensor<4x24xi32>, tensor<24xi32>) -> tensor<4x24xi32>
// NO-VNNI-LABEL: func.func @int8_dense
// NO-VNNI-NOT: contrib_dense
// NO-VNNI: func.return
func.func @int8_dense(%x: tensor<4x10xui8>, %d: tensor<2x3x10xui8>, %s: tensor<4x10xi8>, %w: tensor<24x10xi8>) -> (tensor<4x24xi32>, tensor<2x3x24xi32>, tensor<4x24xi32>) {
  %a = relay.nn.dense %x, %w {out_dtype = "int32"} : (tensor<4x10xui8>, tensor<24x10xi8>) -> tensor<4x24xi32>
  %b = relay.nn.dense %d, %w {out_dtype = "int32"} : (tensor<2x3x10xui8>, tensor<24x10xi8>) -> tensor<2x3x24xi32>
  %c = relay.nn.dense %s, %w {out_dtype = "int32"} : (tensor<4x10xi8>, tensor<24x10xi8>) -> tensor<4x24xi32>
  func.return %a, %b, %c : tensor<4x24xi32>, tensor<2x3x24xi32>, tensor<4x24xi32>
}

// Near miss of dense-int8-packed: an i32 dense of i32 operands (no out_dtype)
// and one of 12 outputs (no block of 16 or 8) keep the generic kernel.
// VNNI-LABEL: func.func @int8_dense_near_miss
// VNNI-NOT: contrib_dense
// VNNI: func.return
func.func @int8_dense_near_miss(%x: tensor<4x10xi32>, %w: tensor<24x10xi32>, %u: tensor<4x10xui8>, %v: tensor<12x10xi8>) -> (tensor<4x24xi32>, tensor<4x12xi32>) {
  %a = relay.nn.dense %x, %w : (tensor<4x10xi32>, tensor<24x10xi32>) -> tensor<4x24xi32>
  %b = relay.nn.dense %u, %v {out_dtype = "int32"} : (tensor<4x10xui8>, tensor<12x10xi8>) -> tensor<4x12xi32>
  func.return %a, %b : tensor<4x24xi32>, tensor<4x12xi32>
}
