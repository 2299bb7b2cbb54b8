// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Gathers and scatters round-trip through their custom and generic forms.

// CHECK-LABEL: func.func @gathers
func.func @gathers(%x: tensor<2x3x4xf32>, %i: tensor<2x3x2xi64>, %t: tensor<2x5xi32>, %b: tensor<1x2xi64>) -> tensor<2x3x2xf32> {
  // CHECK: relay.gather %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
  %a = relay.gather %x, %i {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
  // Index tuples on the first axis of the indices.
  // CHECK-NEXT: relay.gather_nd %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2x5xi32>) -> tensor<5x4xf32>
  %c = relay.gather_nd %x, %t : (tensor<2x3x4xf32>, tensor<2x5xi32>) -> tensor<5x4xf32>
  // CHECK-NEXT: relay.gather_nd %{{.*}}, %{{.*}} {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<1x2xi64>) -> tensor<2x4xf32>
  %d = relay.gather_nd %x, %b {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<1x2xi64>) -> tensor<2x4xf32>
  func.return %a : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @scatters
func.func @scatters(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>, %t: tensor<1x2xi64>, %v: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // The default reduction, "update", is left out.
  // CHECK: relay.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %a = relay.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "update"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: relay.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, reduction = "max"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %b = relay.scatter_elements %x, %i, %u {axis = -1 : i64, reduction = "max"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: relay.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "add"} : (tensor<3x4xf32>, tensor<1x2xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %c = relay.scatter_nd %x, %t, %v {reduction = "add"} : (tensor<3x4xf32>, tensor<1x2xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return %a : tensor<3x4xf32>
}
