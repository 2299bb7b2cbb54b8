// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// Primitive functions equal up to their names and their values' names (a
// ResNet's repeated blocks) lower to one kernel, which every call names;
// a function that differs in a type or an op keeps a kernel of its own.

// CHECK-LABEL: tir.prim_func @fused_add_nn_relu(
// CHECK-NOT:   tir.prim_func @fused_add_nn_relu_1(
// CHECK-LABEL: tir.prim_func @fused_add_nn_relu_2(%p0: memref<8xf32>
// CHECK-NOT:   tir.prim_func @fused_add_nn_relu_1(
// CHECK-LABEL: tir.prim_func @fused_multiply_nn_relu(
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[A:.*]] = relay.call_lowered @fused_add_nn_relu(%x, %x)
// CHECK-NEXT:    %[[B:.*]] = relay.call_lowered @fused_add_nn_relu(%[[A]], %x)
// CHECK-NEXT:    %[[C:.*]] = relay.call_lowered @fused_multiply_nn_relu(%[[B]], %x)
// CHECK-NEXT:    relay.call_lowered @fused_add_nn_relu_2(%y, %y)
func.func private @fused_add_nn_relu(%p0: tensor<4xf32>, %p1: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.nn.relu %0 : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
func.func private @fused_add_nn_relu_1(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  %s = relay.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = relay.nn.relu %s : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
func.func private @fused_add_nn_relu_2(%p0: tensor<8xf32>, %p1: tensor<8xf32>) -> tensor<8xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = relay.nn.relu %0 : tensor<8xf32>
  func.return %1 : tensor<8xf32>
}
func.func private @fused_multiply_nn_relu(%p0: tensor<4xf32>, %p1: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  %0 = relay.multiply %p0, %p1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.nn.relu %0 : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %a = func.call @fused_add_nn_relu(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @fused_add_nn_relu_1(%a, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @fused_multiply_nn_relu(%b, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = func.call @fused_add_nn_relu_2(%y, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %c, %d : tensor<4xf32>, tensor<8xf32>
}
