// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// A reshape whose newshape copies (0) leading `?` axes keeps them as the
// input's shape variables and reshapes the rest row by row: the heads split
// and merge of attention with a `?` batch and a `?` sequence length.

// CHECK-LABEL: tir.prim_func @fused_reshape(%p0: memref<?x?x64xf32>, %T_reshape: memref<?x?x4x16xf32>) attributes {arg_names = ["p0", "T_reshape"], tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 1, 0>], p0_n1 = [array<i64: 0, 1>, array<i64: 1, 1>]}} {
// CHECK:         %p0_n0 = tir.shape_var "p0_n0"
// CHECK:         %p0_n1 = tir.shape_var "p0_n1"
// CHECK:         tir.for %i0 = %c0 to %p0_n0 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %p0_n1 kind "serial" {

// CHECK-LABEL: tir.prim_func @fused_reshape_1(%p0: memref<?x?x4x16xf32>, %T_reshape: memref<?x?x64xf32>)
// CHECK-SAME:    tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 1, 0>], p0_n1 = [array<i64: 0, 1>, array<i64: 1, 1>]}

func.func @main(%x: tensor<?x?x64xf32>) -> (tensor<?x?x4x16xf32>, tensor<?x?x64xf32>) {
  %h = relay.reshape %x {newshape = array<i64: 0, 0, 4, 16>} : (tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32>
  %m = relay.reshape %h {newshape = array<i64: 0, 0, -1>} : (tensor<?x?x4x16xf32>) -> tensor<?x?x64xf32>
  func.return %h, %m : tensor<?x?x4x16xf32>, tensor<?x?x64xf32>
}
