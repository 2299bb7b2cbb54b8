// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-tir | filecheck %s
// A softmax along a last axis of run-time extent (attention's 1x4x?x?
// scores): topi.dynamic.softmax_last_axis materializes exp(x - max) once
// (one math.exp per element instead of two), and the x86 dynamic schedule
// runs each stage's static leading loops fused in parallel, with the
// exponentials' and the quotients' rows in vector-wide chunks and a tail.

// CHECK-LABEL: tir.prim_func @fused_nn_softmax(%p0: memref<1x4x?x?xf32>, %T_softmax_norm: memref<1x4x?x?xf32>)
// CHECK:         %T_softmax_maxelem = tir.allocate "global"(%p0_n2) : memref<1x4x?xf32>
// CHECK-NEXT:    tir.for %i0_i1_fused = %c0 to %c4 kind "parallel" {
// CHECK:         %T_softmax_exp = tir.allocate "global"(%p0_n2, %p0_n3) : memref<1x4x?x?xf32>
// CHECK-NEXT:    tir.for %i0_i1_fused_1 = %c0 to %c4 kind "parallel" {
// CHECK:             tir.for %i3.1 = %c0 to %c16 kind "vectorized" {
// CHECK:               math.exp
// CHECK:           tir.for %i3.t = %{{.*}} to %p0_n3 kind "serial" {
// CHECK:               math.exp
// CHECK:         %T_softmax_expsum = tir.allocate "global"(%p0_n2) : memref<1x4x?xf32>
// CHECK-NEXT:    tir.for %i0_i1_fused_2 = %c0 to %c4 kind "parallel" {
// CHECK-NOT:       math.exp
// CHECK:         tir.for %i0_i1_fused_3 = %c0 to %c4 kind "parallel" {
// CHECK:             tir.for %i3.1_1 = %c0 to %c16 kind "vectorized" {
// CHECK-NEXT:          %i3_1 = arith.addi
// CHECK-NEXT:          %[[E:.*]] = tir.load %T_softmax_exp
// CHECK-NEXT:          %[[S:.*]] = tir.load %T_softmax_expsum
// CHECK-NEXT:          arith.divf %[[E]], %[[S]] : f32
// CHECK-NOT:     math.exp
// CHECK:         tir.return

// Along another axis: topi.softmax, exp in the sum and the quotient.
// CHECK-LABEL: tir.prim_func @fused_nn_softmax_1
// CHECK-NOT:     T_softmax_exp =
// CHECK:         math.exp
// CHECK:         math.exp
// CHECK:         tir.return
func.func @main(%x: tensor<1x4x?x?xf32>, %y: tensor<?x8xf32>) -> (tensor<1x4x?x?xf32>, tensor<?x8xf32>) {
  %s = relay.nn.softmax %x {axis = -1 : i64} : tensor<1x4x?x?xf32>
  %t = relay.nn.softmax %y {axis = 0 : i64} : tensor<?x8xf32>
  func.return %s, %t : tensor<1x4x?x?xf32>, tensor<?x8xf32>
}
