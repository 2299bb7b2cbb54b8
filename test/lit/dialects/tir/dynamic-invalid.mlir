// RUN: xtvm-opt %s --split-input-file --verify-diagnostics
// Shape variables and dynamic buffers that do not verify.

// A dynamic axis no shape variable names.
// expected-error @+1 {{tir.prim_func @f: axis 1 of argument 0 is dynamic but no shape variable in tir.shape_vars names it}}
tir.prim_func @f(%A: memref<?x?xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>]}} {
  tir.return
}

// -----

// A listed axis that is static.
// expected-error @+1 {{tir.prim_func @f: tir.shape_vars lists axis 1 of argument 0 under 'n', but that is not a dynamic axis}}
tir.prim_func @f(%A: memref<?x4xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 0, 1>]}} {
  tir.return
}

// -----

// One axis under two variables.
// expected-error @+1 {{tir.prim_func @f: axis 0 of argument 0 is listed under both 'n' and 'm' in tir.shape_vars}}
tir.prim_func @f(%A: memref<?xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>], m = [array<i64: 0, 0>]}} {
  tir.return
}

// -----

// A malformed attribute.
// expected-error @+1 {{tir.prim_func @f: tir.shape_vars must map each variable name to a non-empty array of array<i64: argument, axis> pairs}}
tir.prim_func @f(%A: memref<?xf32>) attributes {tir.shape_vars = {n = [array<i64: 0>]}} {
  tir.return
}

// -----

// Flattened logical shapes that are static for a dynamic buffer.
// expected-error @+1 {{tir.prim_func @f: tir.buffer_shapes[0] = [4] is static, but argument 0 has the dynamic type memref<?xf32>}}
tir.prim_func @f(%A: memref<?xf32>) attributes {tir.buffer_shapes = [array<i64: 4>], tir.shape_vars = {n = [array<i64: 0, 0>]}} {
  tir.return
}

// -----

// Reading a variable the function does not have.
tir.prim_func @f(%A: memref<?xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>]}} {
  // expected-error @+1 {{tir.shape_var 'm' is not a shape variable of @f (its tir.shape_vars: n)}}
  %m = tir.shape_var "m"
  tir.return
}

// -----

// A dynamic allocation needs one extent per `?`, directly in the body.
tir.prim_func @f(%A: memref<?xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>]}} {
  %n = tir.shape_var "n"
  // expected-error @+1 {{tir.allocate of memref<?x?xf32> needs 2 extent operand(s), one per dynamic axis, got 1}}
  %b = tir.allocate "global"(%n) : memref<?x?xf32>
  tir.return
}

// -----

tir.prim_func @f(%A: memref<?xf32>) attributes {tir.shape_vars = {n = [array<i64: 0, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  tir.for %i = %c0 to %n kind "serial" {
    // expected-error @+1 {{tir.allocate of the dynamic memref<?xf32> must be directly in the tir.prim_func body (it is allocated where it is, once)}}
    %b = tir.allocate "global"(%n) : memref<?xf32>
  }
  tir.return
}
