// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s
// Every tir op in its custom syntax, round-tripped directly and through the
// generic form.

// A one-dimensional elementwise loop (the canonical `addone`).
// CHECK-LABEL: tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>) attributes {arg_names = ["A", "B"]} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    tir.for %i = %c0 to %c3 kind "serial" {
// CHECK-NEXT:      %v = tir.load %A[%i] : memref<3xf32>
// CHECK-NEXT:      %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %s = arith.addf %v, %one : f32
// CHECK-NEXT:      tir.store %s, %B[%i] : memref<3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tir.for %i = %c0 to %c3 kind "serial" {
    %v = tir.load %A[%i] : memref<3xf32>
    %one = arith.constant 1.0 : f32
    %s = arith.addf %v, %one : f32
    tir.store %s, %B[%i] : memref<3xf32>
  }
  tir.return
}

// Loop kinds, annotations, a discardable attribute on a loop, a 2-d access
// and an empty body.
// CHECK-LABEL: tir.prim_func @loops(%X: memref<4x8xf32>) {
// CHECK:         tir.for %i = %c0 to %c4 kind "parallel" {
// CHECK-NEXT:      tir.for %j = %c0 to %c8 kind "vectorized" annotations {pragma_unroll = 1 : i64} {
// CHECK-NEXT:        %v = tir.load %X[%i, %j] : memref<4x8xf32>
// CHECK-NEXT:        tir.store %v, %X[%j, %i] : memref<4x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for %k = %c0 to %c4 kind "unrolled" {
// CHECK-NEXT:    } {tag = "x"}
tir.prim_func @loops(%X: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "parallel" {
    tir.for %j = %c0 to %c8 kind "vectorized" annotations {pragma_unroll = 1 : i64} {
      %v = tir.load %X[%i, %j] : memref<4x8xf32>
      tir.store %v, %X[%j, %i] : memref<4x8xf32>
    }
  }
  tir.for %k = %c0 to %c4 kind "unrolled" {
  } {tag = "x"}
  tir.return
}

// Allocation, conditionals with and without else, asserts, calls, a rank-0
// buffer and scalar arguments.
// CHECK-LABEL: tir.prim_func @misc(%S: memref<f32>, %n: index, %x: f32, %k: i32) {
// CHECK-NEXT:    %buf = tir.allocate "local" : memref<16xf32>
// CHECK-NEXT:    %g = tir.allocate "global" : memref<2x1024xf32>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %cond = arith.cmpi slt, %c0, %n : index
// CHECK-NEXT:    tir.if %cond {
// CHECK-NEXT:      %e = tir.call_extern "expf"(%x) : (f32) -> f32
// CHECK-NEXT:      %f = tir.call_intrin "llvm.fma.f32"(%e, %e, %x) : (f32, f32, f32) -> f32
// CHECK-NEXT:      tir.store %f, %buf[%c0] : memref<16xf32>
// CHECK-NEXT:      tir.call_extern "abort"() : () -> ()
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tir.assert %cond, "n must be positive"
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.if %cond {
// CHECK-NEXT:      %s = tir.load %S[] : memref<f32>
// CHECK-NEXT:      tir.store %s, %S[] : memref<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
tir.prim_func @misc(%S: memref<f32>, %n: index, %x: f32, %k: i32) {
  %buf = tir.allocate "local" : memref<16xf32>
  %g = tir.allocate "global" : memref<2x1024xf32>
  %c0 = arith.constant 0 : index
  %cond = arith.cmpi slt, %c0, %n : index
  tir.if %cond {
    %e = tir.call_extern "expf"(%x) : (f32) -> f32
    %f = tir.call_intrin "llvm.fma.f32"(%e, %e, %x) : (f32, f32, f32) -> f32
    tir.store %f, %buf[%c0] : memref<16xf32>
    tir.call_extern "abort"() : () -> ()
  } else {
    tir.assert %cond, "n must be positive"
  }
  tir.if %cond {
    %s = tir.load %S[] : memref<f32>
    tir.store %s, %S[] : memref<f32>
  }
  tir.return
}
