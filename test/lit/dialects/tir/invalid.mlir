// RUN: xtvm-opt %s --split-input-file --verify-diagnostics
// One invalid tir op per chunk; each expected-error is the verifier's message at that op.

tir.prim_func @f(%A: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tir.load expects 2 indices for memref<4x8xf32>, got 1}}
  %v = tir.load %A[%c0] : memref<4x8xf32>
  tir.return
}

// -----

tir.prim_func @f(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1 : i32
  // expected-error @+1 {{tir.store value type i32 differs from the element type of memref<4xf32>}}
  "tir.store"(%x, %A, %c0) : (i32, memref<4xf32>, index) -> ()
  tir.return
}

// -----

// expected-error @+1 {{tir.prim_func @f: axis 0 of argument 0 is dynamic but no shape variable in tir.shape_vars names it}}
tir.prim_func @f(%A: memref<?xf32>) {
  tir.return
}

// -----

// expected-error @+1 {{tir.prim_func @f: argument 0 has type memref<4xf32, strided<[2]>>; expected a memref with the default layout}}
tir.prim_func @f(%A: memref<4xf32, strided<[2]>>) {
  tir.return
}

// -----

// expected-error @+1 {{tir.prim_func @f must not have results}}
"tir.prim_func"() <{sym_name = "f", function_type = () -> f32}> ({
  "tir.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{tir.prim_func @f: arg_names has 2 entries for 1 arguments}}
tir.prim_func @f(%A: memref<4xf32>) attributes {arg_names = ["A", "B"]} {
  tir.return
}

// -----

// expected-error @+1 {{tir.prim_func @f: body must be one block ending with tir.return, got 0 blocks}}
tir.prim_func @f() {
}

// -----

tir.prim_func @f() {
  // expected-error @+1 {{Operation arith.constant terminates block in single-block region but is not a terminator}}
  %c0 = arith.constant 0 : index
}

// -----

tir.prim_func @f() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tir.for kind must be one of serial, parallel, vectorized, unrolled, got 'sequential'}}
  tir.for %i = %c0 to %c0 kind "sequential" {
  }
  tir.return
}

// -----

tir.prim_func @f() {
  // expected-error @+1 {{tir.allocate scope must be one of global, local, got 'shared'}}
  %buf = tir.allocate "shared" : memref<4xf32>
  tir.return
}

// -----

tir.prim_func @f() {
  // expected-error @+1 {{tir.allocate of memref<?xf32> needs 1 extent operand(s), one per dynamic axis, got 0}}
  %buf = tir.allocate "local" : memref<?xf32>
  tir.return
}

// -----

tir.prim_func @f(%x: f32) {
  // expected-error @+1 {{tir.call_intrin callee must be an LLVM intrinsic name starting with 'llvm.', got 'expf'}}
  %r = tir.call_intrin "expf"(%x) : (f32) -> f32
  tir.return
}

// -----

tir.prim_func @f(%x: f32) {
  // expected-error @+1 {{tir.call_extern returns at most one value, got 2}}
  %r:2 = tir.call_extern "frexpf"(%x) : (f32) -> (f32, i32)
  tir.return
}

// -----

tir.prim_func @f() {
  // expected-error @+1 {{'tir.yield' expects parent op to be one of 'tir.for', 'tir.if'}}
  "tir.yield"() : () -> ()
}

// -----

// expected-error @+1 {{tir.prim_func @f: tir.buffer_shapes[0] = [4, 4] does not have the 32 elements of memref<32xf32>}}
tir.prim_func @f(%A: memref<32xf32>) attributes {tir.buffer_shapes = [array<i64: 4, 4>]} {
  tir.return
}

// -----

// expected-error @+1 {{tir.prim_func @f: tir.buffer_shapes must be an array with one array<i64: ...> per argument}}
tir.prim_func @f(%A: memref<32xf32>, %n: index) attributes {tir.buffer_shapes = [array<i64: 32>]} {
  tir.return
}
