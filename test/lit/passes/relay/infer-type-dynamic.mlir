// RUN: xtvm-opt %s -p relay-infer-type | filecheck %s
// Type inference propagates `?` dimensions (docs/dynamic-shapes.md): unranked
// less precise declared results (all `?`) become the rule's types, which keep `?`
// wherever the size depends on a dynamic input, and static sizes elsewhere.

// A dynamic batch through an MLP-like chain.
// CHECK-LABEL: func.func @batch(%x: tensor<?x784xf32>, %w: tensor<256x784xf32>, %b: tensor<256xf32>) -> tensor<?x256xf32>
func.func @batch(%x: tensor<?x784xf32>, %w: tensor<256x784xf32>, %b: tensor<256xf32>) -> tensor<?x?xf32> {
  // CHECK-NEXT: %d = relay.nn.dense %x, %w : (tensor<?x784xf32>, tensor<256x784xf32>) -> tensor<?x256xf32>
  %d = relay.nn.dense %x, %w : (tensor<?x784xf32>, tensor<256x784xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: %a = relay.add %d, %b : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  %a = relay.add %d, %b : (tensor<?x?xf32>, tensor<256xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: %s = relay.nn.softmax %a : tensor<?x256xf32>
  %s = relay.nn.softmax %a {axis = -1 : i64} : tensor<?x?xf32>
  // CHECK-NEXT: func.return %s : tensor<?x256xf32>
  func.return %s : tensor<?x?xf32>
}

// Shape ops map the dynamic axis through; reductions over static axes keep it.
// CHECK-LABEL: func.func @shapes(%x: tensor<?x3x4xf32>, %y: tensor<?x5xf32>) -> (tensor<?x17xf32>, tensor<4x3x?xf32>, tensor<?x1x4xf32>)
func.func @shapes(%x: tensor<?x3x4xf32>, %y: tensor<?x5xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  // CHECK-NEXT: relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %r = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: relay.concatenate %r, %y {axis = 1 : i64} : (tensor<?x12xf32>, tensor<?x5xf32>) -> tensor<?x17xf32>
  %c = relay.concatenate %r, %y {axis = 1 : i64} : (tensor<?x?xf32>, tensor<?x5xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: relay.transpose %x {axes = array<i64: 2, 1, 0>} : (tensor<?x3x4xf32>) -> tensor<4x3x?xf32>
  %t = relay.transpose %x {axes = array<i64: 2, 1, 0>} : (tensor<?x3x4xf32>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
  %m = relay.mean %x {axis = array<i64: 1>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x?x?xf32>
  func.return %c, %t, %m : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// Convolution and pooling with a dynamic batch: the spatial sizes are static.
// CHECK-LABEL: func.func @cnn(%x: tensor<?x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x4x4xf32>
func.func @cnn(%x: tensor<?x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK-NEXT: relay.nn.conv2d %x, %w {{.*}} -> tensor<?x8x8x8xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>} : (tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  // CHECK-NEXT: relay.nn.max_pool2d %c {{.*}} -> tensor<?x8x4x4xf32>
  %p = relay.nn.max_pool2d %c {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  func.return %p : tensor<?x?x?x?xf32>
}

// A dynamic sequence: attention scores are `?x?`, and back to `?x64`.
// CHECK-LABEL: func.func @sequence(%q: tensor<?x64xf32>, %k: tensor<?x64xf32>) -> tensor<?x64xf32>
func.func @sequence(%q: tensor<?x64xf32>, %k: tensor<?x64xf32>) -> tensor<?x?xf32> {
  // CHECK-NEXT: relay.nn.matmul %q, %k {transpose_b = true} : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x?xf32>
  %s = relay.nn.matmul %q, %k {transpose_b = true} : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: relay.nn.matmul %s, %k : (tensor<?x?xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %o = relay.nn.matmul %s, %k : (tensor<?x?xf32>, tensor<?x64xf32>) -> tensor<?x?xf32>
  func.return %o : tensor<?x?xf32>
}
