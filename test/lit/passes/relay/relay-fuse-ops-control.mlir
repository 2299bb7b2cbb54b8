// RUN: xtvm-opt %s -p relay-fuse-ops | filecheck %s

// relay.if and relay.while are fusion boundaries: they stay in the graph
// function, and the ops of each region fuse among themselves, their
// primitive functions called inside the region (reading outer values).

// CHECK-LABEL: func.func @branches
// CHECK:         %[[R:.*]] = relay.if %c : tensor<i1> -> (tensor<4xf32>) {
// CHECK-NEXT:      %[[T:.*]] = func.call @fused_add_nn_relu(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      relay.yield %[[T]] : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[E:.*]] = func.call @fused_subtract(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      relay.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = func.call @fused_exp(%[[R]])
// CHECK-DAG:   func.func private @fused_add_nn_relu
// CHECK-DAG:   func.func private @fused_subtract
// CHECK-DAG:   func.func private @fused_exp
func.func @branches(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = relay.if %c : tensor<i1> -> (tensor<4xf32>) {
    %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = relay.nn.relu %a : tensor<4xf32>
    relay.yield %b : tensor<4xf32>
  } else {
    %d = relay.subtract %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    relay.yield %d : tensor<4xf32>
  }
  %e = relay.exp %r : tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// CHECK-LABEL: func.func @loop
// CHECK:         relay.while %zero, %x : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
// CHECK:           %[[LESS:.*]] = func.call @fused_less(%{{.*}}, %n)
// CHECK-NEXT:      relay.condition %[[LESS]] : tensor<i1>
// CHECK:         } do {
// CHECK:           func.call @fused_add(
// CHECK:           func.call @fused_multiply_exp(
// CHECK:           relay.yield
func.func @loop(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  %zero = relay.const dense<0> : tensor<i64>
  %one = relay.const dense<1> : tensor<i64>
  %i, %acc = relay.while %zero, %x : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
  ^bb0(%i0: tensor<i64>, %a0: tensor<4xf32>):
    %more = relay.less %i0, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    relay.condition %more : tensor<i1>
  } do {
  ^bb0(%i1: tensor<i64>, %a1: tensor<4xf32>):
    %next = relay.add %i1, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %m = relay.multiply %a1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a2 = relay.exp %m : tensor<4xf32>
    relay.yield %next, %a2 : tensor<i64>, tensor<4xf32>
  }
  func.return %acc : tensor<4xf32>
}
