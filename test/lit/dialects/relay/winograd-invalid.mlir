// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @not_3x3(%w: tensor<32x16x5x5xf32>) -> tensor<6x6x2x16x16xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_winograd_weight_transform' expects a weight [K, C, r, r] with r in (3, 4) and block 16 dividing K, got 32x16x5x5}}
  %u = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x5x5xf32>) -> tensor<6x6x2x16x16xf32>
  func.return %u : tensor<6x6x2x16x16xf32>
}

// -----

func.func @wrong_tile(%x: tensor<1x1x8x8x16xf32>, %u: tensor<4x4x2x16x16xf32>) -> tensor<1x2x8x8x16xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' expects a transformed weight [6, 6, K/b, 16, b] or [7, 7, K/b, 16, b] for tile_size 4 and data 1x1x8x8x16, got 4x4x2x16x16}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<4x4x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return %y : tensor<1x2x8x8x16xf32>
}

// -----

func.func @not_square(%w: tensor<32x16x4x3xf32>) -> tensor<7x7x2x16x16xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_winograd_weight_transform' expects a weight [K, C, r, r] with r in (3, 4) and block 16 dividing K, got 32x16x4x3}}
  %u = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x4x3xf32>) -> tensor<7x7x2x16x16xf32>
  func.return %u : tensor<7x7x2x16x16xf32>
}

// -----

func.func @f44_weight_on_3x3_output(%x: tensor<1x1x8x8x16xf32>, %u: tensor<7x7x2x16x16xf32>) -> tensor<1x2x8x8x16xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' result type tensor<1x2x8x8x16xf32> does not match the inferred type tensor<1x2x5x5x16xf32>}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<7x7x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return %y : tensor<1x2x8x8x16xf32>
}

// -----

func.func @nchw_data(%x: tensor<1x16x8x8xf32>, %u: tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' expects data layout 'NCHW' or 'NCHW<c>c', got 'NHWC'}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, data_layout = "NHWC"} : (tensor<1x16x8x8xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return %y : tensor<1x2x8x8x16xf32>
}

// -----

func.func @int_data(%x: tensor<1x1x8x8x16xi32>, %u: tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_winograd_without_weight_transform' expects a float data, got i32}}
  %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xi32>, tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
  func.return %y : tensor<1x2x8x8x16xf32>
}
