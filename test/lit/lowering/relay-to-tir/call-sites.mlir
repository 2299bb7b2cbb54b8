// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s --check-prefix=GONE
// Call sites: every func.call of a primitive function becomes
// relay.call_lowered; a tuple result is rebuilt from the kernel's outputs;
// the primitive func.func ops disappear.

// GONE-NOT: relay.primitive
// GONE-NOT: func.call @fused

// A scalar constant in a primitive function is an immediate; a tuple result
// gives one output argument per field, and the second output reads the first.
// CHECK-LABEL: tir.prim_func @fused_multiply_add(%p0: memref<4xf32>, %T_multiply: memref<4xf32>, %T_add: memref<4xf32>) attributes {arg_names = ["p0", "T_multiply", "T_add"]} {
// CHECK:         %cst = arith.constant 2.000000e+00 : f32
// CHECK:         tir.for %i0 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:      %[[X:.*]] = tir.load %p0[%i0] : memref<4xf32>
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %cst : f32
// CHECK-NEXT:      tir.store %[[M]], %T_multiply[%i0] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %[[I:.*]] = %c0 to %c4 kind "serial" {
// CHECK-NEXT:      tir.load %T_multiply[%[[I]]] : memref<4xf32>
func.func private @fused_multiply_add(%p0: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> attributes {relay.primitive} {
  %c = relay.const dense<2.0> : tensor<f32>
  %0 = relay.multiply %p0, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = relay.add %0, %p0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = relay.tuple %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  func.return %t : tuple<tensor<4xf32>, tensor<4xf32>>
}

// Returning an argument as is copies it into the output.
// CHECK-LABEL: tir.prim_func @fused_copy(%p0: memref<4xf32>, %T_output0: memref<4xf32>)
// CHECK:           %[[V:.*]] = tir.load %p0[%i0] : memref<4xf32>
// CHECK-NEXT:      tir.store %[[V]], %T_output0[%i0] : memref<4xf32>
func.func private @fused_copy(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  func.return %p0 : tensor<4xf32>
}

// A graph function called from main is not primitive: its ops are lowered in place.
// CHECK-LABEL: tir.prim_func @fused_nn_relu(%p0: memref<4xf32>, %T_relu: memref<4xf32>)
// CHECK-LABEL: func.func @helper(%y: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[R:.*]] = relay.call_lowered @fused_nn_relu(%y) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func @helper(%y: tensor<4xf32>) -> tensor<4xf32> {
  %r = relay.nn.relu %y : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = relay.call_lowered @fused_multiply_add(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[T:.*]] = relay.tuple %[[A]], %[[B]] : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
// CHECK-NEXT:    %[[G:.*]] = relay.tuple_get %[[T]] {index = 1 : i64}
// CHECK-NEXT:    %[[C1:.*]] = relay.call_lowered @fused_copy(%[[G]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[C2:.*]] = relay.call_lowered @fused_copy(%[[C1]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[H:.*]] = func.call @helper(%[[C2]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = relay.call_lowered @kernel(%[[H]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[K]] : tensor<4xf32>
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = func.call @fused_multiply_add(%x) : (tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %a = relay.tuple_get %t {index = 1 : i64} : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %b = func.call @fused_copy(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @fused_copy(%b) : (tensor<4xf32>) -> tensor<4xf32>
  %h = func.call @helper(%c) : (tensor<4xf32>) -> tensor<4xf32>
  // An existing call_lowered is left alone.
  %k = relay.call_lowered @kernel(%h) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %k : tensor<4xf32>
}

tir.prim_func @kernel(%A: memref<4xf32>, %B: memref<4xf32>) {
  tir.return
}
