// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-tir,memory-manifest-alloc,memory-plan,convert-memory-to-vm | filecheck %s

// relay.if and relay.while (their bodies fused, lowered and allocated per
// region) become blocks of vm.func @main: the if a vm.if to two branch
// blocks that vm.goto a join block whose arguments are the results; the
// loop a vm.goto to its cond block, whose vm.if enters the body (which
// jumps back with the next carried values) or leaves to the exit block.

// CHECK-LABEL: vm.func @main
// CHECK-NEXT:    vm.if %c : tensor<i1>, ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    %a_storage = vm.alloc_storage
// CHECK-NEXT:    %a = vm.alloc_tensor %a_storage
// CHECK-NEXT:    vm.invoke_packed @fused_add ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
// CHECK-NEXT:    vm.goto ^[[JOIN:.*]](%a : tensor<4xf32>)
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK-NEXT:    vm.goto ^[[JOIN]](%x : tensor<4xf32>)
// CHECK-NEXT:  ^[[JOIN]](%r: tensor<4xf32>):
// CHECK:         vm.goto ^[[COND:.*]](%zero, %r : tensor<i64>, tensor<4xf32>)
// CHECK-NEXT:  ^[[COND]](%i0: tensor<i64>, %a0: tensor<4xf32>):
// CHECK:         vm.invoke_packed @fused_less ins(%i0, %n : tensor<i64>, tensor<i64>) outs(%more : tensor<i1>)
// CHECK-NEXT:    vm.if %more : tensor<i1>, ^[[BODY:.*]](%i0, %a0 : tensor<i64>, tensor<4xf32>), ^[[EXIT:.*]](%i0, %a0 : tensor<i64>, tensor<4xf32>)
// CHECK-NEXT:  ^[[BODY]](%i1: tensor<i64>, %a1: tensor<4xf32>):
// CHECK:         vm.invoke_packed @fused_multiply ins(%a1, %x : tensor<4xf32>, tensor<4xf32>) outs(%a2 : tensor<4xf32>)
// CHECK-NEXT:    vm.goto ^[[COND]](%next, %a2 : tensor<i64>, tensor<4xf32>)
// CHECK-NEXT:  ^[[EXIT]](%i: tensor<i64>, %acc: tensor<4xf32>):
// CHECK-NEXT:    vm.ret %acc : tensor<4xf32>
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
