// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid cumprod; the verifier names the op and the problem.

func.func @cumprod_axis(%x: tensor<2x3xi64>) {
  // expected-error @+1 {{'relay.cumprod' axis -3 is out of range for rank 2}}
  %y = relay.cumprod %x {axis = -3 : i64} : tensor<2x3xi64>
  func.return
}

// -----

func.func @cumprod_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'relay.cumprod' expects a tensor of rank >= 1, got a scalar}}
  %y = relay.cumprod %x : tensor<f32>
  func.return
}
