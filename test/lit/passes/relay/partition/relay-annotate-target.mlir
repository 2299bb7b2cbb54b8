// RUN: xtvm-opt %s -p 'relay-annotate-target{targets=dnnl,ccompiler}' | filecheck %s
// RUN: xtvm-opt %s -p 'relay-annotate-target{targets=ccompiler}' | filecheck %s --check-prefix=CC
// Without targets (and no PassContext config) nothing is marked:
// RUN: xtvm-opt %s -p relay-annotate-target | filecheck %s --check-prefix=NONE

// Each op goes to the first target that takes it: conv2d and relu to dnnl;
// softmax to no one; the constant is never marked.
// CHECK-LABEL: func.func @first_target_wins
// CHECK-NEXT: %w = relay.const dense<{{[0-9.e+-]+}}> : tensor<4x3x3x3xf32>
// CHECK-NEXT: %c = relay.nn.conv2d %x, %w {relay.target = "dnnl"}
// CHECK-NEXT: %r = relay.nn.relu %c {relay.target = "dnnl"}
// CHECK-NEXT: %s = relay.nn.softmax %r : tensor<1x4x6x6xf32>
// CC-LABEL: func.func @first_target_wins
// CC: relay.nn.conv2d %x, %w :
// CC-NEXT: %r = relay.nn.relu %c {relay.target = "ccompiler"}
// NONE-NOT: relay.target
func.func @first_target_wins(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = relay.const dense<0.5> : tensor<4x3x3x3xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : tensor<1x4x6x6xf32>
  %s = relay.nn.softmax %r {axis = -1 : i64} : tensor<1x4x6x6xf32>
  func.return %s : tensor<1x4x6x6xf32>
}

// Rejected for its attributes: dnnl's pooling computes the floor output
// size, so a max_pool2d with ceil_mode = true stays with xtvm while the
// same pool without it is taken.
// CHECK-LABEL: func.func @pool_ceil_mode
// CHECK-NEXT: %a = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT: %b = relay.nn.max_pool2d %x {relay.target = "dnnl", pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
func.func @pool_ceil_mode(%x: tensor<1x4x5x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x2x2xf32>) {
  %a = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  %b = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x2x2xf32>
  func.return %a, %b : tensor<1x4x3x3xf32>, tensor<1x4x2x2xf32>
}

// ccompiler rejects a matmul whose first operand is transposed (an
// attribute) and takes the plain one; dnnl, first in the list, takes both
// only when it can (here: not the transposed one either, so it falls to no one).
// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK-NEXT: %t = relay.nn.matmul %a, %b {transpose_a = true} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %p = relay.nn.matmul %t, %c {relay.target = "dnnl"}
// CC-LABEL: func.func @matmul_transpose_a
// CC-NEXT: %t = relay.nn.matmul %a, %b {transpose_a = true} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CC-NEXT: %p = relay.nn.matmul %t, %c {relay.target = "ccompiler"}
func.func @matmul_transpose_a(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %c: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %t = relay.nn.matmul %a, %b {transpose_a = true} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %p = relay.nn.matmul %t, %c : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  func.return %p : tensor<2x5xf32>
}

// A composite call goes to the codegen its name starts with; a relay.add
// broadcasting its first operand is rejected by dnnl (its binary primitive
// broadcasts the second only) and taken by ccompiler.
// CHECK-LABEL: func.func @composite_and_broadcast
// CHECK-NEXT: %r = func.call @composite_dnnl_conv2d_relu(%x, %w) {relay.target = "dnnl"}
// CHECK-NEXT: %s = relay.add %b, %r {relay.target = "ccompiler"}
func.func @composite_and_broadcast(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %r = func.call @composite_dnnl_conv2d_relu(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %s = relay.add %b, %r : (tensor<4x1x1xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %s : tensor<1x4x6x6xf32>
}
// The composite function's own ops are not marked.
// CHECK-LABEL: func.func private @composite_dnnl_conv2d_relu
// CHECK-NOT: relay.target
// CHECK: func.return
func.func private @composite_dnnl_conv2d_relu(%p0: tensor<1x3x8x8xf32>, %p1: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> attributes {relay.composite = "dnnl.conv2d_relu"} {
  %c = relay.nn.conv2d %p0, %p1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}
