// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid layout op; the verifier names the op and the
// problem.

func.func @broadcast(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'relay.broadcast_to' cannot broadcast shapes 3x2 and 3x4}}
  %y = relay.broadcast_to %x {shape = array<i64: 3, 4>} : (tensor<3x2xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @broadcast_rank(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{'relay.broadcast_to' cannot broadcast 3x1 to 4}}
  %y = relay.broadcast_to %x {shape = array<i64: 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @tile(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.tile' reps [-1] must be non-negative}}
  %y = relay.tile %x {reps = array<i64: -1>} : (tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @reverse_sequence(%x: tensor<4x3xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{'relay.reverse_sequence' seq_lengths must have shape 3 (one length per batch entry), got 4}}
  %y = relay.reverse_sequence %x, %l {seq_axis = 0 : i64, batch_axis = 1 : i64} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @pad_width(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'relay.nn.pad' pad_width needs 2 values per axis (4), got 2}}
  %y = relay.nn.pad %x, %v {pad_width = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @pad_mode(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'relay.nn.pad' pad_mode must be one of constant, edge, reflect, wrap, got 'symmetric'}}
  %y = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 1, 1>, pad_mode = "symmetric"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @pad_value(%x: tensor<2x3xf32>, %v: tensor<i32>) {
  // expected-error @+1 {{'relay.nn.pad' pad_value must be a scalar of the data's element type f32, got tensor<i32>}}
  %y = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 1, 1>} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @pad_crop(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'relay.nn.pad' pads -2, -2 crop more than axis 1 of size 3}}
  %y = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, -2, -2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x0xf32>
  func.return
}

// -----

func.func @depth_to_space(%x: tensor<1x6x2x2xf32>) {
  // expected-error @+1 {{'relay.nn.depth_to_space' 6 channels are not a multiple of 4}}
  %y = relay.nn.depth_to_space %x {block_size = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
  func.return
}

// -----

func.func @space_to_depth(%x: tensor<1x1x3x4xf32>) {
  // expected-error @+1 {{'relay.nn.space_to_depth' mode must be one of DCR, CRD, got 'DRC'}}
  %y = relay.nn.space_to_depth %x {block_size = 2 : i64, mode = "DRC"} : (tensor<1x1x3x4xf32>) -> tensor<1x4x1x2xf32>
  func.return
}

// -----

func.func @reshape_allowzero(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'relay.reshape' newshape with allowzero has both 0 and -1}}
  %y = relay.reshape %x {newshape = array<i64: 0, -1>, allowzero = true} : (tensor<0x3xf32>) -> tensor<0x3xf32>
  func.return
}
