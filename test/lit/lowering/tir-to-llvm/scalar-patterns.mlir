// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm -t llvm | filecheck %s --check-prefix=LLVM
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

// Bitcast; ctlz and absi take a false "poison" flag; ceildivui adds one when
// the remainder is nonzero.
// CHECK-LABEL: llvm.func @bits(%g: f32, %d: i32) -> i32 {
// CHECK-NEXT:    %gc = llvm.bitcast %g : f32 to i32
// CHECK-NEXT:    %[[NO:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %[[Z:.*]] = llvm.call_intrinsic "llvm.ctlz.i32"(%gc, %[[NO]]) : (i32, i1) -> i32
// CHECK-NEXT:    %[[NO2:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %[[N:.*]] = llvm.call_intrinsic "llvm.abs.i32"(%[[Z]], %[[NO2]]) : (i32, i1) -> i32
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[DIV:.*]] = llvm.udiv %[[N]], %d : i32
// CHECK-NEXT:    %[[REM:.*]] = llvm.urem %[[N]], %d : i32
// CHECK-NEXT:    %[[NZ:.*]] = llvm.icmp "ne" %[[REM]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.zext %[[NZ]] : i1 to i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.add %[[DIV]], %[[ONE]] : i32
// CHECK-NEXT:    llvm.return %[[Q]] : i32
// LLVM-LABEL: define i32 @"bits"(
// LLVM:         call i32 @"llvm.ctlz.i32"(i32 %{{.*}}, i1 0)
// LLVM-NEXT:    call i32 @"llvm.abs.i32"(i32 %{{.*}}, i1 0)
llvm.func @bits(%g: f32, %d: i32) -> i32 {
  %gc = arith.bitcast %g : f32 to i32
  %gz = math.ctlz %gc : i32
  %gn = math.absi %gz : i32
  %gq = arith.ceildivui %gn, %d : i32
  llvm.return %gq : i32
}

// fpowi → llvm.pow of the exponent as a float (llvm.powi would call
// compiler-rt's __powisf2, which the JIT does not resolve).
// CHECK-LABEL: llvm.func @powers(%px: f32, %py: f32, %pk: i32) -> f32 {
// CHECK-NEXT:    %[[K:.*]] = llvm.sitofp %pk : i32 to f32
// CHECK-NEXT:    %[[PW:.*]] = llvm.call_intrinsic "llvm.pow.f32"(%px, %[[K]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[NEG:.*]] = llvm.fneg %[[PW]] : f32
// CHECK-NEXT:    %mx = llvm.call_intrinsic "llvm.maxnum.f32"(%[[NEG]], %py) : (f32, f32) -> f32
// CHECK-NEXT:    llvm.return %mx : f32
// LLVM-LABEL: define float @"powers"(
// LLVM:         call float @"llvm.pow.f32"(float %{{.*}}, float %{{.*}})
llvm.func @powers(%px: f32, %py: f32, %pk: i32) -> f32 {
  %pw = math.fpowi %px, %pk : f32, i32
  %ng = arith.negf %pw : f32
  %mx = arith.maxnumf %ng, %py : f32
  llvm.return %mx : f32
}

// CHECK:       llvm.func @erff(f32) -> f32
// CHECK-NOT:   arith.
// CHECK-NOT:   math.
