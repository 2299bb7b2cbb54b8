// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// The scalar patterns on their own: with no prim_func in the module, each
// arith/math op family's pattern rewrites its ops in place (they are on llvm
// types already); a libm function called is declared at the end of the
// module. (xDSL names a pattern's helper values after the result it replaces:
// %u, %u_1, ... with the result last.)

// CHECK-LABEL: llvm.func @integer(%a: i32, %b: i32) -> i32 {
// CHECK-NEXT:    %s = llvm.add %a, %b overflow<nsw> : i32
// CHECK-NEXT:    %m = llvm.call_intrinsic "llvm.smax.i32"(%s, %b) : (i32, i32) -> i32
// CHECK-NEXT:    %w = llvm.sext %m : i32 to i64
// CHECK-NEXT:    %t = llvm.trunc %w : i64 to i32
// CHECK-NEXT:    llvm.return %t : i32
llvm.func @integer(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b overflow<nsw> : i32
  %m = arith.maxsi %s, %b : i32
  %w = arith.extsi %m : i32 to i64
  %t = arith.trunci %w : i64 to i32
  llvm.return %t : i32
}

// CHECK-LABEL: llvm.func @float(%x: f32, %y: f32) -> f32 {
// CHECK-NEXT:    %[[UX:.*]] = llvm.fcmp "une" %x, %x : f32
// CHECK-NEXT:    %[[UY:.*]] = llvm.fcmp "une" %y, %y : f32
// CHECK-NEXT:    %[[U:.*]] = llvm.or %[[UX]], %[[UY]] : i1
// CHECK-NEXT:    %[[ROOT:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%x) : (f32) -> f32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:    %[[R:.*]] = llvm.fdiv %[[ONE]], %[[ROOT]] : f32
// CHECK-NEXT:    %e = llvm.call @erff(%[[R]]) : (f32) -> f32
// CHECK-NEXT:    %p = llvm.fmul %e, %y {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %z = llvm.select %[[U]], %x, %p : i1, f32
// CHECK-NEXT:    llvm.return %z : f32
llvm.func @float(%x: f32, %y: f32) -> f32 {
  %u = arith.cmpf uno, %x, %y : f32
  %r = math.rsqrt %x : f32
  %e = math.erf %r : f32
  %p = arith.mulf %e, %y fastmath<contract> : f32
  %z = arith.select %u, %x, %p : f32
  llvm.return %z : f32
}

// CHECK-LABEL: llvm.func @casts(%v: f32) -> f64 {
// CHECK-NEXT:    %i = llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%v) : (f32) -> i32
// CHECK-NEXT:    %f = llvm.sitofp %i : i32 to f64
// CHECK-NEXT:    llvm.return %f : f64
llvm.func @casts(%v: f32) -> f64 {
  %i = arith.fptosi %v : f32 to i32
  %f = arith.sitofp %i : i32 to f64
  llvm.return %f : f64
}

// CHECK:       llvm.func @erff(f32) -> f32
// CHECK-NOT:   arith.
// CHECK-NOT:   math.
