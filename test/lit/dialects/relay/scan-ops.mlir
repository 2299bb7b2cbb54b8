// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// cumprod round-trips (ONNX CumProd), with cumsum's attributes.

// CHECK-LABEL: func.func @cumprod
func.func @cumprod(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.cumprod %{{.*}} {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3xf32>
  %a = relay.cumprod %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3xf32>
  // CHECK-NEXT: relay.cumprod %{{.*}} : tensor<2x3xf32>
  %b = relay.cumprod %a : tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}
