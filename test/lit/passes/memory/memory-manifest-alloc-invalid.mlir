// RUN: xtvm-opt %s -p memory-manifest-alloc --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xtvm-opt %s -p 'memory-manifest-alloc{alignment=48}' 2>&1 | filecheck %s --check-prefix=OPTION
// Graph functions the pass cannot give static memory; each CHECK is the error.

// A dynamic shape has no static size.
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %a : tensor<?x4xf32>
}
// CHECK: memory planning: result 0 of the call of @k has type tensor<?x4xf32>, which has no static size (dynamic shapes take the vm path):
// CHECK-NEXT: %a = relay.call_lowered @k(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>

// -----

// Control flow belongs to the vm path.
func.func @control_flow(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r = scf.if %p -> (tensor<4xf32>) {
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
// CHECK: memory planning needs a straight-line graph function; @control_flow holds 'scf.if' with regions (control flow takes the vm path):
// CHECK-NEXT: %r = scf.if %p -> (tensor<4xf32>) {

// OPTION: error: memory-manifest-alloc: alignment 48 is not a power of two
