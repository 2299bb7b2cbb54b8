// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid axis normalization.

func.func @log_softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.nn.log_softmax' axis 2 is out of range for rank 2}}
  %y = relay.nn.log_softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @hardmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.nn.hardmax' axis -3 is out of range for rank 2}}
  %y = relay.nn.hardmax %x {axis = -3 : i64} : tensor<2x3xf32>
  func.return
}
