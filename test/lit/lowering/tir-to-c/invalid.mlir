// RUN: xtvm-opt %s --split-input-file --verify-diagnostics -p convert-tir-to-c
// What convert-tir-to-c rejects, one case per chunk, with the message.

// An op without a C translation: reported at the op, naming its kernel.
tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{convert-tir-to-c: no C translation for math.ipowi in @ipow:}}
  %p = math.ipowi %a, %a : i32
  tir.store %p, %A[%c0] : memref<4xi32>
  tir.return
}

// -----

// An LLVM intrinsic the C target does not know.
tir.prim_func @intrin(%A: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{convert-tir-to-c: no C translation for the intrinsic 'llvm.x86.sse.rcp.ss'}}
  %r = tir.call_intrin "llvm.x86.sse.rcp.ss"(%x) : (f32) -> f32
  tir.store %r, %A[%c0] : memref<4xf32>
  tir.return
}

// -----

// One external function, two signatures: reported at the second call.
tir.prim_func @clash(%A: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %a = tir.call_extern "foo"(%x) : (f32) -> f32
  // expected-error @+1 {{convert-tir-to-c: foo is called with two signatures in @clash}}
  %b = tir.call_extern "foo"(%x, %x) : (f32, f32) -> f32
  tir.store %b, %A[%c0] : memref<4xf32>
  tir.return
}

// -----

// An element type without a C type: reported at the kernel taking it.
// expected-error @+1 {{convert-tir-to-c: no C type for f8E3M4}}
tir.prim_func @f8E3M4(%A: memref<4xf8E3M4>) {
  %c0 = arith.constant 0 : index
  %x = tir.load %A[%c0] : memref<4xf8E3M4>
  tir.store %x, %A[%c0] : memref<4xf8E3M4>
  tir.return
}

// -----

// Arithmetic on a storage-only float would compute on its bits.
tir.prim_func @add_bf16(%A: memref<4xbf16>) {
  %c0 = arith.constant 0 : index
  %x = tir.load %A[%c0] : memref<4xbf16>
  // expected-error @+1 {{convert-tir-to-c: arith.addf does not compute on bf16 (a storage-only type): convert it to f32 first (te.cast does)}}
  %y = arith.addf %x, %x : bf16
  tir.store %y, %A[%c0] : memref<4xbf16>
  tir.return
}

// -----

// A kernel name C cannot spell.
// expected-error @+1 {{convert-tir-to-c: the kernel name @a.b is not a C identifier; rename the prim_func}}
tir.prim_func @"a.b"(%A: memref<4xf32>) {
  tir.return
}
