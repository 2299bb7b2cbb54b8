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

// An op whose compute needs static sizes (gather clamps its indices to the
// extent of the gathered axis in Python today).
func.func @main(%x: tensor<?x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{convert-relay-to-tir: cannot lower 'relay.gather' with the dynamic operand(s) 0: its compute needs static sizes (the symbolic expression (p0_n0 < 1) has no Python truth value; use te.if_then_else to choose between expressions)}}
  %0 = relay.gather %x, %i {axis = 0 : i64} : (tensor<?x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// A result whose dynamic extent is not a shape variable of an input (the
// sum of two `?`): its kernel would need a compiled shape function.
// (dynamic-*.mlir: what lowers.)
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{convert-relay-to-tir: cannot build kernel @fused_concatenate: create_prim_func @fused_concatenate: axis 0 of argument T_concat has the extent (p0_n0 + p1_n0); an argument's dynamic extent must be a shape variable}}
  %0 = relay.concatenate %x, %y {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
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
