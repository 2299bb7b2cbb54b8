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

// The ops whose output shape is an input's value, with their shape functions.
// CHECK-LABEL: func.func @value_shapes
// CHECK-NEXT:    %n = relay.dyn.arange_shape %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1xi64>
// CHECK-NEXT:    %r = relay.dyn.arange %s, %d, %n : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK-NEXT:    %f = relay.dyn.full %s, %shape : (tensor<f32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %bs = relay.dyn.broadcast_to_shape %x, %shape : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT:    %b = relay.dyn.broadcast_to %x, %bs : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %ts = relay.dyn.tile_shape %x, %rep : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<2xi64>
// CHECK-NEXT:    %t = relay.dyn.tile %x, %ts : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    %rs = relay.dyn.reshape_shape %x, %shape {allowzero = true} : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT:    %rr = relay.dyn.reshape %x, %rs : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %ks, %ks_1 = relay.dyn.topk_shape %x, %k {axis = 0 : i64} : (tensor<3x1xf32>, tensor<1xi64>) -> (tensor<2xi64>, tensor<2xi64>)
// CHECK-NEXT:    %v, %i = relay.dyn.topk %x, %ks, %ks_1 {axis = 0 : i64} : (tensor<3x1xf32>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x1xf32>, tensor<?x1xi64>)
func.func @value_shapes(%s: tensor<f32>, %l: tensor<f32>, %d: tensor<f32>, %shape: tensor<3xi64>, %x: tensor<3x1xf32>, %rep: tensor<2xi64>, %k: tensor<1xi64>) -> (tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x1xf32>) {
  %n = relay.dyn.arange_shape %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1xi64>
  %r = relay.dyn.arange %s, %d, %n : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %f = relay.dyn.full %s, %shape : (tensor<f32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %bs = relay.dyn.broadcast_to_shape %x, %shape : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3xi64>
  %b = relay.dyn.broadcast_to %x, %bs : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %ts = relay.dyn.tile_shape %x, %rep : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<2xi64>
  %t = relay.dyn.tile %x, %ts : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %rs = relay.dyn.reshape_shape %x, %shape {allowzero = true} : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3xi64>
  %rr = relay.dyn.reshape %x, %rs : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %ks, %ks_1 = relay.dyn.topk_shape %x, %k {axis = 0 : i64} : (tensor<3x1xf32>, tensor<1xi64>) -> (tensor<2xi64>, tensor<2xi64>)
  %v, %i = relay.dyn.topk %x, %ks, %ks_1 {axis = 0 : i64} : (tensor<3x1xf32>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x1xf32>, tensor<?x1xi64>)
  func.return %r, %f, %b, %t, %rr, %v : tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x1xf32>
}

// A resize by run-time sizes: the resized axes are ?.
// CHECK-LABEL: func.func @resize
// CHECK-NEXT:    %s = relay.dyn.resize_shape %x, %v {axes = array<i64: 2, 3>} : (tensor<1x1x4x4xf32>, tensor<2xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %r = relay.dyn.resize %x, %v, %roi, %s {axes = array<i64: 2, 3>, method = "linear"} : (tensor<1x1x4x4xf32>, tensor<2xi64>, tensor<4xf32>, tensor<4xi64>) -> tensor<1x1x?x?xf32>
func.func @resize(%x: tensor<1x1x4x4xf32>, %v: tensor<2xi64>, %roi: tensor<4xf32>) -> tensor<1x1x?x?xf32> {
  %s = relay.dyn.resize_shape %x, %v {axes = array<i64: 2, 3>} : (tensor<1x1x4x4xf32>, tensor<2xi64>) -> tensor<4xi64>
  %r = relay.dyn.resize %x, %v, %roi, %s {axes = array<i64: 2, 3>, method = "linear"} : (tensor<1x1x4x4xf32>, tensor<2xi64>, tensor<4xf32>, tensor<4xi64>) -> tensor<1x1x?x?xf32>
  func.return %r : tensor<1x1x?x?xf32>
}
