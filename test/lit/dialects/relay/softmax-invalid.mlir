// RUN: xtvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Each chunk holds one invalid axis normalization.

func.func @log_softmax_axis(%x: tensor<2x3xf32>) {
  %y = relay.nn.log_softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  func.return
}
// CHECK: 'relay.nn.log_softmax' axis 2 is out of range for rank 2

// -----

func.func @hardmax_axis(%x: tensor<2x3xf32>) {
  %y = relay.nn.hardmax %x {axis = -3 : i64} : tensor<2x3xf32>
  func.return
}
// CHECK: 'relay.nn.hardmax' axis -3 is out of range for rank 2
