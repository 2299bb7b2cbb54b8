// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid gather or scatter; the verifier names the op
// and the problem.

func.func @gather_rank(%x: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'relay.gather' indices must have the rank of data (2), got shape 3}}
  %y = relay.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @gather_shape(%x: tensor<3x4xf32>, %i: tensor<3x5xi64>) {
  // expected-error @+1 {{'relay.gather' indices shape 3x5 exceeds data shape 3x4 at axis 1}}
  %y = relay.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3x5xi64>) -> tensor<3x5xf32>
  func.return
}

// -----

func.func @gather_float_indices(%x: tensor<3x4xf32>, %i: tensor<3x4xf32>) {
  // expected-error @+1 {{'relay.gather' indices must be integers, got f32}}
  %y = relay.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @gather_nd_tuples(%x: tensor<2x3xf32>, %i: tensor<3x4xi64>) {
  // expected-error @+1 {{'relay.gather_nd' batch_dims 0 and index tuples of 3 do not fit data of shape 2x3 and indices of shape 3x4}}
  %y = relay.gather_nd %x, %i : (tensor<2x3xf32>, tensor<3x4xi64>) -> tensor<4xf32>
  func.return
}

// -----

func.func @gather_nd_batch(%x: tensor<2x3xf32>, %i: tensor<1x3xi64>) {
  // expected-error @+1 {{'relay.gather_nd' batch axis 0 has size 2 in data but 3 in indices}}
  %y = relay.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<1x3xi64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @scatter_updates(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{'relay.scatter_elements' updates must have the shape of indices 3x2, got 3x3}}
  %y = relay.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x3xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @scatter_reduction(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{'relay.scatter_elements' reduction must be one of update, add, mul, min, max, got 'mean'}}
  %y = relay.scatter_elements %x, %i, %u {reduction = "mean"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<1x2xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{'relay.scatter_nd' updates must have shape 2x3, got 2x4}}
  %y = relay.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<1x2xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @scatter_nd_tuples(%x: tensor<4x3xf32>, %i: tensor<3x2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'relay.scatter_nd' indices of shape 3x2 must hold tuples of 1 to 2 indices along their first axis}}
  %y = relay.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<3x2xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  func.return
}
