// RUN: xtvm-opt %s -p vm-manifest-dynamic-alloc --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p vm-manifest-dynamic-alloc,memory-manifest-alloc,memory-plan,convert-memory-to-vm --split-input-file | filecheck %s --check-prefix=VM

// A kernel call with a ? result: its shape is read off the input that
// shares its shape variable (tir.shape_vars: p0_n0 is axis 0 of argument 0
// and of argument 2, the result), its storage and tensor allocated at run
// time; the static call after it is left to memory-manifest-alloc. The
// dynamic tensor is killed after its last use.
// CHECK-LABEL: func.func @main(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %a_shape = vm.shape_from %x {dims = array<i64: 0, 0, -1, 4>} : (tensor<?x4xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %a_storage = vm.alloc_storage shape(%a_shape : tensor<2xi64>) {alignment = 64 : i64, dtype_hint = f32} : !vm.storage
// CHECK-NEXT:    %a = vm.alloc_tensor %a_storage shape(%a_shape : tensor<2xi64>) {offset = 0 : i64} : tensor<?x4xf32>
// CHECK-NEXT:    vm.kill %a_storage : !vm.storage
// CHECK-NEXT:    memory.invoke_kernel @addw ins(%x, %w : tensor<?x4xf32>, tensor<4xf32>) outs(%a : tensor<?x4xf32>)
// CHECK-NEXT:    %b = relay.call_lowered @sum(%a) : (tensor<?x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    vm.kill %a : tensor<?x4xf32>
// CHECK-NEXT:    func.return %b : tensor<4xf32>

// On to the vm: the static result planned as usual, the dynamic one as above.
// VM-LABEL: vm.func @main
// VM:         vm.alloc_tensor %a_storage shape(%a_shape : tensor<2xi64>)
// VM:         vm.invoke_packed @addw
// VM:         %b = vm.alloc_tensor %b_storage {offset = 0 : i64} : tensor<4xf32>
// VM:         vm.invoke_packed @sum ins(%a : tensor<?x4xf32>) outs(%b : tensor<4xf32>)
// VM:         vm.ret %b : tensor<4xf32>
tir.prim_func @addw(%p0: memref<?xf32>, %p1: memref<4xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "p1", "out"], tir.shape_vars = {p0_n0 = [array<i64: 0, 0>, array<i64: 2, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: 4>, array<i64: -1, 4>]} {
  tir.return
}
tir.prim_func @sum(%p0: memref<?xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {p0_n0 = [array<i64: 0, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: 4>]} {
  tir.return
}
func.func @main(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.call_lowered @addw(%x, %w) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %b = relay.call_lowered @sum(%a) : (tensor<?x4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
