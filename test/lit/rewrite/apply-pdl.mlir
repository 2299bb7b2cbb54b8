// RUN: xtvm-opt %s -p 'apply-pdl{pdl_file="%S/../../../patterns/relay_simplify.pdl.mlir"}' | filecheck %s

// relu(relu(x)) -> relu(x)
// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT: %a = relay.nn.relu %x : tensor<2x3xf32>
// CHECK-NEXT: func.return %a
func.func @relu_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = relay.nn.relu %x : tensor<2x3xf32>
  %b = relay.nn.relu %a : tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}

// transpose(transpose(x, [1, 0]), [1, 0]) -> x
// CHECK-LABEL: func.func @transpose_2d_twice
// CHECK-NEXT: func.return %x
func.func @transpose_2d_twice(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = relay.transpose %x {axes = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %u = relay.transpose %t {axes = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return %u : tensor<2x3xf32>
}

// NCHW -> NHWC -> NCHW round trip -> x
// CHECK-LABEL: func.func @layout_round_trip
// CHECK-NEXT: func.return %x
func.func @layout_round_trip(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %n = relay.transpose %x {axes = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %m = relay.transpose %n {axes = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  func.return %m : tensor<1x2x3x4xf32>
}

// The attribute checks hold: other permutations, or a transpose without
// explicit axes, are not matched.
// CHECK-LABEL: func.func @not_matched
// CHECK-NEXT: relay.transpose %x {axes = array<i64: 0, 2, 1>}
// CHECK-NEXT: relay.transpose %{{.*}} {axes = array<i64: 0, 2, 1>}
// CHECK-NEXT: relay.transpose %y :
// CHECK-NEXT: relay.transpose %{{.*}} :
// CHECK-NEXT: func.return
func.func @not_matched(%x: tensor<1x2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<1x2x3xf32>, tensor<2x3xf32>) {
  %a = relay.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<1x2x3xf32>) -> tensor<1x3x2xf32>
  %b = relay.transpose %a {axes = array<i64: 0, 2, 1>} : (tensor<1x3x2xf32>) -> tensor<1x2x3xf32>
  %c = relay.transpose %y : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %d = relay.transpose %c : (tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return %b, %d : tensor<1x2x3xf32>, tensor<2x3xf32>
}
