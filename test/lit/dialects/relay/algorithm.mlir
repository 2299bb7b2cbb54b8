// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// topk, cumsum and einsum round-trip.

// CHECK-LABEL: func.func @topk
func.func @topk(%x: tensor<3x4xf32>) -> tensor<3x3xi64> {
  // Two results: the values and their int64 positions.
  // CHECK: %{{.*}}, %{{.*}} = relay.topk %{{.*}} {k = 3 : i64, axis = 1 : i64} : (tensor<3x4xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
  %v, %i = relay.topk %x {k = 3 : i64, axis = 1 : i64} : (tensor<3x4xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
  // CHECK-NEXT: relay.topk %{{.*}} {k = 1 : i64, is_ascend = true} : (tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  %s:2 = relay.topk %x {k = 1 : i64, is_ascend = true} : (tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<3x1xi64>)
  func.return %i : tensor<3x3xi64>
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.cumsum %{{.*}} {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3xi32>
  %a = relay.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3xi32>
  // CHECK-NEXT: relay.cumsum %{{.*}} : tensor<2x3xi32>
  %b = relay.cumsum %a : tensor<2x3xi32>
  func.return %b : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @einsum
func.func @einsum(%a: tensor<5x2x3xf64>, %b: tensor<5x3x4xf64>, %d: tensor<3x5x5xf64>, %v: tensor<5xf64>) -> tensor<5x2x4xf64> {
  // CHECK: relay.einsum %{{.*}}, %{{.*}} {equation = "bij,bjk->bik"} : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
  %m = relay.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
  // A repeated label takes the diagonal; `...` stands for the leading axes.
  // CHECK-NEXT: relay.einsum %{{.*}} {equation = "...ii->...i"} : (tensor<3x5x5xf64>) -> tensor<3x5xf64>
  %g = relay.einsum %d {equation = "...ii->...i"} : (tensor<3x5x5xf64>) -> tensor<3x5xf64>
  // Without `->`, the output is the labels used once: an inner product is a scalar.
  // CHECK-NEXT: relay.einsum %{{.*}}, %{{.*}} {equation = "i,i"} : (tensor<5xf64>, tensor<5xf64>) -> tensor<f64>
  %p = relay.einsum %v, %v {equation = "i,i"} : (tensor<5xf64>, tensor<5xf64>) -> tensor<f64>
  func.return %m : tensor<5x2x4xf64>
}
