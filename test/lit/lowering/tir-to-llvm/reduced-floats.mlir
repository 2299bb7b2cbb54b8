// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s

// Storage-only floats live in llvm as integers of their width (bf16 → i16,
// f8 → i8): loads, stores and bitcasts to their bits need no conversion, and
// the packed entry checks the caller's DLPack dtype: kDLBfloat (4) with 16
// bits, kDLFloat8_e4m3fn (10) with 8 bits (lanes << 16 | bits << 8 | code).

// CHECK-LABEL: llvm.func @copy_bits_impl
// CHECK:         %[[A:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK-NEXT:    %[[N:.*]] = llvm.trunc %[[A]] : i16 to i8
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %B[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[N]], %[[P]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-LABEL: llvm.func @copy_bits(
// CHECK:         llvm.mlir.constant(69636 : i32) : i32
// CHECK:         llvm.mlir.constant(67594 : i32) : i32
tir.prim_func @copy_bits(%A: memref<4xbf16>, %B: memref<4xf8E4M3FN>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    %a = tir.load %A[%i] : memref<4xbf16>
    %u = arith.bitcast %a : bf16 to ui16
    %n = arith.trunci %u : ui16 to ui8
    %f = arith.bitcast %n : ui8 to f8E4M3FN
    tir.store %f, %B[%i] : memref<4xf8E4M3FN>
  }
  tir.return
}
