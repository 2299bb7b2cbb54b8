// RUN: xtvm-opt %s -p convert-memory-to-vm | filecheck %s

// A function returning a tuple: its results are flattened, as the graph
// executor does (LowerReturn), and the tuple, used by nothing else, goes
// (LowerTuple). A tuple used inside the function becomes vm.alloc_adt and
// its field read vm.get_field (LowerTupleGet).

// CHECK-LABEL: vm.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         %a = vm.alloc_tensor %a_storage {offset = 0 : i64} : tensor<4xf32>
// CHECK:         %t = vm.alloc_adt 0(%x, %a : tensor<4xf32>, tensor<4xf32>) : !vm.adt
// CHECK-NEXT:    %f = vm.get_field %t, 0 : tensor<4xf32>
// CHECK-NEXT:    vm.invoke_packed @neg ins(%f : tensor<4xf32>) outs(%a : tensor<4xf32>)
// CHECK-NOT:     relay.tuple
// CHECK-NEXT:    vm.ret %a, %x : tensor<4xf32>, tensor<4xf32>
tir.prim_func @neg(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
func.func @main(%x: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> {
  %s = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %a = memory.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  %t = relay.tuple %x, %a : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %f = relay.tuple_get %t {index = 0 : i64} : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  memory.invoke_kernel @neg ins(%f : tensor<4xf32>) outs(%a : tensor<4xf32>)
  %r = relay.tuple %a, %f : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  func.return %r : tuple<tensor<4xf32>, tensor<4xf32>>
}
