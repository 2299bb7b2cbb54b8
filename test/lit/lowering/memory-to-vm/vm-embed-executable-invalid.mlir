// RUN: not xtvm-opt %s -p vm-embed-executable 2>&1 | filecheck %s

// A vm function calling a kernel the module does not define.
// CHECK: vm-embed-executable: the vm functions call @missing, which the module does not define as tir.prim_func
vm.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = vm.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !vm.storage
  %y = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  vm.invoke_packed @missing ins(%x : tensor<4xf32>) outs(%y : tensor<4xf32>)
  vm.ret %y : tensor<4xf32>
}
