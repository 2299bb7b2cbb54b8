// RUN: xtvm-opt %s -p convert-relay-to-tir --split-input-file --verify-diagnostics
// What convert-relay-to-tir rejects; each error names the pass and is reported at the op.

// A non-scalar constant inside a primitive function (constants are graph parameters).
func.func private @fused_add(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  // expected-error @+1 {{convert-relay-to-tir: a non-scalar constant (tensor<3xf32>) in primitive function @fused_add: constants must be graph parameters, passed to the kernel as arguments; only scalar (or splat) constants become immediates}}
  %c = relay.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = relay.add %p0, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// A dynamic dimension broadcast against a static one other than 1: the kernel
// could not tell broadcasting from a mismatch (dynamic-*.mlir: what lowers).
func.func @main(%x: tensor<?x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{convert-relay-to-tir: cannot lower 'relay.add': broadcasting [p0_n0, 4] and [3, 4]: the extents p0_n0 and 3 must be equal, which cannot be checked when the kernel is built}}
  %0 = relay.add %x, %y : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

// Only relay ops may appear in a primitive function.
func.func private @fused_call(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  // expected-error @+1 {{convert-relay-to-tir: 'func.call' cannot appear in primitive function @fused_call}}
  %0 = func.call @other(%p0) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// -----

// Softmax needs floats.
func.func @main(%x: tensor<2x4xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{convert-relay-to-tir: cannot lower 'relay.nn.softmax': softmax needs a float tensor, got int32}}
  %0 = relay.nn.softmax %x : tensor<2x4xi32>
  func.return %0 : tensor<2x4xi32>
}
