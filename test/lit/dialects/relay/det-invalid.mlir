// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid det; the verifier names the op and the problem.

func.func @det_not_square(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.det' needs square matrices in the last two axes, got shape [2, 3]}}
  %y = relay.det %x : (tensor<2x3xf32>) -> tensor<f32>
  func.return
}

// -----

func.func @det_integer(%x: tensor<2x2xi32>) {
  // expected-error @+1 {{'relay.det' needs floating-point matrices, got int32}}
  %y = relay.det %x : (tensor<2x2xi32>) -> tensor<i32>
  func.return
}
