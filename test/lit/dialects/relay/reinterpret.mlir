// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// reinterpret (ONNX BitCast) round-trips: same width, another type.

// CHECK-LABEL: func.func @reinterpret
func.func @reinterpret(%x: tensor<2x3xf32>, %b: tensor<4xi1>) -> tensor<2x3xi32> {
  // CHECK: relay.reinterpret %{{.*}} {dtype = "int32"} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %y = relay.reinterpret %x {dtype = "int32"} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // A bool counts as a byte.
  // CHECK-NEXT: relay.reinterpret %{{.*}} {dtype = "uint8"} : (tensor<4xi1>) -> tensor<4xui8>
  %u = relay.reinterpret %b {dtype = "uint8"} : (tensor<4xi1>) -> tensor<4xui8>
  func.return %y : tensor<2x3xi32>
}
