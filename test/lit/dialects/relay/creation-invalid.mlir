// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid arange, one_hot or trilu; the verifier names
// the op and the problem.

func.func @arange_step() {
  // expected-error @+1 {{'relay.arange' needs finite bounds and a non-zero step, got start 0.0, stop 4.0, step 0.0}}
  %r = relay.arange {start = 0.0 : f64, stop = 4.0 : f64, step = 0.0 : f64, dtype = "int64"} : tensor<4xi64>
  func.return
}

// -----

func.func @arange_length() {
  // expected-error @+1 {{'relay.arange' result type tensor<4xi64> does not match the inferred type tensor<2xi64>}}
  %r = relay.arange {start = 0.0 : f64, stop = 4.0 : f64, step = 2.0 : f64, dtype = "int64"} : tensor<4xi64>
  func.return
}

// -----

func.func @one_hot_values(%i: tensor<3xi64>, %on: tensor<f32>, %off: tensor<2xf32>) {
  // expected-error @+1 {{'relay.one_hot' on_value and off_value must be scalars of one element type, got tensor<f32> and tensor<2xf32>}}
  %y = relay.one_hot %i, %on, %off {depth = 4 : i64} : (tensor<3xi64>, tensor<f32>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @one_hot_axis(%i: tensor<3xi64>, %on: tensor<f32>, %off: tensor<f32>) {
  // expected-error @+1 {{'relay.one_hot' axis 2 is out of range [-2, 1] for indices of rank 1}}
  %y = relay.one_hot %i, %on, %off {depth = 4 : i64, axis = 2 : i64} : (tensor<3xi64>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
  func.return
}

// -----

func.func @trilu_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'relay.trilu' expects data of rank >= 2, got 4}}
  %y = relay.trilu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}
