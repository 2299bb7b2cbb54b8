// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s

// Packed sub-byte buffers (docs/sub-byte-types.md): element k of a
// memref<...xi4> is bits (k & 1) * 4 .. +4 of byte k >> 1 (memref<...xi2>:
// bits (k & 3) * 2 of byte k >> 2). A load shifts its byte right and
// truncates; a store rewrites its bits of the byte and keeps the others.
// The packed entry checks the DLPack dtype: int 4 bits, uint 2 bits.

// int4 → int8: load the nibble (an i4), sign-extend it.
// CHECK-LABEL: llvm.func @widen_impl
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[BYTE:.*]] = llvm.lshr %i, %[[C1]] : i64
// CHECK-NEXT:    %[[C1B:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[LANE:.*]] = llvm.and %i, %[[C1B]] : i64
// CHECK-NEXT:    %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %[[BITS:.*]] = llvm.mul %[[LANE]], %[[C4]] overflow<nsw> : i64
// CHECK-NEXT:    %[[SHIFT:.*]] = llvm.trunc %[[BITS]] : i64 to i8
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %A[%[[BYTE]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[B:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[S:.*]] = llvm.lshr %[[B]], %[[SHIFT]] : i8
// CHECK-NEXT:    %[[V:.*]] = llvm.trunc %[[S]] : i8 to i4
// CHECK-NEXT:    %[[W:.*]] = llvm.sext %[[V]] : i4 to i8
// CHECK-LABEL: llvm.func @widen(
// CHECK:         llvm.mlir.constant(66560 : i32) : i32
// CHECK:         llvm.mlir.constant(67584 : i32) : i32
tir.prim_func @widen(%A: memref<5xi4>, %B: memref<5xi8>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  tir.for %i = %c0 to %c5 kind "serial" {
    %a = tir.load %A[%i] : memref<5xi4>
    %w = arith.extsi %a : i4 to i8
    tir.store %w, %B[%i] : memref<5xi8>
  }
  tir.return
}

// uint8 → uint2, stored: clear the element's two bits (mask 3 << shift,
// inverted), or in the zero-extended value shifted into place. The loop is
// parallel, but a store into a packed buffer is a read-modify-write of a
// byte that two threads could share: it runs serially (no GOMP_parallel).
// CHECK-LABEL: llvm.func @narrow_impl
// CHECK-NOT:     GOMP_parallel
// CHECK:         %[[T:.*]] = llvm.trunc %{{.*}} : i8 to i2
// CHECK:         %[[C2:.*]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT:    %[[BYTE:.*]] = llvm.lshr %{{.*}}, %[[C2]] : i64
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %B{{(_[0-9]+)?}}[%[[BYTE]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[OLD:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[M3:.*]] = llvm.mlir.constant(3 : i8) : i8
// CHECK-NEXT:    %[[MASK:.*]] = llvm.shl %[[M3]], %{{.*}} : i8
// CHECK-NEXT:    %[[ONES:.*]] = llvm.mlir.constant(-1 : i8) : i8
// CHECK-NEXT:    %[[INV:.*]] = llvm.xor %[[MASK]], %[[ONES]] : i8
// CHECK-NEXT:    %[[KEPT:.*]] = llvm.and %[[OLD]], %[[INV]] : i8
// CHECK-NEXT:    %[[Z:.*]] = llvm.zext %[[T]] : i2 to i8
// CHECK-NEXT:    %[[PLACED:.*]] = llvm.shl %[[Z]], %{{.*}} : i8
// CHECK-NEXT:    %[[NEW:.*]] = llvm.or %[[KEPT]], %[[PLACED]] : i8
// CHECK-NEXT:    llvm.store %[[NEW]], %[[P]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-LABEL: llvm.func @narrow(
// CHECK:         llvm.mlir.constant(66049 : i32) : i32
tir.prim_func @narrow(%A: memref<7xui8>, %B: memref<7xui2>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  tir.for %i = %c0 to %c7 kind "parallel" {
    %a = tir.load %A[%i] : memref<7xui8>
    %n = arith.trunci %a : ui8 to ui2
    tir.store %n, %B[%i] : memref<7xui2>
  }
  tir.return
}

// A temporary of 5 int4 elements is 3 bytes of i8 (tir.allocate, packed).
// CHECK-LABEL: llvm.func @scratch_impl
// CHECK:         %[[N:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:    llvm.alloca %[[N]] x i8 {alignment = 64 : i64} : (i64) -> !llvm.ptr
tir.prim_func @scratch(%A: memref<5xi4>, %B: memref<5xi4>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %t = tir.allocate "local" : memref<5xi4>
  tir.for %i = %c0 to %c5 kind "serial" {
    %a = tir.load %A[%i] : memref<5xi4>
    tir.store %a, %t[%i] : memref<5xi4>
  }
  tir.for %j = %c0 to %c5 kind "serial" {
    %b = tir.load %t[%j] : memref<5xi4>
    tir.store %b, %B[%j] : memref<5xi4>
  }
  tir.return
}
