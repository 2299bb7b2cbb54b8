// RUN: xtvm-opt %s -p memory-manifest-alloc --split-input-file --verify-diagnostics
// RUN: not xtvm-opt %s -p 'memory-manifest-alloc{alignment=48}' 2>&1 | filecheck %s --check-prefix=OPTION
// Graph functions the pass cannot give static memory; each expected-error is the error, at the op it names.

// A dynamic shape has no static size.
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{memory planning: result 0 of the call of @k has type tensor<?x4xf32>, which has no static size (dynamic shapes take the vm path):}}
  %a = relay.call_lowered @k(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %a : tensor<?x4xf32>
}

// -----

// Control flow belongs to the vm path.
func.func @control_flow(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{memory planning needs a straight-line graph function; @control_flow holds 'scf.if' with regions (control flow takes the vm path):}}
  %r = scf.if %p -> (tensor<4xf32>) {
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// OPTION: error: memory-manifest-alloc: alignment 48 is not a power of two
