// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// A data-dependent op lowers to two kernels: its shape function (static
// arguments, the shape written to a small i64 buffer) and the op itself,
// which takes the shape tensor as an argument it does not read and whose
// value-dependent extent is a shape variable bound by its output buffer
// alone (tir.shape_vars lists only the output's axis).

// CHECK:      tir.prim_func @fused_nonzero_shape(%p0: memref<3x4xf32>, %T_nonzero_shape: memref<2xi64>) attributes {arg_names = ["p0", "T_nonzero_shape"]} {
// CHECK:      tir.prim_func @fused_nonzero(%p0: memref<3x4xf32>, %p1: memref<2xi64>, %T_nonzero: memref<2x?xi64>) attributes {arg_names = ["p0", "p1", "T_nonzero"], tir.shape_vars = {nonzero_count = [array<i64: 2, 1>]}} {
// CHECK:        %nonzero_count = tir.shape_var "nonzero_count"
// CHECK:      tir.prim_func @fused_compress_shape(%p0: memref<3x4xf32>, %p1: memref<3xi1>, %T_compress_shape: memref<2xi64>)
// CHECK:      tir.prim_func @fused_compress(%p0: memref<3x4xf32>, %p1: memref<3xi1>, %p2: memref<2xi64>, %T_compress: memref<?x4xf32>) attributes {arg_names = ["p0", "p1", "p2", "T_compress"], tir.shape_vars = {compress_count = [array<i64: 3, 0>]}} {
// CHECK:      tir.prim_func @fused_unique(%p0: memref<6xf32>, %p1: memref<1xi64>, %p2: memref<1xi64>, %p3: memref<1xi64>, %p4: memref<1xi64>, %T_unique_y: memref<?xf32>, %T_unique_indices: memref<?xi64>, %T_unique_inverse: memref<6xi64>, %T_unique_counts: memref<?xi64>)
// CHECK-SAME:   tir.shape_vars = {unique_count = [array<i64: 5, 0>, array<i64: 6, 0>, array<i64: 8, 0>]}

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %s = relay.call_lowered @fused_nonzero_shape(%x) : (tensor<3x4xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %y = relay.call_lowered @fused_nonzero(%x, %s) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
// CHECK-NEXT:    %t = relay.call_lowered @fused_compress_shape(%x, %c) : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<2xi64>
// CHECK-NEXT:    %z = relay.call_lowered @fused_compress(%x, %c, %t) : (tensor<3x4xf32>, tensor<3xi1>, tensor<2xi64>) -> tensor<?x4xf32>
func.func @main(%x: tensor<3x4xf32>, %c: tensor<3xi1>, %v: tensor<6xf32>) -> (tensor<2x?xi64>, tensor<?x4xf32>, tensor<?xf32>) {
  %s = relay.nonzero_shape %x : (tensor<3x4xf32>) -> tensor<2xi64>
  %y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
  %t = relay.compress_shape %x, %c {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<2xi64>
  %z = relay.compress %x, %c, %t {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi1>, tensor<2xi64>) -> tensor<?x4xf32>
  %u0, %u1, %u2, %u3 = relay.unique_shape %v : (tensor<6xf32>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
  %uy, %ui, %uv, %uc = relay.unique %v, %u0, %u1, %u2, %u3 : (tensor<6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  func.return %y, %z, %uy : tensor<2x?xi64>, tensor<?x4xf32>, tensor<?xf32>
}
