// RUN: xtvm-opt %s -p 'relay-merge-composite{targets=dnnl}' | filecheck %s
// Merging again changes nothing:
// RUN: xtvm-opt %s -p 'relay-merge-composite{targets=dnnl},relay-merge-composite{targets=dnnl}' | filecheck %s
// The ccompiler codegen has no composite patterns:
// RUN: xtvm-opt %s -p 'relay-merge-composite{targets=ccompiler}' | filecheck %s --check-prefix=NONE

// conv2d + bias_add + relu is one composite (dnnl.conv2d_bias_relu), not
// conv2d + bias_add (dnnl.conv2d_bias) followed by a relu: the biggest
// pattern is tried first over the whole module.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NEXT: %r = func.call @composite_dnnl_conv2d_bias_relu(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT: func.return %r
// NONE-LABEL: func.func @conv_bias_relu
// NONE-NEXT: relay.nn.conv2d
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.nn.bias_add %c, %b : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %a : tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func private @composite_dnnl_conv2d_bias_relu(%p0: tensor<1x3x8x8xf32>, %p1: tensor<4x3x3x3xf32>, %p2: tensor<4xf32>) -> tensor<1x4x6x6xf32> attributes {relay.composite = "dnnl.conv2d_bias_relu"} {
// CHECK-NEXT: %c = relay.nn.conv2d %p0, %p1
// CHECK-NEXT: %a = relay.nn.bias_add %c, %p2
// CHECK-NEXT: %r = relay.nn.relu %a
// CHECK-NEXT: func.return %r

// ResNet's block end: conv2d, a per-channel bias added with relay.add
// (shape [C, 1, 1]), the residual (same shape, either operand) and relu:
// dnnl.conv2d_bias_sum_relu.
// CHECK-LABEL: func.func @conv_add_sum_relu
// CHECK-NEXT: %r = func.call @composite_dnnl_conv2d_bias_sum_relu(%x, %w, %b, %res)
// CHECK-NEXT: func.return %r
func.func @conv_add_sum_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>, %res: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.add %c, %b : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %s = relay.add %res, %a : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %s : tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func private @composite_dnnl_conv2d_bias_sum_relu(
// CHECK-SAME: relay.composite = "dnnl.conv2d_bias_sum_relu"
// CHECK-NEXT: relay.nn.conv2d %p0, %p1
// CHECK-NEXT: %a = relay.add %c, %p2
// CHECK-NEXT: relay.add %p3, %a
// CHECK-NEXT: relay.nn.relu

// Near miss: an add of a [1, 6] value is no per-channel bias of a conv2d's
// [1, 4, 6, 6] result, so only conv2d stays (no composite matches it alone).
// CHECK-LABEL: func.func @conv_add_not_bias
// CHECK-NEXT: relay.nn.conv2d
// CHECK-NEXT: relay.add
// CHECK-NEXT: func.return
func.func @conv_add_not_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x6xf32>) -> tensor<1x4x6x6xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.add %c, %b : (tensor<1x4x6x6xf32>, tensor<1x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %a : tensor<1x4x6x6xf32>
}

// The conv2d result is used outside the match (by the return), so
// conv2d + bias_add cannot be outlined; conv2d and relu alone can
// (dnnl.conv2d_relu does not apply either: relu reads the bias_add).
// CHECK-LABEL: func.func @inner_result_escapes
// CHECK-NEXT: %c = relay.nn.conv2d
// CHECK-NEXT: %a = relay.nn.bias_add
// CHECK-NEXT: %r = relay.nn.relu
func.func @inner_result_escapes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.nn.bias_add %c, %b : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %a : tensor<1x4x6x6xf32>
  func.return %r, %c : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// dense + bias_add: dnnl.dense_bias; matmul + add of a [N] bias + relu
// (the MLP's ONNX Gemm/MatMul form): dnnl.matmul_bias_relu.
// CHECK-LABEL: func.func @dense_and_matmul
// CHECK-NEXT: %d = func.call @composite_dnnl_dense_bias(%x, %w, %b)
// CHECK-NEXT: %r = func.call @composite_dnnl_matmul_bias_relu(%d, %v, %c)
func.func @dense_and_matmul(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>, %v: tensor<4x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = relay.nn.dense %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %d = relay.nn.bias_add %e, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %m = relay.nn.matmul %d, %v : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %a = relay.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.nn.relu %a : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-DAG: relay.composite = "dnnl.dense_bias"
// CHECK-DAG: relay.composite = "dnnl.matmul_bias_relu"
