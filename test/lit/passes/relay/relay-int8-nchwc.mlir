// RUN: xtvm-opt %s -p relay-int8-nchwc | filecheck %s
// RUN: xtvm-opt %s -p relay-int8-nchwc,relay-fold-constant | filecheck %s --check-prefix=FOLD

// A conv, its requantize epilogue and the next (padded) conv, then a
// residual add: int8-conv-nchwc blocks both convs; sink-unblocking-bias-add,
// sink-unblocking-cast, sink-unblocking-multiply (per-channel scale on the
// left), sink-unblocking-round, sink-unblocking-add (scalar),
// sink-unblocking-clip move the transform back down to the second conv,
// where layout-transform-cancel removes the pair; after it
// sink-unblocking-subtract, sink-unblocking-divide, sink-unblocking-add (a
// full-shape residual on the left, transformed), sink-unblocking-maximum,
// sink-unblocking-minimum, sink-unblocking-floor, sink-unblocking-relu: one
// transform back, at the end.
// CHECK-LABEL: func.func @block
// CHECK-NEXT: %a = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x16x8x8xui8>) -> tensor<1x1x8x8x16xui8>
// CHECK-NEXT: %a_1 = relay.nn.contrib_conv2d_int8_packed %a, %w1 {kernel_layout = "OIHW16o4i", data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xui8>, tensor<2x4x1x1x16xi32>) -> tensor<1x2x8x8x16xi32>
// CHECK-NEXT: %ab = relay.reshape %b {newshape = array<i64: 1, 32, 1, 1>} : (tensor<32xi32>) -> tensor<1x32x1x1xi32>
// CHECK-NEXT: %ab_1 = relay.layout_transform %ab {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x32x1x1xi32>) -> tensor<1x2x1x1x16xi32>
// CHECK-NEXT: %ab_2 = relay.add %a_1, %ab_1 : (tensor<1x2x8x8x16xi32>, tensor<1x2x1x1x16xi32>) -> tensor<1x2x8x8x16xi32>
// CHECK-NEXT: %af = relay.cast %ab_2 {dtype = "float32"} : (tensor<1x2x8x8x16xi32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %am = relay.layout_transform %s {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x32x1x1xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK-NEXT: %am_1 = relay.multiply %am, %af : (tensor<1x2x1x1x16xf32>, tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %ar = relay.round %am_1 : tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %az = relay.add %ar, %zp : (tensor<1x2x8x8x16xf32>, tensor<f32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %ac = relay.clip %az {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %q = relay.cast %ac {dtype = "uint8"} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xui8>
// CHECK-NEXT: %c = relay.nn.contrib_conv2d_int8_packed %q, %w2 {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x2x8x8x16xui8>, tensor<1x8x3x3x16xi32>) -> tensor<1x1x8x8x16xi32>
// CHECK-NEXT: %cf = relay.cast %c {dtype = "float32"} : (tensor<1x1x8x8x16xi32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %cs = relay.subtract %cf, %zp : (tensor<1x1x8x8x16xf32>, tensor<f32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %cd = relay.divide %cs, %zp : (tensor<1x1x8x8x16xf32>, tensor<f32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %res = relay.layout_transform %r {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x16x8x8xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %res_1 = relay.add %res, %cd : (tensor<1x1x8x8x16xf32>, tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %mx = relay.maximum %res_1, %zp : (tensor<1x1x8x8x16xf32>, tensor<f32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %mn = relay.minimum %mx, %zp : (tensor<1x1x8x8x16xf32>, tensor<f32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %fl = relay.floor %mn : tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %rl = relay.nn.relu %fl : tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %o = relay.cast %rl {dtype = "uint8"} : (tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xui8>
// CHECK-NEXT: %o_1 = relay.layout_transform %o {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x8x8x16xui8>) -> tensor<1x16x8x8xui8>
// CHECK-NEXT: func.return %o_1 : tensor<1x16x8x8xui8>
func.func @block(%x: tensor<1x16x8x8xui8>, %w1: tensor<2x4x1x1x16xi32>, %w2: tensor<1x8x3x3x16xi32>, %b: tensor<32xi32>, %s: tensor<1x32x1x1xf32>, %zp: tensor<f32>, %r: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xui8> {
  %a = relay.nn.contrib_conv2d_int8_packed %x, %w1 {kernel_layout = "OIHW16o4i"} : (tensor<1x16x8x8xui8>, tensor<2x4x1x1x16xi32>) -> tensor<1x32x8x8xi32>
  %ab = relay.nn.bias_add %a, %b : (tensor<1x32x8x8xi32>, tensor<32xi32>) -> tensor<1x32x8x8xi32>
  %af = relay.cast %ab {dtype = "float32"} : (tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xf32>
  %am = relay.multiply %s, %af : (tensor<1x32x1x1xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %ar = relay.round %am : tensor<1x32x8x8xf32>
  %az = relay.add %ar, %zp : (tensor<1x32x8x8xf32>, tensor<f32>) -> tensor<1x32x8x8xf32>
  %ac = relay.clip %az {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : tensor<1x32x8x8xf32>
  %q = relay.cast %ac {dtype = "uint8"} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xui8>
  %c = relay.nn.contrib_conv2d_int8_packed %q, %w2 {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xui8>, tensor<1x8x3x3x16xi32>) -> tensor<1x16x8x8xi32>
  %cf = relay.cast %c {dtype = "float32"} : (tensor<1x16x8x8xi32>) -> tensor<1x16x8x8xf32>
  %cs = relay.subtract %cf, %zp : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %cd = relay.divide %cs, %zp : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %res = relay.add %r, %cd : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %mx = relay.maximum %res, %zp : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %mn = relay.minimum %mx, %zp : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %fl = relay.floor %mn : tensor<1x16x8x8xf32>
  %rl = relay.nn.relu %fl : tensor<1x16x8x8xf32>
  %o = relay.cast %rl {dtype = "uint8"} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xui8>
  func.return %o : tensor<1x16x8x8xui8>
}

// The constant per-channel operands are blocked once, at compile time.
// FOLD-LABEL: func.func @folded_scale
// FOLD: relay.const dense<{{.*}}> : tensor<1x2x1x1x16xf32>
// FOLD: relay.multiply %{{.*}}, %{{.*}} : (tensor<1x2x8x8x16xf32>, tensor<1x2x1x1x16xf32>)
func.func @folded_scale(%x: tensor<1x16x8x8xui8>, %w: tensor<2x4x1x1x16xi32>) -> tensor<1x32x8x8xf32> {
  %s = relay.const dense<0.5> : tensor<1x32x1x1xf32>
  %a = relay.nn.contrib_conv2d_int8_packed %x, %w {kernel_layout = "OIHW16o4i"} : (tensor<1x16x8x8xui8>, tensor<2x4x1x1x16xi32>) -> tensor<1x32x8x8xi32>
  %f = relay.cast %a {dtype = "float32"} : (tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xf32>
  %m = relay.multiply %f, %s : (tensor<1x32x8x8xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x8x8xf32>
  func.return %m : tensor<1x32x8x8xf32>
}

// Near misses of int8-conv-nchwc: 6 input channels (not whole words: that
// conv keeps NCHW data and int8-conv-blocked-result gives it the blocked
// result) and a conv already blocked stay; data that is a transform back
// from NCHW8c is read in NCHW8c (the transforms cancel). Near miss of
// int8-conv-blocked-result: a conv with its out_layout set stays.
// CHECK-LABEL: func.func @conv_near_misses
// CHECK-NEXT: %a = relay.nn.contrib_conv2d_int8_packed %x, %w {kernel_layout = "OIHW16o4i", out_layout = "NCHW16c"} : (tensor<1x6x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
// CHECK-NEXT: %a_1 = relay.layout_transform %a {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x8x8x16xi32>) -> tensor<1x16x8x8xi32>
// CHECK-NEXT: %b = relay.nn.contrib_conv2d_int8_packed %y, %v {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
// CHECK-NEXT: %c = relay.nn.contrib_conv2d_int8_packed %y, %v {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
// CHECK-NEXT: %c_1 = relay.layout_transform %c {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT: %d = relay.nn.contrib_conv2d_int8_packed %x, %w {kernel_layout = "OIHW16o4i", out_layout = "NCHW16c"} : (tensor<1x6x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
// CHECK-NEXT: func.return %a_1, %b, %c_1, %d
func.func @conv_near_misses(%x: tensor<1x6x8x8xui8>, %w: tensor<1x2x1x1x16xi32>, %y: tensor<1x1x8x8x8xui8>, %v: tensor<1x2x1x1x16xi32>) -> (tensor<1x16x8x8xi32>, tensor<1x1x8x8x16xi32>, tensor<1x16x8x8xi32>, tensor<1x1x8x8x16xi32>) {
  %a = relay.nn.contrib_conv2d_int8_packed %x, %w {kernel_layout = "OIHW16o4i"} : (tensor<1x6x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x16x8x8xi32>
  %b = relay.nn.contrib_conv2d_int8_packed %y, %v {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
  %u = relay.layout_transform %y {src_layout = "NCHW8c", dst_layout = "NCHW"} : (tensor<1x1x8x8x8xui8>) -> tensor<1x8x8x8xui8>
  %c = relay.nn.contrib_conv2d_int8_packed %u, %v {kernel_layout = "OIHW16o4i"} : (tensor<1x8x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x16x8x8xi32>
  %d = relay.nn.contrib_conv2d_int8_packed %x, %w {kernel_layout = "OIHW16o4i", out_layout = "NCHW16c"} : (tensor<1x6x8x8xui8>, tensor<1x2x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
  func.return %a, %b, %c, %d : tensor<1x16x8x8xi32>, tensor<1x1x8x8x16xi32>, tensor<1x16x8x8xi32>, tensor<1x1x8x8x16xi32>
}

// Near misses of the sinking rules and of layout-transform-cancel: an
// operand varying along H (not per channel), a bias add on axis 3, and a
// transform back followed by one to another block stay.
// CHECK-LABEL: func.func @sink_near_misses
// CHECK-NEXT: %u = relay.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT: %a = relay.add %u, %h : (tensor<1x16x8x8xi32>, tensor<1x1x8x1xi32>) -> tensor<1x16x8x8xi32>
// CHECK-NEXT: %b = relay.nn.bias_add %u, %k {axis = 3 : i64} : (tensor<1x16x8x8xi32>, tensor<8xi32>) -> tensor<1x16x8x8xi32>
// CHECK-NEXT: %c = relay.layout_transform %u {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x16x8x8xi32>) -> tensor<1x2x8x8x8xi32>
func.func @sink_near_misses(%x: tensor<1x1x8x8x16xi32>, %h: tensor<1x1x8x1xi32>, %k: tensor<8xi32>) -> (tensor<1x16x8x8xi32>, tensor<1x16x8x8xi32>, tensor<1x2x8x8x8xi32>) {
  %u = relay.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x8x8x16xi32>) -> tensor<1x16x8x8xi32>
  %a = relay.add %u, %h : (tensor<1x16x8x8xi32>, tensor<1x1x8x1xi32>) -> tensor<1x16x8x8xi32>
  %b = relay.nn.bias_add %u, %k {axis = 3 : i64} : (tensor<1x16x8x8xi32>, tensor<8xi32>) -> tensor<1x16x8x8xi32>
  %c = relay.layout_transform %u {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x16x8x8xi32>) -> tensor<1x2x8x8x8xi32>
  func.return %a, %b, %c : tensor<1x16x8x8xi32>, tensor<1x16x8x8xi32>, tensor<1x2x8x8x8xi32>
}

// sink-unblocking-concatenate: a channel concatenation of transforms back
// from NCHW16c is one of the blocks; near misses: one input from NCHW8c,
// and a concatenation along H.
// CHECK-LABEL: func.func @concat
// CHECK:      %j = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<1x1x4x4x16xui8>, tensor<1x2x4x4x16xui8>) -> tensor<1x3x4x4x16xui8>
// CHECK-NEXT: %j_1 = relay.layout_transform %j {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x3x4x4x16xui8>) -> tensor<1x48x4x4xui8>
// CHECK:      %m = relay.concatenate %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>) -> tensor<1x32x4x4xui8>
// CHECK:      %h = relay.concatenate %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>)
func.func @concat(%a: tensor<1x1x4x4x16xui8>, %b: tensor<1x2x4x4x16xui8>, %c: tensor<1x2x4x4x8xui8>) -> (tensor<1x48x4x4xui8>, tensor<1x32x4x4xui8>, tensor<1x16x8x4xui8>) {
  %ua = relay.layout_transform %a {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x4x4x16xui8>) -> tensor<1x16x4x4xui8>
  %ub = relay.layout_transform %b {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x4x4x16xui8>) -> tensor<1x32x4x4xui8>
  %uc = relay.layout_transform %c {src_layout = "NCHW8c", dst_layout = "NCHW"} : (tensor<1x2x4x4x8xui8>) -> tensor<1x16x4x4xui8>
  %j = relay.concatenate %ua, %ub {axis = 1 : i64} : (tensor<1x16x4x4xui8>, tensor<1x32x4x4xui8>) -> tensor<1x48x4x4xui8>
  %m = relay.concatenate %ua, %uc {axis = 1 : i64} : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>) -> tensor<1x32x4x4xui8>
  %h = relay.concatenate %ua, %ua {axis = 2 : i64} : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>) -> tensor<1x16x8x4xui8>
  func.return %j, %m, %h : tensor<1x48x4x4xui8>, tensor<1x32x4x4xui8>, tensor<1x16x8x4xui8>
}

// sink-unblocking-max-pool2d: the 2-d pool of the blocked data is a 3-d
// pool with a window of 1 along the block; near miss: a pool of NCHW data.
// CHECK-LABEL: func.func @max_pool
// CHECK:      %p = relay.nn.max_pool3d %a {pool_size = array<i64: 3, 3, 1>, strides = array<i64: 2, 2, 1>, padding = array<i64: 1, 1, 0, 1, 1, 0>} : (tensor<1x2x8x8x16xui8>) -> tensor<1x2x4x4x16xui8>
// CHECK-NEXT: %p_1 = relay.layout_transform %p {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x4x4x16xui8>) -> tensor<1x32x4x4xui8>
// CHECK-NEXT: %q = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x32x8x8xui8>) -> tensor<1x32x7x7xui8>
func.func @max_pool(%a: tensor<1x2x8x8x16xui8>, %x: tensor<1x32x8x8xui8>) -> (tensor<1x32x4x4xui8>, tensor<1x32x7x7xui8>) {
  %u = relay.layout_transform %a {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x8x8x16xui8>) -> tensor<1x32x8x8xui8>
  %p = relay.nn.max_pool2d %u {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xui8>) -> tensor<1x32x4x4xui8>
  %q = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x32x8x8xui8>) -> tensor<1x32x7x7xui8>
  func.return %p, %q : tensor<1x32x4x4xui8>, tensor<1x32x7x7xui8>
}

// sink-unblocking-avg-pool2d (the rules shared with relay-convert-layout:
// the dequantized average pool of a QDQ network): a 3-d pool with a window
// of 1 along the block, the divisor unchanged; near miss: a pool of NCHW data.
// CHECK-LABEL: func.func @avg_pool
// CHECK:      %p = relay.nn.avg_pool3d %a {pool_size = array<i64: 3, 3, 1>, strides = array<i64: 2, 2, 1>, padding = array<i64: 1, 1, 0, 1, 1, 0>, count_include_pad = true} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT: %p_1 = relay.layout_transform %p {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x4x4x16xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NEXT: %q = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x7x7xf32>
func.func @avg_pool(%a: tensor<1x2x8x8x16xf32>, %x: tensor<1x32x8x8xf32>) -> (tensor<1x32x4x4xf32>, tensor<1x32x7x7xf32>) {
  %u = relay.layout_transform %a {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x8x8x16xf32>) -> tensor<1x32x8x8xf32>
  %p = relay.nn.avg_pool2d %u {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32>
  %q = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x7x7xf32>
  func.return %p, %q : tensor<1x32x4x4xf32>, tensor<1x32x7x7xf32>
}

// int8-conv-absorb-pad: the zero-point pad in front of an unpadded NCHW
// conv becomes the conv's padding with pad_value (then
// int8-conv-blocked-result); near misses: a pad along C, a pad value that
// is not a constant.
// CHECK-LABEL: func.func @absorb_pad
// CHECK:      %c = relay.nn.contrib_conv2d_int8_packed %x, %w {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 2, 3, 2>, out_layout = "NCHW16c", pad_value = 7 : i64} : (tensor<1x3x8x8xui8>, tensor<1x1x3x3x16xi32>) -> tensor<1x1x10x10x16xi32>
// CHECK:      %e = relay.nn.pad %x, %z {pad_width = array<i64: 0, 0, 0, 1, 1, 1, 1, 1>}
// CHECK:      relay.nn.contrib_conv2d_int8_packed %{{.*}}, %v {kernel_layout = "OIHW16o4i", data_layout = "NCHW4c"}
// CHECK:      %g = relay.nn.pad %x, %k {pad_width = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>}
// CHECK:      relay.nn.contrib_conv2d_int8_packed %g, %w
func.func @absorb_pad(%x: tensor<1x3x8x8xui8>, %w: tensor<1x1x3x3x16xi32>, %v: tensor<1x1x3x3x16xi32>, %k: tensor<ui8>) -> (tensor<1x16x10x10xi32>, tensor<1x16x8x8xi32>, tensor<1x16x8x8xi32>) {
  %z = relay.const dense<7> : tensor<ui8>
  %p = relay.nn.pad %x, %z {pad_width = array<i64: 0, 0, 0, 0, 1, 3, 2, 2>} : (tensor<1x3x8x8xui8>, tensor<ui8>) -> tensor<1x3x12x12xui8>
  %c = relay.nn.contrib_conv2d_int8_packed %p, %w {kernel_layout = "OIHW16o4i"} : (tensor<1x3x12x12xui8>, tensor<1x1x3x3x16xi32>) -> tensor<1x16x10x10xi32>
  %e = relay.nn.pad %x, %z {pad_width = array<i64: 0, 0, 0, 1, 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<ui8>) -> tensor<1x4x10x10xui8>
  %f = relay.nn.contrib_conv2d_int8_packed %e, %v {kernel_layout = "OIHW16o4i"} : (tensor<1x4x10x10xui8>, tensor<1x1x3x3x16xi32>) -> tensor<1x16x8x8xi32>
  %g = relay.nn.pad %x, %k {pad_width = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<ui8>) -> tensor<1x3x10x10xui8>
  %h = relay.nn.contrib_conv2d_int8_packed %g, %w {kernel_layout = "OIHW16o4i"} : (tensor<1x3x10x10xui8>, tensor<1x1x3x3x16xi32>) -> tensor<1x16x8x8xi32>
  func.return %c, %f, %h : tensor<1x16x10x10xi32>, tensor<1x16x8x8xi32>, tensor<1x16x8x8xi32>
}

// sink-unblocking-plane-sum: the integer global pool's sum over H and W
// (keepdims) of a transform back sums the blocked plane and transforms
// back only the sums; near misses: the sum without keepdims, a sum over W
// alone.
// CHECK-LABEL: func.func @plane_sum
// CHECK:      %s = relay.sum %a {keepdims = true, axis = array<i64: 2, 3>} : (tensor<1x2x7x7x16xi32>) -> tensor<1x2x1x1x16xi32>
// CHECK-NEXT: %s_1 = relay.layout_transform %s {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x1x1x16xi32>) -> tensor<1x32x1x1xi32>
// CHECK-NEXT: %t = relay.sum %u {axis = array<i64: -1, 2>} : (tensor<1x32x7x7xi32>) -> tensor<1x32xi32>
// CHECK-NEXT: %v = relay.sum %u {keepdims = true, axis = array<i64: 3>} : (tensor<1x32x7x7xi32>) -> tensor<1x32x7x1xi32>
func.func @plane_sum(%a: tensor<1x2x7x7x16xi32>) -> (tensor<1x32x1x1xi32>, tensor<1x32xi32>, tensor<1x32x7x1xi32>) {
  %u = relay.layout_transform %a {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x7x7x16xi32>) -> tensor<1x32x7x7xi32>
  %s = relay.sum %u {keepdims = true, axis = array<i64: 2, 3>} : (tensor<1x32x7x7xi32>) -> tensor<1x32x1x1xi32>
  %t = relay.sum %u {axis = array<i64: -1, 2>} : (tensor<1x32x7x7xi32>) -> tensor<1x32xi32>
  %v = relay.sum %u {keepdims = true, axis = array<i64: 3>} : (tensor<1x32x7x7xi32>) -> tensor<1x32x7x1xi32>
  func.return %s, %t, %v : tensor<1x32x1x1xi32>, tensor<1x32xi32>, tensor<1x32x7x1xi32>
}
