// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// The axis normalizations keep their operand's type; an axis equal to the
// declared default (-1) is not printed.

// CHECK-LABEL: func.func @axis_norms
func.func @axis_norms(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: relay.nn.softmax %{{.*}} {axis = 1 : i64} : tensor<2x3x4xf32>
  %a = relay.nn.softmax %x {axis = 1 : i64} : tensor<2x3x4xf32>
  // CHECK-NEXT: relay.nn.log_softmax %{{[^ ]*}} : tensor<2x3x4xf32>
  %b = relay.nn.log_softmax %a {axis = -1 : i64} : tensor<2x3x4xf32>
  // CHECK-NEXT: relay.nn.hardmax %{{.*}} {axis = 0 : i64} : tensor<2x3x4xf32>
  %c = relay.nn.hardmax %b {axis = 0 : i64} : tensor<2x3x4xf32>
  func.return %c : tensor<2x3x4xf32>
}
