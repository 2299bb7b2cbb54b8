// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// An op whose output shape is an input's value: the shape function reads the
// new shape (resolving 0 and -1) into an i64 buffer; the op's kernel has a
// shape variable per output extent, bound by the output buffer, and asserts
// what the shape must satisfy (the element count of a reshape).

// CHECK:      tir.prim_func @fused_dyn_reshape_shape(%p0: memref<2x6xf32>, %p1: memref<3xi64>, %T_reshape_shape: memref<3xi64>)
// CHECK:      tir.prim_func @fused_dyn_reshape(%p0: memref<2x6xf32>, %p1: memref<3xi64>, %T_reshape: memref<?x?x?xf32>) attributes {arg_names = ["p0", "p1", "T_reshape"], tir.shape_vars = {reshape_n0 = [array<i64: 2, 0>], reshape_n1 = [array<i64: 2, 1>], reshape_n2 = [array<i64: 2, 2>]}} {
// CHECK:        %reshape_n0 = tir.shape_var "reshape_n0"
// CHECK:        tir.assert %{{.*}}, "reshape: the new shape must hold 12 elements"
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %s = relay.call_lowered @fused_dyn_reshape_shape(%x, %n) : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT:    %r = relay.call_lowered @fused_dyn_reshape(%x, %s) : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
func.func @main(%x: tensor<2x6xf32>, %n: tensor<3xi64>) -> tensor<?x?x?xf32> {
  %s = relay.dyn.reshape_shape %x, %n : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<3xi64>
  %r = relay.dyn.reshape %x, %s : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  func.return %r : tensor<?x?x?xf32>
}
