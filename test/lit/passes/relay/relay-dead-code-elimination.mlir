// RUN: xtvm-opt %s -p relay-dead-code-elimination | filecheck %s

// Unused relay ops go, chains of them included; used ones stay.
// CHECK-LABEL: func.func @dead_ops
func.func @dead_ops(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: %used = relay.nn.relu %x
  // CHECK-NEXT: func.return %used
  %c = relay.const dense<1.0> : tensor<2xf32>
  %a = relay.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = relay.nn.relu %a : tensor<2xf32>
  %used = relay.nn.relu %x : tensor<2xf32>
  func.return %used : tensor<2xf32>
}

// An unused call of a primitive (fused) function goes, and the function with
// it; calls of other functions and lowered calls may have effects and stay.
// CHECK-LABEL: func.func @dead_calls
func.func @dead_calls(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: func.call @effects(%x)
  // CHECK-NEXT: relay.call_lowered @kernel(%x)
  // CHECK-NEXT: func.return %x
  %a = func.call @fused_nn_relu(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = func.call @effects(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %k = relay.call_lowered @kernel(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}
// CHECK-NOT: @fused_nn_relu
func.func private @fused_nn_relu(%p0: tensor<2xf32>) -> tensor<2xf32> attributes {relay.primitive} {
  %r = relay.nn.relu %p0 : tensor<2xf32>
  func.return %r : tensor<2xf32>
}
// CHECK-LABEL: func.func private @effects
func.func private @effects(%p0: tensor<2xf32>) -> tensor<2xf32> {
  func.return %p0 : tensor<2xf32>
}

// A private function only called from an unused private function goes too;
// public functions stay even if unused.
// CHECK-LABEL: func.func @public_unused
func.func @public_unused(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
// CHECK-NOT: @unused_private
// CHECK-NOT: @only_called_by_unused
func.func private @unused_private(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = func.call @only_called_by_unused(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %a : tensor<2xf32>
}
func.func private @only_called_by_unused(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
