// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid reduction; the verifier names the op and the problem.

func.func @prod_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.prod' axis 2 is out of range for rank 2}}
  %y = relay.prod %x {axis = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @argmax_empty(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{'relay.argmax' reduces an axis of size 0 (shape 2x0)}}
  %y = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2xi64>
  func.return
}

// -----

func.func @argmin_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.argmin' result type tensor<2xi32> does not match the inferred type tensor<2xi64>}}
  %y = relay.argmin %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi32>
  func.return
}

// -----

func.func @argmax_repeat(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.argmax' axis [1, -1] repeats an axis}}
  %y = relay.argmax %x {axis = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xi64>
  func.return
}
