// RUN: xtvm-opt %s -p relay-simplify-expr | filecheck %s

// x + 0 and 0 + x are x; so are x - 0, x * 1, 1 * x and x / 1 (rules add-zero,
// subtract-zero, multiply-one, divide-one).
// CHECK-LABEL: func.func @identities
// CHECK-NEXT: func.return %x, %x, %x, %x, %x, %x
func.func @identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = relay.const dense<0.0> : tensor<2x3xf32>
  %one = relay.const dense<1.0> : tensor<3xf32>
  %a = relay.add %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = relay.add %zero, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = relay.subtract %x, %zero : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = relay.multiply %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %e = relay.multiply %one, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = relay.divide %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %a, %b, %c, %d, %e, %f : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Integer constants: a splat written element by element counts as all-equal.
// CHECK-LABEL: func.func @integer_identities
// CHECK-NEXT: func.return %x
func.func @integer_identities(%x: tensor<3xi32>) -> tensor<3xi32> {
  %one = relay.const dense<[1, 1, 1]> : tensor<3xi32>
  %m = relay.multiply %one, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  func.return %m : tensor<3xi32>
}

// Near misses: a non-zero or non-uniform constant, 0 - x and 1 / x, and a
// zero that broadcasts x to a larger shape (the result type would change).
// CHECK-LABEL: func.func @kept
// CHECK: relay.add %x, %two
// CHECK: relay.add %x, %mixed
// CHECK: relay.subtract %zero, %x
// CHECK: relay.divide %one, %x
// CHECK: relay.add %x, %wide
// CHECK: relay.multiply %x, %two
func.func @kept(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %two = relay.const dense<2.0> : tensor<3xf32>
  %mixed = relay.const dense<[0.0, 0.0, 1.0]> : tensor<3xf32>
  %zero = relay.const dense<0.0> : tensor<3xf32>
  %one = relay.const dense<1.0> : tensor<3xf32>
  %wide = relay.const dense<0.0> : tensor<2x3xf32>
  %a = relay.add %x, %two : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %b = relay.add %x, %mixed : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = relay.subtract %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %d = relay.divide %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %e = relay.add %x, %wide : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = relay.multiply %x, %two : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a, %b, %c, %d, %e, %f : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// relu-relu: relu(relu(x)) is relu(x).
// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT: %a = relay.nn.relu %x
// CHECK-NEXT: func.return %a
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x : tensor<4xf32>
  %b = relay.nn.relu %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// reshape-noop and reshape-reshape: a reshape to the same shape goes; chained reshapes become one reshape to the
// outer result shape (here the outer newshape's 0 referred to the inner result).
// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT: %c = relay.reshape %x {newshape = array<i64: 3, 8>} : (tensor<2x3x4xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: func.return %x, %c
func.func @reshapes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x8xf32>) {
  %same = relay.reshape %x {newshape = array<i64: 0, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %b = relay.reshape %x {newshape = array<i64: 3, 2, 4>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %c = relay.reshape %b {newshape = array<i64: 0, -1>} : (tensor<3x2x4xf32>) -> tensor<3x8xf32>
  func.return %same, %c : tensor<2x3x4xf32>, tensor<3x8xf32>
}

// Transposes: inverse pairs and identities vanish, other pairs compose
// (transpose-inverse, transpose-identity, transpose-transpose).
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT: %c = relay.transpose %x {axes = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: func.return %x, %x, %c
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4x2xf32>) {
  %t = relay.transpose %x {axes = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %u = relay.transpose %t {axes = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %id = relay.transpose %x {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %a = relay.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %c = relay.transpose %a {axes = array<i64: 2, 1, 0>} : (tensor<2x4x3xf32>) -> tensor<3x4x2xf32>
  func.return %u, %id, %c : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4x2xf32>
}

// A transpose that keeps the type but swaps axes is not an identity.
// CHECK-LABEL: func.func @square_transpose
// CHECK-NEXT: %t = relay.transpose %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @square_transpose(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %t = relay.transpose %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %t : tensor<2x2xf32>
}
