// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

func.func @not_divisible(%w: tensor<20x8x3x3xf32>) -> tensor<2x8x3x3x16xf32> {
  // expected-error @+1 {{'relay.layout_transform' cannot take 20x8x3x3 from 'OIHW' to 'OIHW16o': layout 'OIHW16o': axis O=20 is not a multiple of 16}}
  %p = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<20x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
  func.return %p : tensor<2x8x3x3x16xf32>
}

// -----

func.func @bad_layout(%w: tensor<32x8xf32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{'relay.layout_transform' layout: layout 'N16': expected letters and <factor><letter> sub-axes}}
  %p = relay.layout_transform %w {src_layout = "NK", dst_layout = "N16"} : (tensor<32x8xf32>) -> tensor<32x8xf32>
  func.return %p : tensor<32x8xf32>
}

// -----

func.func @wrong_primal(%x: tensor<1x8x8x8xf32>, %p: tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_packed' expects a packed OIHW weight layout, got 'OHWI16o'}}
  %y = relay.nn.contrib_conv2d_packed %x, %p {kernel_layout = "OHWI16o"} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
  func.return %y : tensor<1x32x8x8xf32>
}

// -----

func.func @block_across_groups(%x: tensor<1x8x8x8xf32>, %p: tensor<2x4x1x1x16xf32>) -> tensor<1x32x8x8xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_packed' output-channel block 16 does not divide the 8 output channels of a group}}
  %y = relay.nn.contrib_conv2d_packed %x, %p {kernel_layout = "OIHW16o", groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<2x4x1x1x16xf32>) -> tensor<1x32x8x8xf32>
  func.return %y : tensor<1x32x8x8xf32>
}

// -----

func.func @shuffle_not_the_groups(%x: tensor<1x8x8x8xf32>, %p: tensor<8x4x1x1x2xf32>) -> tensor<1x16x8x8xf32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_packed' out_shuffle = 4 needs NCHW data and result and equals the conv's groups (2), at least 2}}
  %y = relay.nn.contrib_conv2d_packed %x, %p {kernel_layout = "OIHW2o", groups = 2 : i64, out_shuffle = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<8x4x1x1x2xf32>) -> tensor<1x16x8x8xf32>
  func.return %y : tensor<1x16x8x8xf32>
}

// -----

func.func @int8_groups_do_not_fit(%x: tensor<1x9x8x8xui8>, %p: tensor<2x2x1x1x16xi32>) -> tensor<1x32x8x8xi32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_int8_packed' data 1x9x8x8 (NCHW) does not fit the packed weight 2x2x1x1x16 ([O/16, ceil(C/4), KH, KW, 16])}}
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i"} : (tensor<1x9x8x8xui8>, tensor<2x2x1x1x16xi32>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}

// -----

func.func @int8_float_data(%x: tensor<1x8x8x8xf32>, %p: tensor<2x2x1x1x16xi32>) -> tensor<1x32x8x8xi32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_int8_packed' takes ui8 data and an i32 packed weight, got f32 and i32}}
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i"} : (tensor<1x8x8x8xf32>, tensor<2x2x1x1x16xi32>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}

// -----

func.func @dense_int8_groups_do_not_fit(%x: tensor<2x13xui8>, %p: tensor<2x3x16xi32>) -> tensor<2x32xi32> {
  // expected-error @+1 {{'relay.nn.contrib_dense_int8_packed' data 2x13 ([M, K]) does not fit the packed weight 2x3x16 ([N/16, ceil(K/4), 16])}}
  %y = relay.nn.contrib_dense_int8_packed %x, %p {weight_layout = "NK16n4k"} : (tensor<2x13xui8>, tensor<2x3x16xi32>) -> tensor<2x32xi32>
  func.return %y : tensor<2x32xi32>
}

// -----

func.func @dense_int8_layout(%x: tensor<2x12xui8>, %p: tensor<2x3x16xi32>) -> tensor<2x32xi32> {
  // expected-error @+1 {{'relay.nn.contrib_dense_int8_packed' expects weight layout 'NK<b>n4k', got 'NK16n'}}
  %y = relay.nn.contrib_dense_int8_packed %x, %p {weight_layout = "NK16n"} : (tensor<2x12xui8>, tensor<2x3x16xi32>) -> tensor<2x32xi32>
  func.return %y : tensor<2x32xi32>
}

// -----

func.func @int8_nchwc_block_not_words(%x: tensor<1x1x8x8x6xui8>, %p: tensor<2x2x1x1x16xi32>) -> tensor<1x2x8x8x16xi32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_int8_packed' expects data layout 'NCHW' or 'NCHW<c>c' with c a multiple of 4, got 'NCHW6c'}}
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", data_layout = "NCHW6c"} : (tensor<1x1x8x8x6xui8>, tensor<2x2x1x1x16xi32>) -> tensor<1x2x8x8x16xi32>
  func.return %y : tensor<1x2x8x8x16xi32>
}

// -----

func.func @int8_nchwc_data_not_blocked(%x: tensor<1x8x8x8xui8>, %p: tensor<2x2x1x1x16xi32>) -> tensor<1x2x8x8x16xi32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_int8_packed' data 1x8x8x8 (NCHW8c) does not fit the packed weight 2x2x1x1x16 ([O/16, ceil(C/4), KH, KW, 16])}}
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x8x8x8xui8>, tensor<2x2x1x1x16xi32>) -> tensor<1x2x8x8x16xi32>
  func.return %y : tensor<1x2x8x8x16xi32>
}

// -----

func.func @int8_out_layout_not_the_block(%x: tensor<1x8x8x8xui8>, %p: tensor<2x2x1x1x16xi32>) -> tensor<1x4x8x8x8xi32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_int8_packed' out_layout must be '' (as the data) or 'NCHW16c' (the weight's block), got 'NCHW8c'}}
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", out_layout = "NCHW8c"} : (tensor<1x8x8x8xui8>, tensor<2x2x1x1x16xi32>) -> tensor<1x4x8x8x8xi32>
  func.return %y : tensor<1x4x8x8x8xi32>
}

// -----

func.func @int8_pad_value_not_u8(%x: tensor<1x8x8x8xui8>, %p: tensor<2x2x1x1x16xi32>) -> tensor<1x32x10x10xi32> {
  // expected-error @+1 {{'relay.nn.contrib_conv2d_int8_packed' pad_value must be a u8 value (0..255), got 256}}
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 1, 1, 1>, pad_value = 256 : i64} : (tensor<1x8x8x8xui8>, tensor<2x2x1x1x16xi32>) -> tensor<1x32x10x10xi32>
  func.return %y : tensor<1x32x10x10xi32>
}
