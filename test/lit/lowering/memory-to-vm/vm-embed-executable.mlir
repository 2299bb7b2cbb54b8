// RUN: xtvm-opt %s -p vm-embed-executable | filecheck %s
// RUN: xtvm-opt %s -p vm-embed-executable,llvm-embed-metadata,convert-tir-to-llvm | filecheck %s --check-prefix=FULL

// The vm functions become the executable's bytes, an exported 64-byte
// aligned constant global (printed as a blob that starts with the magic
// "XTVMVMEX", hex 5854564D564D4558, then version 1); the kernels stay for
// the kernel library.
// CHECK-NOT:   vm.func
// CHECK:       tir.prim_func @neg
// CHECK-NOT:   vm.func
// CHECK:       llvm.mlir.global external constant @__xtvm_vm_executable(dense_resource<__xtvm_vm_executable> : tensor<{{[0-9]+}}xi8>) {{.*}}alignment = 64 : i64
// CHECK:       __xtvm_vm_executable: "0x{{[0-9A-F][0-9A-F][0-9A-F][0-9A-F][0-9A-F][0-9A-F][0-9A-F][0-9A-F]}}5854564D564D455801000000

// The kernel library: the kernel's packed entry, the executable and the
// metadata describing the kernel.
// FULL:        llvm.func @neg(
// FULL:        llvm.mlir.global external constant @__xtvm_vm_executable
// FULL:        llvm.mlir.global external constant @__xtvm_metadata(
tir.prim_func @neg(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
vm.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = vm.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !vm.storage
  %y = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  vm.invoke_packed @neg ins(%x : tensor<4xf32>) outs(%y : tensor<4xf32>)
  vm.ret %y : tensor<4xf32>
}
