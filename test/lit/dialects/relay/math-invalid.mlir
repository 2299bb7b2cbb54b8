// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid op of relay.math (or a remainder); the verifier
// names the op and the problem.

func.func @floor_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'relay.floor' expects a floating-point tensor, got i32}}
  %y = relay.floor %x : tensor<4xi32>
  func.return
}

// -----

func.func @sign_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'relay.sign' expects a numeric (not bool) tensor, got i1}}
  %y = relay.sign %x : tensor<4xi1>
  func.return
}

// -----

func.func @isnan_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{'relay.isnan' expects a floating-point tensor, got i64}}
  %y = relay.isnan %x : (tensor<4xi64>) -> tensor<4xi1>
  func.return
}

// -----

func.func @isinf_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'relay.isinf' result type tensor<4xf32> does not match the inferred type tensor<4xi1>}}
  %y = relay.isinf %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @floor_mod_dtypes(%x: tensor<3xi32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{'relay.floor_mod' operands must have one element type, got i32 and i64}}
  %z = relay.floor_mod %x, %y : (tensor<3xi32>, tensor<3xi64>) -> tensor<3xi32>
  func.return
}

// -----

func.func @add_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'relay.add' expects a numeric (not bool) tensor, got i1}}
  %z = relay.add %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  func.return
}
