// RUN: xtvm-opt %s | xtvm-opt | filecheck %s
// Every vm op prints in its custom format and parses again (static and ? shapes, ADTs, branches).

builtin.module {
  vm.func @main(%x: tensor<2x4xf32> {relay.name = "x"}, %n: tensor<?x4xf32>) -> (tensor<2x4xf32> {relay.name = "y"}) {
    %s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64, dtype_hint = f32} : !vm.storage
    %c = vm.load_consti 3 : i64
    %d = vm.alloc_storage %c : i64 {alignment = 64 : i64} : !vm.storage
    %t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<2x4xf32>
    %shp = vm.shape_of %n : tensor<?x4xf32> -> tensor<2xi64>
    %u = vm.alloc_tensor %d shape(%shp : tensor<2xi64>) {offset = 0 : i64} : tensor<?x4xf32>
    %w = vm.load_const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    vm.invoke_packed @k ins(%x, %w : tensor<2x4xf32>, tensor<4xf32>) outs(%t : tensor<2x4xf32>)
    %r = vm.reshape_tensor %t : tensor<2x4xf32> -> tensor<8xf32>
    %r2 = vm.reshape_tensor %u shape(%shp : tensor<2xi64>) : tensor<?x4xf32> -> tensor<?x4xf32>
    %a = vm.alloc_adt 0 (%t, %r : tensor<2x4xf32>, tensor<8xf32>) : !vm.adt
    %f = vm.get_field %a, 1 : tensor<8xf32>
    %g = vm.get_tag %a : i64
    %e = vm.alloc_adt 1 : !vm.adt
    %sf = vm.shape_from %n, %x {dims = array<i64: 0, 0, 1, 1, -1, 7>} : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<3xi64>
    %ss = vm.alloc_storage shape(%sf : tensor<3xi64>) {alignment = 64 : i64, dtype_hint = f32} : !vm.storage
    vm.kill %u : tensor<?x4xf32>
    %i = vm.invoke @helper(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    vm.if %g : i64, ^bb1(%t : tensor<2x4xf32>), ^bb2
  ^bb1(%v: tensor<2x4xf32>):
    vm.goto ^bb2
  ^bb2:
    vm.ret %t : tensor<2x4xf32>
  }
  vm.func @helper(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    vm.ret %x : tensor<2x4xf32>
  }
}

// CHECK-LABEL: vm.func @main(
// CHECK-SAME: %x: tensor<2x4xf32> {relay.name = "x"}, %n: tensor<?x4xf32>) -> (tensor<2x4xf32> {relay.name = "y"}) {
// CHECK-NEXT: %s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64, dtype_hint = f32} : !vm.storage
// CHECK-NEXT: %c = vm.load_consti 3 : i64
// CHECK-NEXT: %d = vm.alloc_storage %c : i64 {alignment = 64 : i64} : !vm.storage
// CHECK-NEXT: %t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<2x4xf32>
// CHECK-NEXT: %shp = vm.shape_of %n : tensor<?x4xf32> -> tensor<2xi64>
// CHECK-NEXT: %u = vm.alloc_tensor %d shape(%shp : tensor<2xi64>) {offset = 0 : i64} : tensor<?x4xf32>
// CHECK-NEXT: %w = vm.load_const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: vm.invoke_packed @k ins(%x, %w : tensor<2x4xf32>, tensor<4xf32>) outs(%t : tensor<2x4xf32>)
// CHECK-NEXT: %r = vm.reshape_tensor %t : tensor<2x4xf32> -> tensor<8xf32>
// CHECK-NEXT: %r2 = vm.reshape_tensor %u shape(%shp : tensor<2xi64>) : tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK-NEXT: %a = vm.alloc_adt 0(%t, %r : tensor<2x4xf32>, tensor<8xf32>) : !vm.adt
// CHECK-NEXT: %f = vm.get_field %a, 1 : tensor<8xf32>
// CHECK-NEXT: %g = vm.get_tag %a : i64
// CHECK-NEXT: %e = vm.alloc_adt 1 : !vm.adt
// CHECK-NEXT: %sf = vm.shape_from %n, %x {dims = array<i64: 0, 0, 1, 1, -1, 7>} : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<3xi64>
// CHECK-NEXT: %ss = vm.alloc_storage shape(%sf : tensor<3xi64>) {alignment = 64 : i64, dtype_hint = f32} : !vm.storage
// CHECK-NEXT: vm.kill %u : tensor<?x4xf32>
// CHECK-NEXT: %i = vm.invoke @helper(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: vm.if %g : i64, ^bb1(%t : tensor<2x4xf32>), ^bb2
// CHECK-NEXT: ^bb1(%v: tensor<2x4xf32>):
// CHECK-NEXT: vm.goto ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: vm.ret %t : tensor<2x4xf32>
// CHECK-LABEL: vm.func @helper(
// CHECK-SAME: %x: tensor<2x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: vm.ret %x : tensor<2x4xf32>
