// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// det (ONNX Det) round-trips: [..., n, n] -> [...].

// CHECK-LABEL: func.func @det
func.func @det(%x: tensor<3x2x2xf32>, %m: tensor<4x4xf64>) -> tensor<3xf32> {
  // CHECK: relay.det %{{.*}} : (tensor<3x2x2xf32>) -> tensor<3xf32>
  %d = relay.det %x : (tensor<3x2x2xf32>) -> tensor<3xf32>
  // One matrix gives a scalar.
  // CHECK-NEXT: relay.det %{{.*}} : (tensor<4x4xf64>) -> tensor<f64>
  %e = relay.det %m : (tensor<4x4xf64>) -> tensor<f64>
  func.return %d : tensor<3xf32>
}
