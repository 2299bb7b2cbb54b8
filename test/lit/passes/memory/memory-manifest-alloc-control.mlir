// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-tir,memory-manifest-alloc | filecheck %s

// In a function with control flow each kernel call inside a region gets its
// allocation just before it, in the same region (allocated whenever the
// region runs), and no memory.kill is inserted.

// CHECK-LABEL: func.func @main
// CHECK:         relay.if %c : tensor<i1> -> (tensor<4xf32>) {
// CHECK-NEXT:      %a_storage = memory.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:      %a = memory.alloc_tensor %a_storage {offset = 0 : i64} : tensor<4xf32>
// CHECK-NEXT:      memory.invoke_kernel @fused_add ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
// CHECK-NEXT:      relay.yield %a : tensor<4xf32>
// CHECK:         relay.while
// CHECK:           %more = memory.alloc_tensor
// CHECK-NEXT:      memory.invoke_kernel @fused_less
// CHECK-NEXT:      relay.condition %more : tensor<i1>
// CHECK:           %a2 = memory.alloc_tensor
// CHECK-NEXT:      memory.invoke_kernel @fused_multiply
// CHECK-NEXT:      relay.yield %next, %a2 : tensor<i64>, tensor<4xf32>
// CHECK-NOT:     memory.kill
// CHECK:         func.return %acc
func.func @main(%c: tensor<i1>, %x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  %r = relay.if %c : tensor<i1> -> (tensor<4xf32>) {
    %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    relay.yield %a : tensor<4xf32>
  } else {
    relay.yield %x : tensor<4xf32>
  }
  %zero = relay.const dense<0> : tensor<i64>
  %one = relay.const dense<1> : tensor<i64>
  %i, %acc = relay.while %zero, %r : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
  ^bb0(%i0: tensor<i64>, %a0: tensor<4xf32>):
    %more = relay.less %i0, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    relay.condition %more : tensor<i1>
  } do {
  ^bb0(%i1: tensor<i64>, %a1: tensor<4xf32>):
    %next = relay.add %i1, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %a2 = relay.multiply %a1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    relay.yield %next, %a2 : tensor<i64>, tensor<4xf32>
  }
  func.return %acc : tensor<4xf32>
}
