// RUN: xtvm-opt %s -p vm-manifest-value-shapes | filecheck %s
// RUN: xtvm-opt %s -p vm-manifest-value-shapes,vm-manifest-dynamic-alloc,memory-manifest-alloc,memory-plan,convert-memory-to-vm | filecheck %s --check-prefix=VM

// A data-dependent kernel (@nonzero: the count is axis 1 of its output,
// bound by no input) takes its result's shape as its last argument, the
// result of the shape-function kernel @nonzero_shape: the result is
// allocated from that tensor's values, then the kernel is invoked. The
// static shape kernel's call is left to memory-manifest-alloc; the dynamic
// tensor is killed after its last use.
// CHECK-LABEL: func.func @main(%x: tensor<3x4xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %s = relay.call_lowered @nonzero_shape(%x) : (tensor<3x4xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %y_storage = vm.alloc_storage shape(%s : tensor<2xi64>) {alignment = 64 : i64, dtype_hint = i64} : !vm.storage
// CHECK-NEXT:    %y = vm.alloc_tensor %y_storage shape(%s : tensor<2xi64>) {offset = 0 : i64} : tensor<2x?xi64>
// CHECK-NEXT:    vm.kill %y_storage : !vm.storage
// CHECK-NEXT:    memory.invoke_kernel @nonzero ins(%x, %s : tensor<3x4xf32>, tensor<2xi64>) outs(%y : tensor<2x?xi64>)
// CHECK-NEXT:    %m = relay.call_lowered @rowmax(%y) : (tensor<2x?xi64>) -> tensor<2xi64>
// CHECK-NEXT:    vm.kill %y : tensor<2x?xi64>
// CHECK-NEXT:    func.return %m : tensor<2xi64>

// On to the vm: the shape kernel's result is a planned static tensor, read
// as the shape register of the allocation.
// VM-LABEL: vm.func @main
// VM:         vm.invoke_packed @nonzero_shape ins(%x : tensor<3x4xf32>) outs(%s : tensor<2xi64>)
// VM-NEXT:    %y_storage = vm.alloc_storage shape(%s : tensor<2xi64>)
// VM-NEXT:    %y = vm.alloc_tensor %y_storage shape(%s : tensor<2xi64>)
// VM:         vm.invoke_packed @nonzero ins(%x, %s : tensor<3x4xf32>, tensor<2xi64>) outs(%y : tensor<2x?xi64>)
// VM:         vm.ret %m : tensor<2xi64>
tir.prim_func @nonzero_shape(%p0: memref<3x4xf32>, %out: memref<2xi64>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
tir.prim_func @nonzero(%p0: memref<3x4xf32>, %p1: memref<2xi64>, %out: memref<2x?xi64>) attributes {arg_names = ["p0", "p1", "out"], tir.shape_vars = {n = [array<i64: 2, 1>]}} {
  tir.return
}
tir.prim_func @rowmax(%p0: memref<2x?xi64>, %out: memref<2xi64>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {p0_n1 = [array<i64: 0, 1>]}} {
  tir.return
}
func.func @main(%x: tensor<3x4xf32>) -> tensor<2xi64> {
  %s = relay.call_lowered @nonzero_shape(%x) : (tensor<3x4xf32>) -> tensor<2xi64>
  %y = relay.call_lowered @nonzero(%x, %s) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
  %m = relay.call_lowered @rowmax(%y) : (tensor<2x?xi64>) -> tensor<2xi64>
  func.return %m : tensor<2xi64>
}
