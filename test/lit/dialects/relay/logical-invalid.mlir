// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid comparison, logical or bitwise op or where;
// the verifier names the op and the problem.

func.func @less_result(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.less' result type tensor<3xf32> does not match the inferred type tensor<3xi1>}}
  %z = relay.less %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @equal_broadcast(%x: tensor<3xf32>, %y: tensor<2xf32>) {
  // expected-error @+1 {{'relay.equal' cannot broadcast shapes 3 and 2}}
  %z = relay.equal %x, %y : (tensor<3xf32>, tensor<2xf32>) -> tensor<3xi1>
  func.return
}

// -----

func.func @logical_and_float(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.logical_and' expects a bool (i1) tensor, got f32}}
  %z = relay.logical_and %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @logical_not_int(%x: tensor<3xi8>) {
  // expected-error @+1 {{'relay.logical_not' expects a bool (i1) tensor, got i8}}
  %z = relay.logical_not %x : tensor<3xi8>
  func.return
}

// -----

func.func @bitwise_or_float(%x: tensor<3xf16>) {
  // expected-error @+1 {{'relay.bitwise_or' expects an integer tensor, got f16}}
  %z = relay.bitwise_or %x, %x : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  func.return
}

// -----

func.func @left_shift_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'relay.left_shift' expects an integer tensor, got i1}}
  %z = relay.left_shift %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  func.return
}

// -----

func.func @where_condition(%c: tensor<3xi32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.where' expects a bool (i1) tensor, got i32}}
  %z = relay.where %c, %x, %x : (tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @where_values(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error @+1 {{'relay.where' x and y must have one element type, got f32 and f64}}
  %z = relay.where %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @where_broadcast(%c: tensor<2xi1>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.where' cannot broadcast shapes 2 and 3}}
  %z = relay.where %c, %x, %x : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}
