// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// Relay ops on tensors with a `?` axis lower to kernels with run-time
// extents: each `?` of an input is a shape variable (p<arg>_n<axis>), listed
// in tir.shape_vars with every argument axis it is the extent of, and read
// once with tir.shape_var; loops run to it.

// Two `?x64` operands: their `?` axes are unified (the entry checks they are
// equal at call time), so the kernel has one variable with three axes.
// CHECK-LABEL: tir.prim_func @fused_add(%p0: memref<?x64xf32>, %p1: memref<?x64xf32>, %T_add: memref<?x64xf32>) attributes {arg_names = ["p0", "p1", "T_add"], tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 1, 0>, array<i64: 2, 0>]}} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    %p0_n0 = tir.shape_var "p0_n0"
// CHECK-NEXT:    tir.for %i0 = %c0 to %p0_n0 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c64 kind "serial" {
// CHECK-NEXT:        %[[A:.*]] = tir.load %p0[%i0, %i1] : memref<?x64xf32>
// CHECK-NEXT:        %[[B:.*]] = tir.load %p1[%i0, %i1] : memref<?x64xf32>

// Dense with dynamic rows: the row loop runs to the variable.
// CHECK-LABEL: tir.prim_func @fused_nn_dense(%p0: memref<?x64xf32>, %p1: memref<32x64xf32>, %T_dense: memref<?x32xf32>) attributes {arg_names = ["p0", "p1", "T_dense"], tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 2, 0>]}} {
// CHECK:         tir.for %i0 = %c0 to %p0_n0 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c32 kind "serial" {

// Softmax: its per-row maximum and sum are dynamic global buffers.
// CHECK-LABEL: tir.prim_func @fused_nn_softmax(%p0: memref<?x64xf32>, %T_softmax_norm: memref<?x64xf32>)
// CHECK:         %p0_n0 = tir.shape_var "p0_n0"
// CHECK-NEXT:    %T_softmax_maxelem = tir.allocate "global"(%p0_n0) : memref<?xf32>
// CHECK:         %T_softmax_expsum = tir.allocate "global"(%p0_n0) : memref<?xf32>

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    relay.call_lowered @fused_add(%x, %y) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
func.func @main(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x64xf32>) {
  %a = relay.add %x, %y : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %d = relay.nn.dense %x, %w : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
  %s = relay.nn.softmax %x {axis = -1 : i64} : tensor<?x64xf32>
  func.return %a, %d, %s : tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x64xf32>
}

