// RUN: xtvm-opt %s -p convert-memory-to-vm | filecheck %s
// RUN: xtvm-opt %s -p convert-memory-to-vm | xtvm-opt | filecheck %s

// The planned graph function of two kernels becomes a vm.func, one vm op
// per memory op (LowerGraphFunction, LowerConst, LowerAllocStorage,
// LowerAllocTensor, LowerInvokeKernel, LowerKill, LowerReturn). The
// returned %b gets a storage of its own (so each call's result is a fresh
// array while the arena is reused); the kernels stay tir.prim_funcs.

// CHECK:       tir.prim_func @addw
// CHECK:       tir.prim_func @neg
// CHECK-LABEL: vm.func @main(%x: tensor<4xf32> {relay.name = "x"}) -> (tensor<4xf32> {relay.name = "y"})
// CHECK-NEXT:    %arena = vm.alloc_storage {alignment = 64 : i64, size = 64 : i64} : !vm.storage
// CHECK-NEXT:    %w = vm.load_const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %a = vm.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
// CHECK-NEXT:    vm.invoke_packed @addw ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>)
// CHECK-NEXT:    %b_storage = vm.alloc_storage {alignment = 64 : i64, size = 16 : i64, dtype_hint = f32} : !vm.storage
// CHECK-NEXT:    %b = vm.alloc_tensor %b_storage {offset = 0 : i64} : tensor<4xf32>
// CHECK-NEXT:    vm.invoke_packed @neg ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>)
// CHECK-NEXT:    vm.kill %a : tensor<4xf32>
// CHECK-NEXT:    vm.ret %b : tensor<4xf32>
// CHECK-NEXT:  }
tir.prim_func @addw(%p0: memref<4xf32>, %p1: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "p1", "out"]} {
  tir.return
}
tir.prim_func @neg(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
func.func @main(%x: tensor<4xf32> {relay.name = "x"}) -> (tensor<4xf32> {relay.name = "y"}) attributes {memory.planned_bytes = 64 : i64, memory.naive_bytes = 128 : i64} {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %w = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @addw ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>)
  %b = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @neg ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>)
  memory.kill %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
