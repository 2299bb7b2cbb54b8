// RUN: xtvm-opt %s -p 'convert-relay-to-tir{partial=true categories=tensor schedules=false}' | filecheck %s
// A partial conversion: only the tensor category's patterns run
// (categories=tensor), and what no pattern lowers stays where it is
// (partial=true): relay.nn.relu in the graph, the primitive function holding
// one and the func.call of it. The ops that have a pattern are lowered
// around them, each to its own kernel.

// CHECK-LABEL: func.func private @fused_nn_relu(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK-NEXT:    %0 = relay.nn.relu %p0 : tensor<4xf32>
// CHECK-NEXT:    func.return %0 : tensor<4xf32>
func.func private @fused_nn_relu(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  %0 = relay.nn.relu %p0 : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK-LABEL: tir.prim_func @fused_add(%p0: memref<4xf32>, %p1: memref<4xf32>, %T_add: memref<4xf32>)
// CHECK:         arith.addf
// CHECK-LABEL: tir.prim_func @fused_exp(%p0: memref<4xf32>, %T_exp: memref<4xf32>)
// CHECK:         math.exp

// CHECK-LABEL: func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %a = relay.call_lowered @fused_add(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %r = relay.nn.relu %a : tensor<4xf32>
// CHECK-NEXT:    %f = func.call @fused_nn_relu(%r) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %e = relay.call_lowered @fused_exp(%f) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %e : tensor<4xf32>
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %a : tensor<4xf32>
  %f = func.call @fused_nn_relu(%r) : (tensor<4xf32>) -> tensor<4xf32>
  %e = relay.exp %f : tensor<4xf32>
  func.return %e : tensor<4xf32>
}
