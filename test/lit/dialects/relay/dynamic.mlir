// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// The data-dependent ops and their shape functions round-trip: each op's
// result has ? where the size depends on values, and takes the shape op's
// result as its last operand(s).
// CHECK-LABEL: func.func @ops
// CHECK-NEXT:    %s = relay.nonzero_shape %x : (tensor<3x4xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
// CHECK-NEXT:    %t = relay.compress_shape %x, %c {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<2xi64>
// CHECK-NEXT:    %z = relay.compress %x, %c, %t {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi1>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK-NEXT:    %f = relay.compress_shape %x, %c : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<1xi64>
// CHECK-NEXT:    %g = relay.compress %x, %c, %f : (tensor<3x4xf32>, tensor<3xi1>, tensor<1xi64>) -> tensor<?xf32>
// CHECK-NEXT:    %u0, %u1, %u2, %u3 = relay.unique_shape %x {axis = 1 : i64, is_sorted = false} : (tensor<3x4xf32>) -> (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
// CHECK-NEXT:    %uy, %ui, %uv, %uc = relay.unique %x, %u0, %u1, %u2, %u3 {axis = 1 : i64, is_sorted = false} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>)
// CHECK-NEXT:    %n = relay.non_max_suppression_shape %b, %sc, %m, %i, %th {center_point_box = true} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %r = relay.non_max_suppression %b, %sc, %m, %i, %th, %n {center_point_box = true} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>, tensor<2xi64>) -> tensor<?x3xi64>
func.func @ops(%x: tensor<3x4xf32>, %c: tensor<3xi1>, %b: tensor<1x6x4xf32>, %sc: tensor<1x2x6xf32>, %m: tensor<1xi64>, %i: tensor<1xf32>, %th: tensor<1xf32>) -> (tensor<2x?xi64>, tensor<?x4xf32>, tensor<?xf32>, tensor<3x?xf32>, tensor<?x3xi64>) {
  %s = relay.nonzero_shape %x : (tensor<3x4xf32>) -> tensor<2xi64>
  %y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
  %t = relay.compress_shape %x, %c {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<2xi64>
  %z = relay.compress %x, %c, %t {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi1>, tensor<2xi64>) -> tensor<?x4xf32>
  %f = relay.compress_shape %x, %c : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<1xi64>
  %g = relay.compress %x, %c, %f : (tensor<3x4xf32>, tensor<3xi1>, tensor<1xi64>) -> tensor<?xf32>
  %u0, %u1, %u2, %u3 = relay.unique_shape %x {axis = 1 : i64, is_sorted = false} : (tensor<3x4xf32>) -> (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
  %uy, %ui, %uv, %uc = relay.unique %x, %u0, %u1, %u2, %u3 {axis = 1 : i64, is_sorted = false} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>)
  %n = relay.non_max_suppression_shape %b, %sc, %m, %i, %th {center_point_box = true} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<2xi64>
  %r = relay.non_max_suppression %b, %sc, %m, %i, %th, %n {center_point_box = true} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>, tensor<2xi64>) -> tensor<?x3xi64>
  func.return %y, %z, %g, %uy, %r : tensor<2x?xi64>, tensor<?x4xf32>, tensor<?xf32>, tensor<3x?xf32>, tensor<?x3xi64>
}
