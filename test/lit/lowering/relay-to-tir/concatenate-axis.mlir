// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// A primitive function that only concatenates its arguments, in order,
// gets its (normalized) axis as xtvm.concatenate_axis: memory-concat-in-place
// may then have the producers write into its output. A concatenation fused
// with more work, or reading an argument twice, gets none.

// CHECK-LABEL: tir.prim_func @fused_concatenate(
// CHECK-SAME:    xtvm.concatenate_axis = 1 : i64
// CHECK-LABEL: tir.prim_func @fused_concatenate_exp(
// CHECK-NOT:     xtvm.concatenate_axis
// CHECK-LABEL: tir.prim_func @fused_concatenate_twice(
// CHECK-NOT:     xtvm.concatenate_axis
// CHECK-LABEL: func.func @main
func.func private @fused_concatenate(%p0: tensor<1x2x4xf32>, %p1: tensor<1x3x4xf32>) -> tensor<1x5x4xf32> attributes {relay.primitive} {
  %c = relay.concatenate %p0, %p1 {axis = -2 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  func.return %c : tensor<1x5x4xf32>
}
func.func private @fused_concatenate_exp(%p0: tensor<1x3x4xf32>, %p1: tensor<1x2x4xf32>) -> tensor<1x5x4xf32> attributes {relay.primitive} {
  %d = relay.concatenate %p0, %p1 {axis = 1 : i64} : (tensor<1x3x4xf32>, tensor<1x2x4xf32>) -> tensor<1x5x4xf32>
  %e = relay.exp %d : tensor<1x5x4xf32>
  func.return %e : tensor<1x5x4xf32>
}
func.func private @fused_concatenate_twice(%p0: tensor<1x2x4xf32>) -> tensor<1x4x4xf32> attributes {relay.primitive} {
  %c = relay.concatenate %p0, %p0 {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  func.return %c : tensor<1x4x4xf32>
}
func.func @main(%x: tensor<1x2x4xf32>, %y: tensor<1x3x4xf32>) -> (tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x4x4xf32>) {
  %c = func.call @fused_concatenate(%x, %y) : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  %e = func.call @fused_concatenate_exp(%y, %x) : (tensor<1x3x4xf32>, tensor<1x2x4xf32>) -> tensor<1x5x4xf32>
  %t = func.call @fused_concatenate_twice(%x) : (tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  func.return %c, %e, %t : tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x4x4xf32>
}
