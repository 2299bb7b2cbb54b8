// RUN: xtvm-opt %s -p tir-unroll-loop --verify-diagnostics

// A loop of kind "unrolled" needs a constant extent.
tir.prim_func @symbolic(%A: memref<8xf32>, %n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tir-unroll-loop: cannot unroll a loop of non-constant extent:}}
  tir.for %i = %c0 to %n kind "unrolled" {
    tir.store %x, %A[%i] : memref<8xf32>
  }
  tir.return
}
