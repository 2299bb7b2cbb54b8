// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid resize; the verifier names the op and the
// problem.

func.func @resize_size(%x: tensor<1x3x2x3xf32>) {
  // expected-error @+1 {{'relay.image.resize2d' size must be 2 non-negative sizes, got [4]}}
  %y = relay.image.resize2d %x {size = array<i64: 4>} : (tensor<1x3x2x3xf32>) -> tensor<1x3x4x3xf32>
  func.return
}

// -----

func.func @resize_rank(%x: tensor<3x2x3xf32>) {
  // expected-error @+1 {{'relay.image.resize2d' expects data of rank 4 (NCHW), got 3x2x3}}
  %y = relay.image.resize2d %x {size = array<i64: 4, 6>} : (tensor<3x2x3xf32>) -> tensor<3x4x6xf32>
  func.return
}

// -----

func.func @resize_method(%x: tensor<1x3x2x3xi32>) {
  // expected-error @+1 {{'relay.image.resize2d' linear interpolation needs floating-point data, got i32}}
  %y = relay.image.resize2d %x {size = array<i64: 4, 6>, method = "linear"} : (tensor<1x3x2x3xi32>) -> tensor<1x3x4x6xi32>
  func.return
}

// -----

func.func @resize_mode(%x: tensor<2x3x5xf32>) {
  // expected-error @+1 {{'relay.image.resize1d' coordinate_transformation_mode must be one of half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize, got 'tf_half_pixel_for_nn'}}
  %y = relay.image.resize1d %x {size = array<i64: 9>, coordinate_transformation_mode = "tf_half_pixel_for_nn"} : (tensor<2x3x5xf32>) -> tensor<2x3x9xf32>
  func.return
}

// -----

func.func @resize_roi(%x: tensor<1x1x2x3x4xf32>) {
  // expected-error @+1 {{'relay.image.resize3d' tf_crop_and_resize needs a roi}}
  %y = relay.image.resize3d %x {size = array<i64: 2, 3, 4>, coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x1x2x3x4xf32>) -> tensor<1x1x2x3x4xf32>
  func.return
}
