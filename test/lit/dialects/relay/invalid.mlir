// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid relay op; the verifier names the op and the problem.

func.func @bad_broadcast(%x: tensor<4x3xf32>, %y: tensor<2xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'relay.add' cannot broadcast shapes 4x3 and 2}}
  %a = relay.add %x, %y : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  func.return %a : tensor<4x3xf32>
}

// -----

func.func @mixed_dtypes(%x: tensor<3xf32>, %y: tensor<3xf64>) -> tensor<3xf32> {
  // expected-error @+1 {{'relay.multiply' operands must have one element type, got f32 and f64}}
  %a = relay.multiply %x, %y : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  func.return %a : tensor<3xf32>
}

// -----

func.func @dense_k(%x: tensor<1x8xf32>, %w: tensor<4x7xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'relay.nn.dense' reduction sizes differ: data 1x8 has K=8, weight 4x7 has K=7}}
  %a = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<4x7xf32>) -> tensor<1x4xf32>
  func.return %a : tensor<1x4xf32>
}

// -----

func.func @dense_mixed_without_out_dtype(%x: tensor<1x8xui8>, %w: tensor<4x8xi8>) -> tensor<1x4xi32> {
  // expected-error @+1 {{'relay.nn.dense' operands must have one element type, got ui8 and i8}}
  %a = relay.nn.dense %x, %w : (tensor<1x8xui8>, tensor<4x8xi8>) -> tensor<1x4xi32>
  func.return %a : tensor<1x4xi32>
}

// -----

func.func @wrong_result(%x: tensor<1x8xf32>, %w: tensor<4x8xf32>) -> tensor<1x5xf32> {
  // expected-error @+1 {{'relay.nn.dense' result type tensor<1x5xf32> does not match the inferred type tensor<1x4xf32>}}
  %a = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x5xf32>
  func.return %a : tensor<1x5xf32>
}

// -----

func.func @bias_len(%x: tensor<2x4xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'relay.nn.bias_add' bias must have shape 4 (data axis 1), got 3}}
  %a = relay.nn.bias_add %x, %b {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  func.return %a : tensor<2x4xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'relay.nn.softmax' axis 2 is out of range for rank 2}}
  %a = relay.nn.softmax %x {axis = 2 : i64} : tensor<2x4xf32>
  func.return %a : tensor<2x4xf32>
}

// -----

func.func @reshape_size(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'relay.reshape' cannot reshape 2x3 (6 elements) to 7}}
  %a = relay.reshape %x {newshape = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<7xf32>
  func.return %a : tensor<7xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'relay.transpose' axes [0, 0] are not a permutation of rank 2}}
  %a = relay.transpose %x {axes = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %a : tensor<3x2xf32>
}

// -----

func.func @matmul_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'relay.nn.matmul' reduction sizes differ: a has K=3, b has K=4}}
  %m = relay.nn.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %m : tensor<2x5xf32>
}

// -----

func.func @tuple_index(%a: tensor<2xf32>) -> tensor<2xf32> {
  %t = relay.tuple %a : (tensor<2xf32>) -> tuple<tensor<2xf32>>
  // expected-error @+1 {{'relay.tuple_get' index 3 is out of range for a 1-tuple}}
  %g = relay.tuple_get %t {index = 3 : i64} : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return %g : tensor<2xf32>
}
