// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid relay.nn op; the verifier names the op and the problem.

func.func @conv_rank(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' expects 4-d data (NCHW) and a 4-d weight (OIHW), got 1x4x9 and 8x4x3x3}}
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

func.func @conv_channels(%x: tensor<1x4x9x9xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' weight 8x3x3x3 has 3 input channels per group, but data 1x4x9x9 with groups=1 needs 4}}
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9x9xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

func.func @conv_groups_in(%x: tensor<1x4x9x9xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' groups=3 does not divide the 4 input channels}}
  %y = relay.nn.conv2d %x, %w {groups = 3 : i64} : (tensor<1x4x9x9xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x7x7xf32>
  func.return
}

// -----

func.func @conv_groups_out(%x: tensor<1x4x9x9xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' groups=4 does not divide the 6 output channels}}
  %y = relay.nn.conv2d %x, %w {groups = 4 : i64} : (tensor<1x4x9x9xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x7x7xf32>
  func.return
}

// -----

func.func @conv_window(%x: tensor<1x4x2x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' window height 3 (with dilation) is larger than the padded input height 2}}
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x2x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x1x7xf32>
  func.return
}

// -----

func.func @conv_strides(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' strides must be 2 integers >= 1, got [0, 1]}}
  %y = relay.nn.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

func.func @conv_padding(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' padding must be 4 integers >= 0, got [1, 1]}}
  %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x9x9xf32>
  func.return
}

// -----

func.func @conv_channels_attr(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' channels=16 does not match the weight's 8 output channels}}
  %y = relay.nn.conv2d %x, %w {channels = 16 : i64} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

func.func @conv_kernel_size(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' kernel_size [5, 5] does not match the weight's 3x3 window}}
  %y = relay.nn.conv2d %x, %w {kernel_size = array<i64: 5, 5>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

func.func @conv_out_dtype(%x: tensor<1x4x9x9xi8>, %w: tensor<8x4x3x3xi8>) {
  // expected-error @+1 {{'relay.nn.conv2d' has unsupported dtype 'int33x'}}
  %y = relay.nn.conv2d %x, %w {out_dtype = "int33x"} : (tensor<1x4x9x9xi8>, tensor<8x4x3x3xi8>) -> tensor<1x8x7x7xi32>
  func.return
}

// -----

func.func @conv_result(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d' result type tensor<1x8x7x7xf32> does not match the inferred type tensor<1x8x4x4xf32>}}
  %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

// A pool window may exceed the padded input by less than a stride
// (onnxruntime); one that leaves no window position is an error.
func.func @pool_window(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{'relay.nn.max_pool2d' window height 4 (with dilation) is larger than the padded input height 2}}
  %y = relay.nn.max_pool2d %x {pool_size = array<i64: 4, 4>} : (tensor<1x8x2x2xf32>) -> tensor<1x8x1x1xf32>
  func.return
}

// -----

func.func @pool_padding(%x: tensor<1x8x7x7xf32>) {
  // expected-error @+1 {{'relay.nn.avg_pool2d' padding [0, 2, 0, 0] must be smaller than the pool window [2, 2]}}
  %y = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>, padding = array<i64: 0, 2, 0, 0>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x6x8xf32>
  func.return
}

// -----

func.func @pool_size(%x: tensor<1x8x7x7xf32>) {
  // expected-error @+1 {{'relay.nn.max_pool2d' pool_size must be 2 integers >= 1, got [2]}}
  %y = relay.nn.max_pool2d %x {pool_size = array<i64: 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x6x6xf32>
  func.return
}

// -----

func.func @global_pool_rank(%x: tensor<8x7x7xf32>) {
  // expected-error @+1 {{'relay.nn.global_avg_pool2d' expects 4-d data (NCHW), got 8x7x7}}
  %y = relay.nn.global_avg_pool2d %x : (tensor<8x7x7xf32>) -> tensor<8x1x1xf32>
  func.return
}

// -----

func.func @global_pool_result(%x: tensor<1x8x7x7xf32>) {
  // expected-error @+1 {{'relay.nn.global_max_pool2d' result type tensor<1x8x7x7xf32> does not match the inferred type tensor<1x8x1x1xf32>}}
  %y = relay.nn.global_max_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

func.func @bn_param(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %q: tensor<4xf32>) {
  // expected-error @+1 {{'relay.nn.batch_norm' moving_mean must have shape 8 (data axis 1), got 4}}
  %y = relay.nn.batch_norm %x, %p, %p, %q, %p : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  func.return
}

// -----

func.func @bn_axis(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>) {
  // expected-error @+1 {{'relay.nn.batch_norm' axis 4 is out of range for rank 4}}
  %y = relay.nn.batch_norm %x, %p, %p, %p, %p {axis = 4 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  func.return
}

// -----

func.func @lrn_size(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+1 {{'relay.nn.lrn' size must be >= 1, got 0}}
  %y = relay.nn.lrn %x {size = 0 : i64} : tensor<1x8x4x4xf32>
  func.return
}

// -----

func.func @lrn_int(%x: tensor<1x8x4x4xi32>) {
  // expected-error @+1 {{'relay.nn.lrn' expects a floating-point tensor, got i32}}
  %y = relay.nn.lrn %x : tensor<1x8x4x4xi32>
  func.return
}

// -----

func.func @dropout_rate(%x: tensor<1x8xf32>) {
  // expected-error @+1 {{'relay.nn.dropout' rate must be in [0, 1), got 1.0}}
  %y = relay.nn.dropout %x {rate = 1.000000e+00 : f64} : tensor<1x8xf32>
  func.return
}

// -----

func.func @batch_flatten_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'relay.nn.batch_flatten' expects a tensor of rank >= 1, got a scalar}}
  %y = relay.nn.batch_flatten %x : (tensor<f32>) -> tensor<1x1xf32>
  func.return
}
