// RUN: xtvm-opt %s -p vm-manifest-dynamic-alloc,vm-share-dynamic-storage --split-input-file | filecheck %s
// RUN: xtvm-opt %s -p vm-manifest-dynamic-alloc,vm-share-dynamic-storage,memory-manifest-alloc,memory-plan,convert-memory-to-vm --split-input-file | filecheck %s --check-prefix=VM
// Storage sharing for tensors of run-time shape: %c (?x4 from %x's ?)
// takes the storage of %a (?x8 of the same ?, dead after %b's kernel): 32
// bytes per row against 16, one class of extents. %b cannot take it (%a is
// alive while %b is computed); %d (?x16, 64 bytes per row) fits in no dead
// storage; %e (?x? of %x's ? and %y's) has other classes; %f is returned
// and keeps its own storage. The shared storage is killed after its last
// tensor.
// CHECK-LABEL: func.func @main
// CHECK:         %a_storage = vm.alloc_storage shape(%a_shape : tensor<2xi64>)
// CHECK-NEXT:    %a = vm.alloc_tensor %a_storage shape(%a_shape : tensor<2xi64>)
// CHECK-NOT:     vm.kill %a_storage
// CHECK:         memory.invoke_kernel @k8
// CHECK:         %b_storage = vm.alloc_storage shape(%b_shape : tensor<2xi64>)
// CHECK:         memory.invoke_kernel @k4 ins(%a : tensor<?x8xf32>) outs(%b : tensor<?x4xf32>)
// CHECK-NEXT:    vm.kill %a : tensor<?x8xf32>
// CHECK-NEXT:    %c_shape = vm.shape_from %b
// CHECK-NEXT:    %c = vm.alloc_tensor %a_storage shape(%c_shape : tensor<2xi64>) {offset = 0 : i64} : tensor<?x4xf32>
// CHECK-NEXT:    vm.kill %a_storage : !vm.storage
// CHECK-NEXT:    memory.invoke_kernel @k4b ins(%b : tensor<?x4xf32>) outs(%c : tensor<?x4xf32>)
// CHECK:         %d_storage = vm.alloc_storage shape(%d_shape : tensor<2xi64>)
// CHECK:         %e_storage = vm.alloc_storage shape(%e_shape : tensor<2xi64>)
// CHECK:         %f_storage = vm.alloc_storage shape(%f_shape : tensor<2xi64>)
// CHECK:         func.return %f

// On the vm: %c allocated in %a's storage.
// VM-LABEL: vm.func @main
// VM:         %c = vm.alloc_tensor %a_storage shape(%c_shape : tensor<2xi64>)
// VM:         vm.invoke_packed @k4b ins(%b : tensor<?x4xf32>) outs(%c : tensor<?x4xf32>)
tir.prim_func @k8(%p0: memref<?xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: -1, 8>]} {
  tir.return
}
tir.prim_func @k4(%p0: memref<?xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: -1, 8>, array<i64: -1, 4>]} {
  tir.return
}
tir.prim_func @k4b(%p0: memref<?xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: -1, 4>]} {
  tir.return
}
tir.prim_func @k16(%p0: memref<?xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: -1, 16>]} {
  tir.return
}
tir.prim_func @outer(%p0: memref<?xf32>, %p1: memref<?xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "p1", "out"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 2, 0>], m = [array<i64: 1, 0>, array<i64: 2, 1>]}, tir.buffer_shapes = [array<i64: -1, 16>, array<i64: -1>, array<i64: -1, -1>]} {
  tir.return
}
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?xf32>) -> tensor<?x4xf32> {
  %a = relay.call_lowered @k8(%x) : (tensor<?x4xf32>) -> tensor<?x8xf32>
  %b = relay.call_lowered @k4(%a) : (tensor<?x8xf32>) -> tensor<?x4xf32>
  %c = relay.call_lowered @k4b(%b) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %d = relay.call_lowered @k16(%c) : (tensor<?x4xf32>) -> tensor<?x16xf32>
  %e = relay.call_lowered @outer(%d, %y) : (tensor<?x16xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %f = relay.call_lowered @k4b(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %f : tensor<?x4xf32>
}

// -----

// A dynamic tensor read by a static kernel (still a relay.call_lowered
// here, allocated later by memory-manifest-alloc) frees its storage as well:
// %b takes %a's.
// CHECK-LABEL: func.func @main
// CHECK:         %a_storage = vm.alloc_storage shape(%a_shape : tensor<2xi64>)
// CHECK:         %s = relay.call_lowered @total(%a)
// CHECK-NEXT:    vm.kill %a : tensor<?x4xf32>
// CHECK-NEXT:    %b_shape = vm.shape_from %x
// CHECK-NEXT:    %b = vm.alloc_tensor %a_storage shape(%b_shape : tensor<2xi64>)
// VM-LABEL: vm.func @main
// VM:         %b = vm.alloc_tensor %a_storage shape(%b_shape : tensor<2xi64>)
tir.prim_func @k4b(%p0: memref<?xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: -1, 4>]} {
  tir.return
}
tir.prim_func @total(%p0: memref<?xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 0, 0>]}, tir.buffer_shapes = [array<i64: -1, 4>, array<i64: 4>]} {
  tir.return
}
func.func @main(%x: tensor<?x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = relay.call_lowered @k4b(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = relay.call_lowered @total(%a) : (tensor<?x4xf32>) -> tensor<4xf32>
  %b = relay.call_lowered @k4b(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %t = relay.call_lowered @total(%b) : (tensor<?x4xf32>) -> tensor<4xf32>
  func.return %s, %t : tensor<4xf32>, tensor<4xf32>
}
