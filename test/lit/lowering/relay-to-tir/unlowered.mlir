// RUN: not xtvm-opt %s -p 'convert-relay-to-tir{categories=tensor}' 2>&1 | filecheck %s
// The legality check: an op that no pattern lowers (here every relay.nn op,
// as only the tensor category's patterns run) fails the conversion, and the
// error names the pass, then each op left over with its file:line:col and
// its text. A primitive function holding such an op is not lowered either.

// CHECK: convert-relay-to-tir: 3 op(s) left unlowered (no pattern lowers them):
// CHECK-NEXT: unlowered.mlir:[[# @LINE + 1]]:1: 'func.func'
func.func private @fused_nn_relu(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  // CHECK: unlowered.mlir:[[# @LINE + 2]]:3: 'relay.nn.relu'
  // CHECK-NEXT: %0 = relay.nn.relu %p0 : tensor<4xf32>
  %0 = relay.nn.relu %p0 : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: unlowered.mlir:[[# @LINE + 2]]:3: 'relay.nn.relu'
  // CHECK-NEXT: %r = relay.nn.relu %a : tensor<4xf32>
  %r = relay.nn.relu %a : tensor<4xf32>
  %f = func.call @fused_nn_relu(%r) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}
