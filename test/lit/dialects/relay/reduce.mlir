// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Reductions and index reductions round-trip; attributes equal to their
// defaults are not printed.

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3x4xi32>) -> tensor<2x1x4xf32> {
  // CHECK: relay.prod %{{.*}} {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %a = relay.prod %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // Every axis when `axis` is absent.
  // CHECK-NEXT: relay.prod %{{.*}} : (tensor<2x3x4xi32>) -> tensor<i32>
  %b = relay.prod %i : (tensor<2x3x4xi32>) -> tensor<i32>
  func.return %a : tensor<2x1x4xf32>
}

// CHECK-LABEL: func.func @arg_reductions
func.func @arg_reductions(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xi64> {
  // The result is always int64.
  // CHECK: relay.argmax %{{.*}} {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %a = relay.argmax %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  // CHECK-NEXT: relay.argmin %{{.*}} {axis = array<i64: -1>, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  %b = relay.argmin %x {axis = array<i64: -1>, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  // Over several axes the index counts row-major over them.
  // CHECK-NEXT: relay.argmax %{{.*}} {axis = array<i64: 0>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  %c = relay.argmax %x {axis = array<i64: 0>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  func.return %a : tensor<2x1x4xi64>
}
