// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s

// A vectorized loop of constant extent is one iteration on LLVM vectors:
// stride-1 loads and stores are vector memory ops, a value that is the same in
// every lane (B[k]) is one scalar load broadcast by insertelement +
// shufflevector, and c + a * b becomes llvm.fmuladd.
// CHECK-LABEL: llvm.func @axpy_impl
// CHECK-NOT: llvm.cond_br
// CHECK: %[[S:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: %[[X:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK: %[[Y:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK: llvm.insertelement %[[S]], 
// CHECK: llvm.shufflevector
// CHECK: %[[F:.*]] = llvm.call_intrinsic "llvm.fmuladd.v16f32"
// CHECK: llvm.store %[[F]], %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
tir.prim_func @axpy(%A: memref<16xf32>, %B: memref<4xf32>, %C: memref<16xf32>) attributes {arg_names = ["A", "B", "C"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tir.for %v = %c0 to %c16 kind "vectorized" {
    %s = tir.load %B[%c2] : memref<4xf32>
    %x = tir.load %A[%v] : memref<16xf32>
    %y = tir.load %C[%v] : memref<16xf32>
    %p = arith.mulf %s, %x : f32
    %r = arith.addf %y, %p : f32
    tir.store %r, %C[%v] : memref<16xf32>
  }
  tir.return
}

// A load whose address advances by a small constant stride (2) in the lane
// is one load of the 15 elements the lanes span (none past the last lane's)
// and a shuffle of every other one; a larger stride (5) is gathered lane by
// lane: eight scalar loads inserted into one vector.
// CHECK-LABEL: llvm.func @strided_impl
// CHECK: %[[SPAN:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<15xf32>
// CHECK-NEXT: %[[X:.*]] = llvm.shufflevector %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>
// CHECK: llvm.store %[[X]], %{{.*}} {alignment = 4 : i64} : vector<8xf32>, !llvm.ptr
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<8xf32>, !llvm.ptr
tir.prim_func @strided(%A: memref<40xf32>, %B: memref<8xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  tir.for %v = %c0 to %c8 kind "vectorized" {
    %i = arith.muli %v, %c2 : index
    %x = tir.load %A[%i] : memref<40xf32>
    tir.store %x, %B[%v] : memref<8xf32>
  }
  tir.for %v = %c0 to %c8 kind "vectorized" {
    %i = arith.muli %v, %c5 : index
    %x = tir.load %A[%i] : memref<40xf32>
    tir.store %x, %B[%v] : memref<8xf32>
  }
  tir.return
}

// A vectorized loop with a non-constant extent stays a scalar loop (LLVM may
// still vectorise it).
// CHECK-LABEL: llvm.func @dynamic_impl
// CHECK: llvm.cond_br
// CHECK-NOT: vector<
// CHECK: llvm.return
tir.prim_func @dynamic(%A: memref<16xf32>, %n: index) attributes {arg_names = ["A", "n"]} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tir.for %v = %c0 to %n kind "vectorized" {
    tir.store %one, %A[%v] : memref<16xf32>
  }
  tir.return
}
