// RUN: xtvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A block argument with `?` sizes takes a tensor whose sizes are known (the
// join block of a relay.if whose branches yield 3x4 and 2x4 tensors); the
// element type and rank must still agree.

// CHECK-LABEL: vm.func @join
// CHECK:         vm.goto ^{{.*}}(%x : tensor<3x4xf32>)
// CHECK:       ^{{.*}}(%r: tensor<?x4xf32>):
vm.func @join(%c: tensor<i1>, %x: tensor<3x4xf32>, %y: tensor<2x4xf32>) -> tensor<?x4xf32> {
  vm.if %c : tensor<i1>, ^bb1, ^bb2
^bb1:
  vm.goto ^bb3(%x : tensor<3x4xf32>)
^bb2:
  vm.goto ^bb3(%y : tensor<2x4xf32>)
^bb3(%r: tensor<?x4xf32>):
  vm.ret %r : tensor<?x4xf32>
}

// -----

vm.func @rank(%x: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{vm.goto passes (tensor<4xf32>) to a block taking (tensor<?x4xf32>)}}
  vm.goto ^bb1(%x : tensor<4xf32>)
^bb1(%r: tensor<?x4xf32>):
  vm.ret %r : tensor<?x4xf32>
}
