// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// A shape operand that is not the result's rank.
func.func @f(%x: tensor<3x4xf32>, %s: tensor<3xi64>) -> tensor<2x?xi64> {
  // expected-error @+1 {{'relay.nonzero' expects its shape operand to be tensor<2xi64> (the result's rank), got tensor<3xi64>}}
  %y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<2x?xi64>
  func.return %y : tensor<2x?xi64>
}

// -----

// NonZero of a scalar.
func.func @f(%x: tensor<f32>) -> tensor<2xi64> {
  // expected-error @+1 {{'relay.nonzero_shape' expects a tensor of rank >= 1, got a scalar}}
  %s = relay.nonzero_shape %x : (tensor<f32>) -> tensor<2xi64>
  func.return %s : tensor<2xi64>
}

// -----

// A condition that is not 1-d i1.
func.func @f(%x: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'relay.compress_shape' expects a 1-d i1 condition, got tensor<3xf32>}}
  %s = relay.compress_shape %x, %c {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<2xi64>
  func.return %s : tensor<2xi64>
}

// -----

// Scores that do not match the boxes.
func.func @f(%b: tensor<1x6x4xf32>, %sc: tensor<1x2x5xf32>, %m: tensor<1xi64>, %i: tensor<1xf32>, %t: tensor<1xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'relay.non_max_suppression_shape' expects static boxes BxNx4 and scores BxCxN, got tensor<1x6x4xf32> and tensor<1x2x5xf32>}}
  %n = relay.non_max_suppression_shape %b, %sc, %m, %i, %t : (tensor<1x6x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<2xi64>
  func.return %n : tensor<2xi64>
}

// -----

// Unique over a dynamic input.
func.func @f(%x: tensor<?xf32>) -> tensor<1xi64> {
  // expected-error @+1 {{'relay.unique_shape' needs static input extents, got tensor<?xf32>}}
  %a, %b, %c, %d = relay.unique_shape %x : (tensor<?xf32>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
  func.return %a : tensor<1xi64>
}

// -----

// Tile takes one repeat per axis.
func.func @f(%x: tensor<3x1xf32>, %r: tensor<3xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{'relay.dyn.tile_shape' expects one repeat per axis (2)}}
  %s = relay.dyn.tile_shape %x, %r : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2xi64>
  func.return %s : tensor<2xi64>
}

// -----

// Broadcasting to fewer axes than the data has.
func.func @f(%x: tensor<3x1xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'relay.dyn.broadcast_to' cannot broadcast rank 2 to rank 1}}
  %b = relay.dyn.broadcast_to %x, %s : (tensor<3x1xf32>, tensor<1xi64>) -> tensor<?xf32>
  func.return %b : tensor<?xf32>
}

// -----

// One size per resized axis.
func.func @f(%x: tensor<1x1x4x4xf32>, %v: tensor<3xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'relay.dyn.resize_shape' expects 2 scales or sizes (one per axis), got tensor<3xi64>}}
  %s = relay.dyn.resize_shape %x, %v {axes = array<i64: 2, 3>} : (tensor<1x1x4x4xf32>, tensor<3xi64>) -> tensor<4xi64>
  func.return %s : tensor<4xi64>
}
