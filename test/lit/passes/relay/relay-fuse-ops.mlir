// RUN: xtvm-opt %s -p relay-fuse-ops | filecheck %s
// Fusing again changes nothing:
// RUN: xtvm-opt %s -p relay-fuse-ops,relay-fuse-ops | filecheck %s
// RUN: xtvm-opt %s -p 'relay-fuse-ops{max-depth=2}' | filecheck %s --check-prefix=DEPTH2

// dense + bias_add + relu: the anchor takes the elementwise ops after it. The
// constant weight stays in the graph and is passed to the call.
// CHECK-LABEL: func.func @dense_bias_relu
// CHECK-NEXT: %w = relay.const
// CHECK-NEXT: %r = func.call @fused_nn_dense_nn_bias_add_nn_relu(%x, %w, %b) : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: func.return %r
func.func @dense_bias_relu(%x: tensor<1x8xf32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {
  %w = relay.const dense<0.5> : tensor<4x8xf32>
  %d = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  %e = relay.nn.bias_add %d, %b {axis = 1 : i64} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %r = relay.nn.relu %e : tensor<1x4xf32>
  func.return %r : tensor<1x4xf32>
}
// CHECK-LABEL: func.func private @fused_nn_dense_nn_bias_add_nn_relu(%p0: tensor<1x8xf32>, %p1: tensor<4x8xf32>, %p2: tensor<4xf32>) -> tensor<1x4xf32> attributes {relay.primitive} {
// CHECK-NEXT: %d = relay.nn.dense %p0, %p1
// CHECK-NEXT: %e = relay.nn.bias_add %d, %p2
// CHECK-NEXT: %r = relay.nn.relu %e
// CHECK-NEXT: func.return %r : tensor<1x4xf32>

// add -> relu fuse; softmax is opaque and stands alone.
// CHECK-LABEL: func.func @add_relu_softmax
// CHECK-NEXT: %r = func.call @fused_add_nn_relu(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %s = func.call @fused_nn_softmax(%r)
// CHECK-NEXT: func.return %s
func.func @add_relu_softmax(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %a = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.nn.relu %a : tensor<2x3xf32>
  %s = relay.nn.softmax %r {axis = -1 : i64} : tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}
// CHECK-LABEL: func.func private @fused_add_nn_relu
// CHECK-SAME: attributes {relay.primitive}
// CHECK-LABEL: func.func private @fused_nn_softmax
// CHECK-NEXT: relay.nn.softmax %p0 : tensor<2x3xf32>

// An op with two elementwise consumers that meet again: one group (the
// consumers' meeting point post-dominates it).
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT: %m = func.call @fused_add_nn_relu_multiply(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: func.return %m
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %a : tensor<4xf32>
  %m = relay.multiply %a, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %m : tensor<4xf32>
}

// Two consumers that never meet (both are outputs): nothing post-dominates the
// producer, so it stays alone; the repeated name gets a numeric suffix.
// CHECK-LABEL: func.func @two_outputs
// CHECK-NEXT: %a = func.call @fused_add(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %s = func.call @fused_nn_softmax_1(%a)
// CHECK-NEXT: %r = func.call @fused_nn_relu(%a)
// CHECK-NEXT: func.return %s, %r
func.func @two_outputs(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = relay.nn.softmax %a : tensor<4xf32>
  %r = relay.nn.relu %a : tensor<4xf32>
  func.return %s, %r : tensor<4xf32>, tensor<4xf32>
}

// Injective ops fuse with their elementwise producers and consumers.
// CHECK-LABEL: func.func @relu_reshape
// CHECK-NEXT: %t = func.call @fused_nn_relu_reshape_transpose(%x) : (tensor<2x6xf32>) -> tensor<4x3xf32>
func.func @relu_reshape(%x: tensor<2x6xf32>) -> tensor<4x3xf32> {
  %r = relay.nn.relu %x : tensor<2x6xf32>
  %s = relay.reshape %r {newshape = array<i64: 3, 4>} : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %t = relay.transpose %s {axes = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  func.return %t : tensor<4x3xf32>
}

// An anchor only takes elementwise successors: a transpose after dense is
// its own kernel.
// CHECK-LABEL: func.func @dense_transpose
// CHECK-NEXT: %d = func.call @fused_nn_dense(%x, %w)
// CHECK-NEXT: %t = func.call @fused_transpose(%d)
func.func @dense_transpose(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %d = relay.nn.dense %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %t = relay.transpose %d : (tensor<2x4xf32>) -> tensor<4x2xf32>
  func.return %t : tensor<4x2xf32>
}

// Tuples are not computed: they stay in the graph; their fields are kernels.
// CHECK-LABEL: func.func @tuple
// CHECK-NEXT: %a = func.call @fused_nn_relu_1(%x)
// CHECK-NEXT: %b = func.call @fused_nn_relu_2(%y)
// CHECK-NEXT: %t = relay.tuple %a, %b
// CHECK-NEXT: func.return %t
func.func @tuple(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tuple<tensor<2xf32>, tensor<3xf32>> {
  %a = relay.nn.relu %x : tensor<2xf32>
  %b = relay.nn.relu %y : tensor<3xf32>
  %t = relay.tuple %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tuple<tensor<2xf32>, tensor<3xf32>>
  func.return %t : tuple<tensor<2xf32>, tensor<3xf32>>
}

// max-depth caps a group: a chain of four elementwise ops splits in two.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %d = func.call @fused_nn_relu_add_multiply_subtract(%x)
// DEPTH2-LABEL: func.func @chain
// DEPTH2-NEXT: %b = func.call @fused_nn_relu_add(%x)
// DEPTH2-NEXT: %d = func.call @fused_multiply_subtract(%b, %x)
// DEPTH2-NEXT: func.return %d
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x : tensor<4xf32>
  %b = relay.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = relay.multiply %b, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = relay.subtract %c, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
