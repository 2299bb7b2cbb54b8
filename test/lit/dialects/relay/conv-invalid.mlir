// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid convolution or pool over 1 or 3 spatial axes,
// or one invalid transposed convolution (2-d cases are in nn-invalid.mlir).

func.func @conv1d_rank(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv1d' expects 3-d data (NCW) and a 3-d weight (OIW), got 1x4x9x9 and 8x4x3}}
  %y = relay.nn.conv1d %x, %w : (tensor<1x4x9x9xf32>, tensor<8x4x3xf32>) -> tensor<1x8x7xf32>
  func.return
}

// -----

func.func @conv3d_groups(%x: tensor<1x4x5x5x5xf32>, %w: tensor<6x1x3x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv3d' groups=3 does not divide the 4 input channels}}
  %y = relay.nn.conv3d %x, %w {groups = 3 : i64} : (tensor<1x4x5x5x5xf32>, tensor<6x1x3x3x3xf32>) -> tensor<1x6x3x3x3xf32>
  func.return
}

// -----

func.func @conv3d_padding(%x: tensor<1x4x5x5x5xf32>, %w: tensor<6x4x3x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv3d' padding must be 6 integers >= 0, got [1, 1, 1, 1]}}
  %y = relay.nn.conv3d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5x5xf32>, tensor<6x4x3x3x3xf32>) -> tensor<1x6x3x3x3xf32>
  func.return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{'relay.nn.conv2d_transpose' weight 3x2x3x3 has 3 input channels, but data 1x4x5x5 has 4}}
  %y = relay.nn.conv2d_transpose %x, %w : (tensor<1x4x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  func.return
}

// -----

func.func @conv_transpose_crop(%x: tensor<1x4x1xf32>, %w: tensor<4x2x1xf32>) {
  // expected-error @+1 {{'relay.nn.conv1d_transpose' padding [1, 0] crops the whole width (1) of the output}}
  %y = relay.nn.conv1d_transpose %x, %w {padding = array<i64: 1, 0>} : (tensor<1x4x1xf32>, tensor<4x2x1xf32>) -> tensor<1x2x1xf32>
  func.return
}

// -----

func.func @pool1d_window(%x: tensor<1x3x9xf32>) {
  // expected-error @+1 {{'relay.nn.max_pool1d' pool_size must be 1 integers >= 1, got [2, 2]}}
  %y = relay.nn.max_pool1d %x {pool_size = array<i64: 2, 2>} : (tensor<1x3x9xf32>) -> tensor<1x3x8xf32>
  func.return
}

// -----

func.func @pool3d_rank(%x: tensor<1x3x9x9xf32>) {
  // expected-error @+1 {{'relay.nn.avg_pool3d' expects 5-d data (NCDHW), got 1x3x9x9}}
  %y = relay.nn.avg_pool3d %x {pool_size = array<i64: 2, 2, 2>} : (tensor<1x3x9x9xf32>) -> tensor<1x3x8x8xf32>
  func.return
}

// -----

func.func @argmax_pool_indices(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'relay.nn.max_pool2d_with_argmax' result type tensor<1x1x3x3xf32>, tensor<1x1x3x3xi32> does not match the inferred type tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>}}
  %y, %i = relay.nn.max_pool2d_with_argmax %x {pool_size = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi32>)
  func.return
}
