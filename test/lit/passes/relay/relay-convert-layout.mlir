// RUN: xtvm-opt %s -p 'relay-convert-layout{lanes=16}' | filecheck %s
// RUN: xtvm-opt %s -p 'relay-convert-layout{lanes=4}' | filecheck %s --check-prefix=SSE

// With 4 f32 lanes (SSE) the pass leaves every conv on NCHW data.
// SSE-NOT: relay.layout_transform
// SSE-NOT: data_layout
// SSE-NOT: out_layout

// A stem, a max pool, a block with a folded batch norm and a residual add,
// two convs concatenated, an average pool: float-conv-blocked-result gives
// the 3-channel stem a blocked result; sink-unblocking-relu,
// sink-unblocking-max-pool2d (a 3-d pool, window 1 along c),
// float-conv-nchwc (the data already blocked: its transform cancels,
// layout-transform-cancel), sink-unblocking-multiply (per-channel [C, 1, 1]
// scale, reshaped and transformed), sink-unblocking-bias-add,
// sink-unblocking-add (a residual that is itself a transform back: read
// before it), sink-unblocking-concatenate, sink-unblocking-avg-pool2d: one
// transform back, before the strided slice (a near miss: no rule for it).
// CHECK-LABEL: func.func @resnet_block
// CHECK-NEXT: %a = relay.nn.contrib_conv2d_packed %x, %w0 {kernel_layout = "OIHW16o", strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>, out_layout = "NCHW16c"} : (tensor<1x3x16x16xf32>, tensor<2x3x7x7x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %ar = relay.nn.relu %a : tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %p = relay.nn.max_pool3d %ar {pool_size = array<i64: 3, 3, 1>, padding = array<i64: 1, 1, 0, 1, 1, 0>} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %c = relay.nn.contrib_conv2d_packed %p, %w1 {kernel_layout = "OIHW16o", data_layout = "NCHW16c"} : (tensor<1x2x8x8x16xf32>, tensor<2x32x1x1x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %cs = relay.reshape %s {newshape = array<i64: 1, 32, 1, 1>} : (tensor<32x1x1xf32>) -> tensor<1x32x1x1xf32>
// CHECK-NEXT: %cs_1 = relay.layout_transform %cs {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x32x1x1xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK-NEXT: %cs_2 = relay.multiply %c, %cs_1 : (tensor<1x2x8x8x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %cb = relay.reshape %b {newshape = array<i64: 1, 32, 1, 1>} : (tensor<32xf32>) -> tensor<1x32x1x1xf32>
// CHECK-NEXT: %cb_1 = relay.layout_transform %cb {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x32x1x1xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK-NEXT: %cb_2 = relay.add %cs_2, %cb_1 : (tensor<1x2x8x8x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %res = relay.add %cb_2, %p : (tensor<1x2x8x8x16xf32>, tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %rr = relay.nn.relu %res : tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %d = relay.nn.contrib_conv2d_packed %rr, %w2 {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x2x8x8x16xf32>, tensor<2x32x3x3x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %e = relay.nn.contrib_conv2d_packed %rr, %w1 {kernel_layout = "OIHW16o", data_layout = "NCHW16c"} : (tensor<1x2x8x8x16xf32>, tensor<2x32x1x1x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %cat = relay.concatenate %d, %e {axis = 1 : i64} : (tensor<1x2x8x8x16xf32>, tensor<1x2x8x8x16xf32>) -> tensor<1x4x8x8x16xf32>
// CHECK-NEXT: %q = relay.nn.avg_pool3d %cat {pool_size = array<i64: 2, 2, 1>, strides = array<i64: 2, 2, 1>, count_include_pad = true} : (tensor<1x4x8x8x16xf32>) -> tensor<1x4x4x4x16xf32>
// CHECK-NEXT: %q_1 = relay.layout_transform %q {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x4x4x4x16xf32>) -> tensor<1x64x4x4xf32>
// CHECK-NEXT: %y = relay.strided_slice %q_1 {begin = array<i64: 0>, end = array<i64: 32>, axes = array<i64: 1>} : (tensor<1x64x4x4xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NEXT: func.return %y : tensor<1x32x4x4xf32>
func.func @resnet_block(%x: tensor<1x3x16x16xf32>, %w0: tensor<2x3x7x7x16xf32>, %w1: tensor<2x32x1x1x16xf32>, %w2: tensor<2x32x3x3x16xf32>, %s: tensor<32x1x1xf32>, %b: tensor<32xf32>) -> tensor<1x32x4x4xf32> {
  %a = relay.nn.contrib_conv2d_packed %x, %w0 {kernel_layout = "OIHW16o", strides = array<i64: 2, 2>, padding = array<i64: 3, 3, 3, 3>} : (tensor<1x3x16x16xf32>, tensor<2x3x7x7x16xf32>) -> tensor<1x32x8x8xf32>
  %ar = relay.nn.relu %a : tensor<1x32x8x8xf32>
  %p = relay.nn.max_pool2d %ar {pool_size = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c = relay.nn.contrib_conv2d_packed %p, %w1 {kernel_layout = "OIHW16o"} : (tensor<1x32x8x8xf32>, tensor<2x32x1x1x16xf32>) -> tensor<1x32x8x8xf32>
  %cs = relay.multiply %c, %s : (tensor<1x32x8x8xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
  %cb = relay.nn.bias_add %cs, %b : (tensor<1x32x8x8xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %res = relay.add %cb, %p : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %rr = relay.nn.relu %res : tensor<1x32x8x8xf32>
  %d = relay.nn.contrib_conv2d_packed %rr, %w2 {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<2x32x3x3x16xf32>) -> tensor<1x32x8x8xf32>
  %e = relay.nn.contrib_conv2d_packed %rr, %w1 {kernel_layout = "OIHW16o"} : (tensor<1x32x8x8xf32>, tensor<2x32x1x1x16xf32>) -> tensor<1x32x8x8xf32>
  %cat = relay.concatenate %d, %e {axis = 1 : i64} : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x64x8x8xf32>
  %q = relay.nn.avg_pool2d %cat {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad = true} : (tensor<1x64x8x8xf32>) -> tensor<1x64x4x4xf32>
  %y = relay.strided_slice %q {begin = array<i64: 0>, end = array<i64: 32>, axes = array<i64: 1>} : (tensor<1x64x4x4xf32>) -> tensor<1x32x4x4xf32>
  func.return %y : tensor<1x32x4x4xf32>
}

// An epilogue of scalar operands: float-conv-nchwc picks 8-channel blocks for
// 8 input channels; sink-unblocking-subtract, sink-unblocking-divide,
// sink-unblocking-maximum, sink-unblocking-minimum (blocked on the right),
// sink-unblocking-clip, sink-unblocking-round, sink-unblocking-floor,
// sink-unblocking-cast. Near miss of sink-unblocking-subtract: the blocked
// value on the right.
// CHECK-LABEL: func.func @epilogue
// CHECK-NEXT: %c = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x8x4x4xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK-NEXT: %c_1 = relay.nn.contrib_conv2d_packed %c, %w {kernel_layout = "OIHW16o", data_layout = "NCHW8c"} : (tensor<1x1x4x4x8xf32>, tensor<1x8x1x1x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %s = relay.subtract %c_1, %k : (tensor<1x1x4x4x16xf32>, tensor<f32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %d = relay.divide %s, %k : (tensor<1x1x4x4x16xf32>, tensor<f32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %mx = relay.maximum %d, %k : (tensor<1x1x4x4x16xf32>, tensor<f32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %mn = relay.minimum %k, %mx : (tensor<f32>, tensor<1x1x4x4x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %cl = relay.clip %mn {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %rd = relay.round %cl : tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %fl = relay.floor %rd : tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %y = relay.cast %fl {dtype = "float16"} : (tensor<1x1x4x4x16xf32>) -> tensor<1x1x4x4x16xf16>
// CHECK-NEXT: %z = relay.cast %y {dtype = "float32"} : (tensor<1x1x4x4x16xf16>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %z_1 = relay.layout_transform %z {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x4x4x16xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT: %sub = relay.subtract %r, %z_1 : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT: func.return %sub : tensor<1x16x4x4xf32>
func.func @epilogue(%x: tensor<1x8x4x4xf32>, %w: tensor<1x8x1x1x16xf32>, %k: tensor<f32>, %r: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %c = relay.nn.contrib_conv2d_packed %x, %w {kernel_layout = "OIHW16o"} : (tensor<1x8x4x4xf32>, tensor<1x8x1x1x16xf32>) -> tensor<1x16x4x4xf32>
  %s = relay.subtract %c, %k : (tensor<1x16x4x4xf32>, tensor<f32>) -> tensor<1x16x4x4xf32>
  %d = relay.divide %s, %k : (tensor<1x16x4x4xf32>, tensor<f32>) -> tensor<1x16x4x4xf32>
  %mx = relay.maximum %d, %k : (tensor<1x16x4x4xf32>, tensor<f32>) -> tensor<1x16x4x4xf32>
  %mn = relay.minimum %k, %mx : (tensor<f32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %cl = relay.clip %mn {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : tensor<1x16x4x4xf32>
  %rd = relay.round %cl : tensor<1x16x4x4xf32>
  %fl = relay.floor %rd : tensor<1x16x4x4xf32>
  %y = relay.cast %fl {dtype = "float16"} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf16>
  %z = relay.cast %y {dtype = "float32"} : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf32>
  %sub = relay.subtract %r, %z : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  func.return %sub : tensor<1x16x4x4xf32>
}

// Near misses: float-conv-nchwc and float-conv-blocked-result leave a
// grouped conv (groups = 2); sink-unblocking-multiply an operand that is
// neither scalar, per-channel nor of the full shape ([1, 1, H, W]);
// sink-unblocking-concatenate a concat with an NCHW input;
// sink-unblocking-max-pool2d and sink-unblocking-avg-pool2d pools of NCHW
// data.
// CHECK-LABEL: func.func @near_misses
// CHECK-NEXT: %gc = relay.nn.contrib_conv2d_packed %g, %wg {kernel_layout = "OIHW8o", groups = 2 : i64} : (tensor<1x16x4x4xf32>, tensor<2x8x1x1x8xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT: %c = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x16x4x4xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %c_1 = relay.nn.contrib_conv2d_packed %c, %w {kernel_layout = "OIHW16o", data_layout = "NCHW16c"} : (tensor<1x1x4x4x16xf32>, tensor<1x16x1x1x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: %c_2 = relay.layout_transform %c_1 {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x4x4x16xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT: %mm = relay.multiply %c_2, %m : (tensor<1x16x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT: %cat = relay.concatenate %c_2, %g {axis = 1 : i64} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NEXT: %mp = relay.nn.max_pool2d %g {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
// CHECK-NEXT: %ap = relay.nn.avg_pool2d %g {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
// CHECK-NEXT: func.return %gc, %mm, %cat, %mp, %ap : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x32x4x4xf32>, tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>
func.func @near_misses(%x: tensor<1x16x4x4xf32>, %g: tensor<1x16x4x4xf32>, %w: tensor<1x16x1x1x16xf32>, %wg: tensor<2x8x1x1x8xf32>, %m: tensor<1x1x4x4xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x32x4x4xf32>, tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>) {
  %gc = relay.nn.contrib_conv2d_packed %g, %wg {kernel_layout = "OIHW8o", groups = 2 : i64} : (tensor<1x16x4x4xf32>, tensor<2x8x1x1x8xf32>) -> tensor<1x16x4x4xf32>
  %c = relay.nn.contrib_conv2d_packed %x, %w {kernel_layout = "OIHW16o"} : (tensor<1x16x4x4xf32>, tensor<1x16x1x1x16xf32>) -> tensor<1x16x4x4xf32>
  %mm = relay.multiply %c, %m : (tensor<1x16x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x16x4x4xf32>
  %cat = relay.concatenate %c, %g {axis = 1 : i64} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %mp = relay.nn.max_pool2d %g {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
  %ap = relay.nn.avg_pool2d %g {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x2x2xf32>
  func.return %gc, %mm, %cat, %mp, %ap : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x32x4x4xf32>, tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>
}

// A classifier's global pools of a blocked conv's relu:
// sink-unblocking-global-avg-pool2d and sink-unblocking-global-max-pool2d
// make them 3-d pools with an H x W x 1 window on the blocked data; only
// the pooled [1, 2, 1, 1, 16] is transformed back. Near miss: a global pool
// of NCHW data (no transform back before it) stays.
// CHECK-LABEL: func.func @global_pools
// CHECK:      %r = relay.nn.relu %c_1 : tensor<1x2x4x4x16xf32>
// CHECK-NEXT: %ga = relay.nn.avg_pool3d %r {pool_size = array<i64: 4, 4, 1>} : (tensor<1x2x4x4x16xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK-NEXT: %ga_1 = relay.layout_transform %ga {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x1x1x16xf32>) -> tensor<1x32x1x1xf32>
// CHECK-NEXT: %gm = relay.nn.max_pool3d %r {pool_size = array<i64: 4, 4, 1>} : (tensor<1x2x4x4x16xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK-NEXT: %gm_1 = relay.layout_transform %gm {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x1x1x16xf32>) -> tensor<1x32x1x1xf32>
// CHECK-NEXT: %gn = relay.nn.global_avg_pool2d %g : (tensor<1x16x4x4xf32>) -> tensor<1x16x1x1xf32>
// CHECK-NEXT: func.return %ga_1, %gm_1, %gn
func.func @global_pools(%x: tensor<1x16x4x4xf32>, %w: tensor<2x16x1x1x16xf32>, %g: tensor<1x16x4x4xf32>) -> (tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x16x1x1xf32>) {
  %c = relay.nn.contrib_conv2d_packed %x, %w {kernel_layout = "OIHW16o"} : (tensor<1x16x4x4xf32>, tensor<2x16x1x1x16xf32>) -> tensor<1x32x4x4xf32>
  %r = relay.nn.relu %c : tensor<1x32x4x4xf32>
  %ga = relay.nn.global_avg_pool2d %r : (tensor<1x32x4x4xf32>) -> tensor<1x32x1x1xf32>
  %gm = relay.nn.global_max_pool2d %r : (tensor<1x32x4x4xf32>) -> tensor<1x32x1x1xf32>
  %gn = relay.nn.global_avg_pool2d %g : (tensor<1x16x4x4xf32>) -> tensor<1x16x1x1xf32>
  func.return %ga, %gm, %gn : tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x16x1x1xf32>
}
