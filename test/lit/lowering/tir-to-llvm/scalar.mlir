// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm -t llvm | filecheck %s --check-prefix=LLVM
// Scalar arith/math ops, including those xDSL's llvm dialect lacks.

// CHECK:       llvm.func @erff(f32) -> f32

// floordivsi: sdiv minus one when the remainder is nonzero and its sign
// differs from the divisor's; ceildivsi: plus one when they agree;
// min/max through llvm.smin/umax; arith's nsw flag is kept.
// CHECK-LABEL: llvm.func @int_ops_impl(%B: !llvm.ptr {llvm.noalias}, %a: i32, %b: i32) -> i32 {
// CHECK:         %[[Q0:.*]] = llvm.sdiv %a, %b : i32
// CHECK-NEXT:    %[[R0:.*]] = llvm.srem %a, %b : i32
// CHECK:         %[[ADJ:.*]] = llvm.zext %{{.*}} : i1 to i32
// CHECK-NEXT:    %q = llvm.sub %[[Q0]], %[[ADJ]] : i32
// CHECK:         %c = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %m = llvm.call_intrinsic "llvm.smin.i32"(%q, %c) : (i32, i32) -> i32
// CHECK-NEXT:    %n = llvm.call_intrinsic "llvm.umax.i32"(%m, %a) : (i32, i32) -> i32
// CHECK-NEXT:    %s = llvm.add %n, %b overflow<nsw> : i32

// CHECK-LABEL: llvm.func @casts_impl(
// CHECK:         %i = llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%x) : (f32) -> i32
// CHECK-NEXT:    %ui = llvm.call_intrinsic "llvm.fptoui.sat.i32.f32"(%x) : (f32) -> i32
// CHECK:         %[[WIDE:.*]] = llvm.zext %u : i32 to i64
// CHECK-NEXT:    %f = llvm.sitofp %[[WIDE]] : i64 to f32
// CHECK:         %g = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:    %h = llvm.fadd %f, %g : f32
// CHECK-NEXT:    %d = llvm.fpext %h : f32 to f64
// CHECK-NEXT:    %t = llvm.fptrunc %d : f64 to f32
// CHECK-NEXT:    %k = llvm.sext %u : i32 to i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %F[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32

// CHECK-LABEL: llvm.func @float_ops_impl(
// CHECK:         %e = llvm.call_intrinsic "llvm.exp.f32"(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:    %[[T:.*]] = llvm.call_intrinsic "llvm.tanh.f32"(%e) : (f32) -> f32
// CHECK-NEXT:    %r = llvm.call @erff(%[[T]]) : (f32) -> f32
// CHECK-NEXT:    %[[ROOT:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%r) : (f32) -> f32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:    %[[RS:.*]] = llvm.fdiv %[[ONE]], %[[ROOT]] : f32
// CHECK-NEXT:    %mx = llvm.call_intrinsic "llvm.maximum.f32"(%[[RS]], %y) : (f32, f32) -> f32
// CHECK-NEXT:    %[[XX:.*]] = llvm.fcmp "oeq" %[[X:.*]], %[[X]] : f32
// CHECK-NEXT:    %[[YY:.*]] = llvm.fcmp "oeq" %y, %y : f32
// CHECK-NEXT:    %ord = llvm.and %[[XX]], %[[YY]] : i1
// CHECK-NEXT:    %lt = llvm.fcmp "olt" %[[X]], %y : f32
// CHECK:         %fast = llvm.fmul %sel, %y {fastmathFlags = #llvm.fastmath<fast>} : f32

// The translated LLVM IR declares the intrinsics and libm functions.
// LLVM-DAG: declare float @"erff"(float
// LLVM-DAG: declare i32 @"llvm.fptosi.sat.i32.f32"(float
// LLVM-DAG: declare float @"llvm.tanh.f32"(float
// LLVM-DAG: fmul {{.*}}reassoc{{.*}} float
// Integer ops the llvm dialect lacks: floor/ceil division, min/max.
tir.prim_func @int_ops(%B: memref<8xi32>, %a: i32, %b: i32) {
  %c0 = arith.constant 0 : index
  %q = arith.floordivsi %a, %b : i32
  %c = arith.ceildivsi %a, %b : i32
  %m = arith.minsi %q, %c : i32
  %n = arith.maxui %m, %a : i32
  %s = arith.addi %n, %b overflow<nsw> : i32
  tir.store %s, %B[%c0] : memref<8xi32>
  tir.return
}

// Casts: fptosi/fptoui via saturating intrinsics, uitofp via zext + sitofp,
// index_cast, extf/truncf.
tir.prim_func @casts(%F: memref<8xf32>, %I: memref<8xi32>, %x: f32, %u: i32, %w: i64) {
  %c0 = arith.constant 0 : index
  %i = arith.fptosi %x : f32 to i32
  %ui = arith.fptoui %x : f32 to i32
  %sum = arith.addi %i, %ui : i32
  tir.store %sum, %I[%c0] : memref<8xi32>
  %f = arith.uitofp %u : i32 to f32
  %g = arith.uitofp %w : i64 to f32
  %h = arith.addf %f, %g : f32
  %d = arith.extf %h : f32 to f64
  %t = arith.truncf %d : f64 to f32
  %k = arith.index_cast %u : i32 to index
  tir.store %t, %F[%k] : memref<8xf32>
  tir.return
}

// Float maths: intrinsics, libm (erf), rsqrt, cmpf (ord through
// self-comparisons), select, maximumf, fast-math flags.
tir.prim_func @float_ops(%F: memref<8xf32>, %x: f32, %y: f32) {
  %c0 = arith.constant 0 : index
  %e = math.exp %x : f32
  %t = math.tanh %e : f32
  %r = math.erf %t : f32
  %q = math.rsqrt %r : f32
  %mx = arith.maximumf %q, %y : f32
  %ord = arith.cmpf ord, %x, %y : f32
  %lt = arith.cmpf olt, %x, %y : f32
  %both = arith.andi %ord, %lt : i1
  %sel = arith.select %both, %mx, %x : f32
  %fast = arith.mulf %sel, %y fastmath<fast> : f32
  tir.store %fast, %F[%c0] : memref<8xf32>
  tir.return
}
