// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Comparisons, logical and bitwise ops, shifts and where round-trip through
// their custom and generic forms.

// Comparisons broadcast and give bool tensors, for any element type.
// CHECK-LABEL: func.func @compare
func.func @compare(%x: tensor<4x3xf32>, %y: tensor<3xf32>, %b: tensor<3xi1>) -> tensor<4x3xi1> {
  // CHECK: relay.equal %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %a = relay.equal %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK-NEXT: relay.not_equal %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %c = relay.not_equal %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK-NEXT: relay.less %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %d = relay.less %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK-NEXT: relay.less_equal %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %e = relay.less_equal %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK-NEXT: relay.greater %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %f = relay.greater %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK-NEXT: relay.greater_equal %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %g = relay.greater_equal %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK-NEXT: relay.equal %{{.*}}, %{{.*}} : (tensor<4x3xi1>, tensor<3xi1>) -> tensor<4x3xi1>
  %h = relay.equal %g, %b : (tensor<4x3xi1>, tensor<3xi1>) -> tensor<4x3xi1>
  func.return %h : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @logical
func.func @logical(%a: tensor<2x3xi1>, %b: tensor<3xi1>) -> tensor<2x3xi1> {
  // CHECK: relay.logical_and %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %c = relay.logical_and %a, %b : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: relay.logical_or %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %d = relay.logical_or %c, %b : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: relay.logical_xor %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %e = relay.logical_xor %d, %a : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: relay.logical_not %{{.*}} : tensor<2x3xi1>
  %f = relay.logical_not %e : tensor<2x3xi1>
  func.return %f : tensor<2x3xi1>
}

// Bitwise ops and shifts take signed and unsigned integers.
// CHECK-LABEL: func.func @bitwise
func.func @bitwise(%x: tensor<3x4xui8>, %y: tensor<4xui8>, %i: tensor<5xi64>) -> tensor<3x4xui8> {
  // CHECK: relay.bitwise_and %{{.*}}, %{{.*}} : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  %a = relay.bitwise_and %x, %y : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  // CHECK-NEXT: relay.bitwise_or %{{.*}}, %{{.*}} : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  %b = relay.bitwise_or %a, %y : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  // CHECK-NEXT: relay.bitwise_xor %{{.*}}, %{{.*}} : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  %c = relay.bitwise_xor %b, %y : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  // CHECK-NEXT: relay.bitwise_not %{{.*}} : tensor<3x4xui8>
  %d = relay.bitwise_not %c : tensor<3x4xui8>
  // CHECK-NEXT: relay.left_shift %{{.*}}, %{{.*}} : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  %e = relay.left_shift %d, %y : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
  // CHECK-NEXT: relay.right_shift %{{.*}}, %{{.*}} : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %f = relay.right_shift %i, %i : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  func.return %e : tensor<3x4xui8>
}

// The condition and both values broadcast together.
// CHECK-LABEL: func.func @where
func.func @where(%c: tensor<2x1xi1>, %x: tensor<3xf32>, %y: tensor<f32>) -> tensor<2x3xf32> {
  // CHECK: relay.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %z = relay.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %z : tensor<2x3xf32>
}
