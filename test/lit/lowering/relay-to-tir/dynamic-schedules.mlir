// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// The x86 schedules of dynamic kernels (xtvm/topi/x86/dynamic.py): the loops
// above the row are fused (a dynamic batch with the static loops inside it)
// and run in parallel, a static row is vectorized, and a row of run-time
// extent is split into vector-wide chunks and a scalar tail.

// CHECK-LABEL: tir.prim_func @fused_reshape(%p0: memref<?x3x4xf32>, %T_reshape: memref<?x12xf32>)
// CHECK:         tir.for %i0 = %c0 to %p0_n0 kind "parallel" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c12 kind "vectorized" {

// The dynamic axis last: chunks of 16 lanes, then the tail.
// CHECK-LABEL: tir.prim_func @fused_transpose(%p0: memref<?x3x4xf32>, %T_transpose: memref<4x3x?xf32>) attributes {arg_names = ["p0", "T_transpose"], tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 1, 2>]}} {
// CHECK:         tir.for %i0_i1_fused = %c0 to %c12 kind "parallel" {
// CHECK-NEXT:      %i0 = arith.divui %i0_i1_fused, %c3 : index
// CHECK-NEXT:      %i1 = arith.remui %i0_i1_fused, %c3 : index
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %p0_n0, %c16 : index
// CHECK-NEXT:      %[[END:.*]] = arith.muli %[[Q]], %c16 : index
// CHECK-NEXT:      tir.for %i2.0 = %c0 to %[[Q]] kind "serial" {
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %i2.0, %c16 : index
// CHECK-NEXT:        tir.for %i2.1 = %c0 to %c16 kind "vectorized" {
// CHECK-NEXT:          %i2 = arith.addi %[[BASE]], %i2.1 : index
// CHECK-NEXT:          %[[V:.*]] = tir.load %p0[%i2, %i1, %i0] : memref<?x3x4xf32>
// CHECK-NEXT:          tir.store %[[V]], %T_transpose[%i0, %i1, %i2] : memref<4x3x?xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for %i2.t = %[[END]] to %p0_n0 kind "serial" {
// CHECK-NEXT:        %[[T:.*]] = tir.load %p0[%i2.t, %i1, %i0] : memref<?x3x4xf32>
// CHECK-NEXT:        tir.store %[[T]], %T_transpose[%i0, %i1, %i2.t] : memref<4x3x?xf32>
// CHECK-NEXT:      }

// CHECK-LABEL: tir.prim_func @fused_exp(%p0: memref<?x40xf32>, %T_exp: memref<?x40xf32>)
// CHECK:         tir.for %i0 = %c0 to %p0_n0 kind "parallel" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c40 kind "vectorized" {
func.func @main(%x: tensor<?x3x4xf32>, %y: tensor<?x40xf32>) -> (tensor<?x12xf32>, tensor<4x3x?xf32>, tensor<?x40xf32>) {
  %r = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %t = relay.transpose %x {axes = array<i64: 2, 1, 0>} : (tensor<?x3x4xf32>) -> tensor<4x3x?xf32>
  %e = relay.exp %y : tensor<?x40xf32>
  func.return %r, %t, %e : tensor<?x12xf32>, tensor<4x3x?xf32>, tensor<?x40xf32>
}
