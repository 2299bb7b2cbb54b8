// RUN: xtvm-opt %s --split-input-file --verify-diagnostics
// One invalid memory op per chunk; each expected-error is the verifier's message at that op.

// expected-error @+1 {{memory.alloc_storage size -8 is negative}}
%s = memory.alloc_storage {size = -8 : i64, alignment = 64 : i64} : !memory.storage

// -----

// expected-error @+1 {{memory.alloc_storage alignment 48 is not a power of two}}
%s = memory.alloc_storage {size = 64 : i64, alignment = 48 : i64} : !memory.storage

// -----

// expected-error @+1 {{property 'alignment' expected in operation 'memory.alloc_storage'}}
%s = memory.alloc_storage {size = 64 : i64} : !memory.storage

// -----

%s = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
// expected-error @+1 {{memory.alloc_tensor tensor<1x256xf32> at offset 64 needs bytes up to 1088, but its storage has 1024}}
%t = memory.alloc_tensor %s {offset = 64 : i64} : tensor<1x256xf32>

// -----

%s = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
// expected-error @+1 {{memory.alloc_tensor offset 2 is not a multiple of the element size 4 of tensor<4xf32>}}
%t = memory.alloc_tensor %s {offset = 2 : i64} : tensor<4xf32>

// -----

%s = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
// expected-error @+1 {{memory.alloc_tensor offset -4 is negative}}
%t = memory.alloc_tensor %s {offset = -4 : i64} : tensor<4xf32>

// -----

%s = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
// expected-error @+1 {{memory.alloc_tensor needs a statically shaped tensor of a fixed-width element type, got tensor<?x4xf32> (dynamic shapes take the vm path)}}
%t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<?x4xf32>

// -----

func.func @writes_input(%x: !memory.storage) {
  %t = memory.alloc_tensor %x {offset = 0 : i64} : tensor<4xf32>
  // expected-error @+1 {{memory.invoke_kernel @k writes into one of its own inputs}}
  memory.invoke_kernel @k ins(%t : tensor<4xf32>) outs(%t : tensor<4xf32>)
  func.return
}

// -----

func.func @writes_twice(%x: !memory.storage) {
  %t = memory.alloc_tensor %x {offset = 0 : i64} : tensor<4xf32>
  // expected-error @+1 {{memory.invoke_kernel @k writes one tensor twice}}
  memory.invoke_kernel @k outs(%t, %t : tensor<4xf32>, tensor<4xf32>)
  func.return
}

// -----

func.func @no_outputs(%x: tensor<4xf32>) {
  // expected-error @+1 {{memory.invoke_kernel @k has no output tensor}}
  memory.invoke_kernel @k ins(%x : tensor<4xf32>) outs( : )
  func.return
}

// -----

func.func @kill_argument(%x: tensor<4xf32>) {
  // expected-error @+1 {{memory.kill expects a tensor from memory.alloc_tensor}}
  memory.kill %x : tensor<4xf32>
  func.return
}

// -----

func.func @use_after_kill(%s: !memory.storage) -> tensor<4xf32> {
  %t = memory.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  memory.invoke_kernel @k outs(%t : tensor<4xf32>)
  // expected-error @+1 {{memory.kill ends a tensor that 'func.return' uses afterwards}}
  memory.kill %t : tensor<4xf32>
  func.return %t : tensor<4xf32>
}
