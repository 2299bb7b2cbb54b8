// RUN: xtvm-opt %s --split-input-file --verify-diagnostics
// One invalid vm op per chunk; each expected-error is the verifier's message at that op.

// expected-error @+1 {{vm.alloc_storage takes its size either as an attribute (static) or as an operand (run time), exactly one of them}}
%s = vm.alloc_storage {alignment = 64 : i64} : !vm.storage

// -----

%n = vm.load_consti 64 : i64
// expected-error @+1 {{vm.alloc_storage takes its size either as an attribute (static) or as an operand (run time), exactly one of them}}
%s = vm.alloc_storage %n : i64 {size = 64 : i64, alignment = 64 : i64} : !vm.storage

// -----

// expected-error @+1 {{vm.alloc_storage alignment 48 is not a power of two}}
%s = vm.alloc_storage {size = 64 : i64, alignment = 48 : i64} : !vm.storage

// -----

// expected-error @+1 {{vm.alloc_storage size -8 is negative}}
%s = vm.alloc_storage {size = -8 : i64, alignment = 64 : i64} : !vm.storage

// -----

%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
// expected-error @+1 {{vm.alloc_tensor of tensor<?x4xf32> needs a shape operand for its '?' dimensions}}
%t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<?x4xf32>

// -----

%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
%shape = vm.load_const dense<[2, 4, 1]> : tensor<3xi64>
// expected-error @+1 {{vm.alloc_tensor shape operand must be a 1-d integer tensor of 2 element(s) (the rank of tensor<?x4xf32>), got tensor<3xi64>}}
%t = vm.alloc_tensor %s shape(%shape : tensor<3xi64>) {offset = 0 : i64} : tensor<?x4xf32>

// -----

%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
// expected-error @+1 {{vm.alloc_tensor tensor<1x256xf32> at offset 64 needs bytes up to 1088, but its storage has 1024}}
%t = vm.alloc_tensor %s {offset = 64 : i64} : tensor<1x256xf32>

// -----

%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
%t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
// expected-error @+1 {{vm.invoke_packed @k writes one tensor twice}}
vm.invoke_packed @k outs(%t, %t : tensor<4xf32>, tensor<4xf32>)

// -----

%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
%t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
// expected-error @+1 {{vm.invoke_packed @k writes into one of its own inputs}}
vm.invoke_packed @k ins(%t : tensor<4xf32>) outs(%t : tensor<4xf32>)

// -----

%c = vm.load_const dense<[1.0, 2.0]> : tensor<2xf32>
// expected-error @+1 {{vm.reshape_tensor changes the number of elements: tensor<2xf32> -> tensor<3xf32>}}
%r = vm.reshape_tensor %c : tensor<2xf32> -> tensor<3xf32>

// -----

%c = vm.load_const dense<[1.0, 2.0]> : tensor<2xf32>
// expected-error @+1 {{vm.shape_of of a rank-1 tensor gives tensor<1xi64>, not tensor<2xi64>}}
%r = vm.shape_of %c : tensor<2xf32> -> tensor<2xi64>

// -----

%c = vm.load_const dense<[1.0, 2.0]> : tensor<2xf32>
%a = vm.alloc_adt 0 (%c : tensor<2xf32>) : !vm.adt
// expected-error @+1 {{vm.get_field index 1 is out of range: the ADT has 1 field(s)}}
%f = vm.get_field %a, 1 : tensor<2xf32>

// -----

%c = vm.load_const dense<[1.0, 2.0]> : tensor<2xf32>
%a = vm.alloc_adt 0 (%c : tensor<2xf32>) : !vm.adt
// expected-error @+1 {{vm.get_field 0 gives tensor<3xf32>, but the field holds tensor<2xf32>}}
%f = vm.get_field %a, 0 : tensor<3xf32>

// -----

vm.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{vm.if condition must be an integer scalar or a one-element integer tensor, got tensor<2xf32>}}
  vm.if %x : tensor<2xf32>, ^bb1, ^bb1
^bb1:
  vm.ret %x : tensor<2xf32>
}

// -----

vm.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{vm.goto passes () to a block taking (tensor<2xf32>)}}
  vm.goto ^bb1
^bb1(%y: tensor<2xf32>):
  vm.ret %y : tensor<2xf32>
}

// -----

vm.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = vm.load_consti 1 : i64
  // expected-error @+1 {{vm.ret returns (i64) but @main returns (tensor<2xf32>)}}
  vm.ret %c : i64
}

// -----

// expected-error @+1 {{vm.func @main holds 'relay.const': only vm ops run on the VM}}
vm.func @main() -> tensor<2xf32> {
  %c = relay.const dense<[1.0, 2.0]> : tensor<2xf32>
  vm.ret %c : tensor<2xf32>
}

// -----

vm.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  vm.ret %x : tensor<2xf32>
}
vm.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{vm.invoke @f: call type (tensor<3xf32>) -> (tensor<3xf32>) differs from the callee's (tensor<2xf32>) -> tensor<2xf32>}}
  %y = vm.invoke @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  vm.ret %y : tensor<3xf32>
}

// -----

%s = vm.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !vm.storage
%t = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
// expected-error @+1 {{vm.kill frees a value that 'vm.reshape_tensor' uses afterwards}}
vm.kill %t : tensor<4xf32>
%r = vm.reshape_tensor %t : tensor<4xf32> -> tensor<2x2xf32>

// -----

%c = vm.load_const dense<1.0> : tensor<2x3xf32>
// expected-error @+1 {{vm.shape_from dimension 1 reads axis 2 of a rank-2 operand}}
%s = vm.shape_from %c {dims = array<i64: 0, 0, 0, 2>} : (tensor<2x3xf32>) -> tensor<2xi64>

// -----

%c = vm.load_const dense<1.0> : tensor<2x3xf32>
// expected-error @+1 {{vm.shape_from dimension 0 reads operand 1; there are 1}}
%s = vm.shape_from %c {dims = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<1xi64>

// -----

%c = vm.load_const dense<1.0> : tensor<2x3xf32>
// expected-error @+1 {{vm.shape_from of 2 dimension(s) gives tensor<2xi64>, not tensor<3xi64>}}
%s = vm.shape_from %c {dims = array<i64: 0, 0, -1, 5>} : (tensor<2x3xf32>) -> tensor<3xi64>

// -----

%shape = vm.load_const dense<[2, 4]> : tensor<2xi64>
// expected-error @+1 {{vm.alloc_storage with a shape needs the element type as dtype_hint}}
%s = vm.alloc_storage shape(%shape : tensor<2xi64>) {alignment = 64 : i64} : !vm.storage
