// RUN: xtvm-opt %s --split-input-file --verify-diagnostics -p convert-tir-to-llvm
// What convert-tir-to-llvm rejects, one case per chunk, with the message.

// An op that no pattern lowers keeps its prim_func; the legality check
// names both (legality.mlir shows the whole message).
// expected-error @+1 {{convert-tir-to-llvm: 2 op(s) left unlowered (no pattern lowers them):}}
tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
  %c0 = arith.constant 0 : index
  %p = math.ipowi %a, %a : i32
  tir.store %p, %A[%c0] : memref<4xi32>
  tir.return
}

// -----

// One external function, two signatures: reported at the second call.
tir.prim_func @clash(%A: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %a = tir.call_extern "foo"(%x) : (f32) -> f32
  // expected-error @+1 {{convert-tir-to-llvm: external function 'foo' is called as !llvm.func<f32 (f32, f32)> and as !llvm.func<f32 (f32)>}}
  %b = tir.call_extern "foo"(%x, %x) : (f32, f32) -> f32
  tir.store %b, %A[%c0] : memref<4xf32>
  tir.return
}

// -----

// An element type without an llvm type: reported at the op using it.
tir.prim_func @f8E3M4(%A: memref<4xf8E3M4>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{convert-tir-to-llvm: no llvm type for f8E3M4}}
  %x = tir.load %A[%c0] : memref<4xf8E3M4>
  tir.store %x, %A[%c0] : memref<4xf8E3M4>
  tir.return
}

// -----

// ... or at the prim_func, for one of its parameters.
// expected-error @+1 {{convert-tir-to-llvm: no llvm type for f8E3M4}}
tir.prim_func @f8E3M4_scalar(%A: memref<4xf32>, %x: f8E3M4) {
  tir.return
}

// -----

// A kernel named like a C function the generated code calls (free, for a
// buffer too large for the stack).
// expected-error @unknown {{convert-tir-to-llvm: free is both a kernel symbol and an external function called by a kernel; rename the prim_func}}
tir.prim_func @free(%A: memref<4xf32>) {
  %big = tir.allocate "global" : memref<4194304xf32>
  tir.return
}

// -----

// arith outside a prim_func on a non-llvm type (index) is not converted,
// and the pass says so.
func.func @host() -> index {
  // expected-error @+1 {{convert-tir-to-llvm: 1 op(s) left unlowered (no pattern lowers them):}}
  %c = arith.constant 1 : index
  func.return %c : index
}

// -----

// A prim_func named like another kernel's implementation function.
// expected-error @unknown {{convert-tir-to-llvm: the symbol(s) k_impl would be defined twice (a prim_func named like another kernel's generated functions); rename it}}
tir.prim_func @k() {
  tir.return
}
tir.prim_func @k_impl() {
  tir.return
}

// -----

// Arithmetic on a storage-only float (an i16 in llvm) would compute on its
// bits: refused at the op.
tir.prim_func @add_bf16(%A: memref<4xbf16>) {
  %c0 = arith.constant 0 : index
  %x = tir.load %A[%c0] : memref<4xbf16>
  // expected-error @+1 {{convert-tir-to-llvm: arith.addf does not compute on bf16 (a storage-only type): convert it to f32 first (te.cast does)}}
  %y = arith.addf %x, %x : bf16
  tir.store %y, %A[%c0] : memref<4xbf16>
  tir.return
}
