// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid shape or indexing op; the verifier names the op
// and the problem.

func.func @concat_shapes(%a: tensor<1x2x4xf32>, %b: tensor<1x3x5xf32>) {
  // expected-error @+1 {{'relay.concatenate' input 1 has shape 1x3x5, which does not match 1x2x4 outside axis 1}}
  %c = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x5xf32>) -> tensor<1x5x4xf32>
  func.return
}

// -----

func.func @concat_axis(%a: tensor<1x2xf32>) {
  // expected-error @+1 {{'relay.concatenate' axis 2 is out of range for rank 2}}
  %c = relay.concatenate %a, %a {axis = 2 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  func.return
}

// -----

func.func @concat_dtypes(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'relay.concatenate' operands must have one element type, got f32 and i32}}
  %c = relay.concatenate %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @split_sections(%x: tensor<1x5xf32>) {
  // expected-error @+1 {{'relay.split' 2 sections do not divide the axis of size 5}}
  %a:2 = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<1x5xf32>) -> (tensor<1x2xf32>, tensor<1x3xf32>)
  func.return
}

// -----

func.func @split_indices(%x: tensor<1x5xf32>) {
  // expected-error @+1 {{'relay.split' split indices [3, 1] must be ascending and within [0, 5]}}
  %a:3 = relay.split %x {indices_or_sections = array<i64: 3, 1>, axis = 1 : i64} : (tensor<1x5xf32>) -> (tensor<1x3xf32>, tensor<1x0xf32>, tensor<1x4xf32>)
  func.return
}

// -----

func.func @split_count(%x: tensor<1x6xf32>) {
  // expected-error @+1 {{'relay.split' result type tensor<1x2xf32>, tensor<1x2xf32> does not match the inferred type tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>}}
  %a:2 = relay.split %x {indices_or_sections = 3 : i64, axis = 1 : i64} : (tensor<1x6xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  func.return
}

// -----

func.func @squeeze_size(%x: tensor<1x3x1xf32>) {
  // expected-error @+1 {{'relay.squeeze' cannot squeeze axis 1 of size 3 (shape 1x3x1)}}
  %y = relay.squeeze %x {axis = array<i64: 1>} : (tensor<1x3x1xf32>) -> tensor<1x1xf32>
  func.return
}

// -----

func.func @expand_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{'relay.expand_dims' axis 2 is out of range [-2, 1] for an input of rank 1}}
  %y = relay.expand_dims %x {axis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1xf32>
  func.return
}

// -----

func.func @full_scalar(%v: tensor<2xf32>) {
  // expected-error @+1 {{'relay.full' fill_value must be a scalar tensor, got shape 2}}
  %y = relay.full %v {shape = array<i64: 2, 3>} : (tensor<2xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @full_shape(%v: tensor<f32>) {
  // expected-error @+1 {{'relay.full' shape [2, -3] has a negative size}}
  %y = relay.full %v {shape = array<i64: 2, -3>} : (tensor<f32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @take_float_indices(%x: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'relay.take' indices must be integers, got f32}}
  %y = relay.take %x, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @take_mode(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'relay.take' mode must be one of clip, wrap, got 'fast'}}
  %y = relay.take %x, %i {axis = 0 : i64, mode = "fast"} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @take_axis(%x: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'relay.take' axis -3 is out of range for rank 2}}
  %y = relay.take %x, %i {axis = -3 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @slice_lengths(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{'relay.strided_slice' begin, end and strides must have one length, got 2, 1 and 2}}
  %y = relay.strided_slice %x {begin = array<i64: 0, 0>, end = array<i64: 2>} : (tensor<10x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @slice_stride(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{'relay.strided_slice' strides must be non-zero, got [0]}}
  %y = relay.strided_slice %x {begin = array<i64: 0>, end = array<i64: 2>, strides = array<i64: 0>} : (tensor<10x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @slice_axes(%x: tensor<10x4xf32>) {
  // expected-error @+1 {{'relay.strided_slice' axes [1, -1] repeat an axis}}
  %y = relay.strided_slice %x {begin = array<i64: 0, 0>, end = array<i64: 2, 2>, axes = array<i64: 1, -1>} : (tensor<10x4xf32>) -> tensor<10x2xf32>
  func.return
}

// -----

func.func @slice_rank(%x: tensor<10xf32>) {
  // expected-error @+1 {{'relay.strided_slice' has 2 bounds for a tensor of rank 1}}
  %y = relay.strided_slice %x {begin = array<i64: 0, 0>, end = array<i64: 2, 2>} : (tensor<10xf32>) -> tensor<2xf32>
  func.return
}
