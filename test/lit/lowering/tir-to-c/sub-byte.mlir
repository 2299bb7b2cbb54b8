// RUN: xtvm-opt %s -t c | filecheck %s

// Packed sub-byte buffers in C (docs/sub-byte-types.md), read and written
// as convert-tir-to-llvm does: a buffer is uint8_t bytes; a value is held in
// int8_t sign-extended from its bits (i4) or uint8_t zero-extended (ui2);
// a store rewrites its bits of the byte and keeps the others.

// CHECK-LABEL: // kernel @widen
// CHECK:         int32_t widen_impl(uint8_t* restrict A, int8_t* restrict B) {
// CHECK:           const int64_t k = i;
// CHECK-NEXT:      const int8_t a = ((int8_t)((int8_t)((uint8_t)(A[k >> 1] >> ((k & 1) * 4)) << 4) >> 4));
// CHECK-NEXT:      const int8_t w = (int8_t)a;

// A parallel loop storing packed elements runs serially (no omp pragma);
// the truncated value is masked to its two bits.
// CHECK-LABEL: // kernel @narrow
// CHECK-NOT:       #pragma omp
// CHECK:           const uint8_t n = ((uint8_t)(((uint8_t)(int8_t)a) & 3));
// CHECK-NEXT:      const int64_t k = i;
// CHECK-NEXT:      B[k >> 2] = (uint8_t)((B[k >> 2] & ~(3 << ((k & 3) * 2))) | ((((uint8_t)n) & 3) << ((k & 3) * 2)));

// A local buffer of 5 int4 elements is 3 packed bytes.
// CHECK-LABEL: // kernel @scratch
// CHECK:         uint8_t t[3] __attribute__((aligned(64)));
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

// float4 (f4E2M1FN) values are their 4 bits, zero-extended in a uint8_t;
// the bitcast to ui4 is the same byte.
// CHECK-LABEL: // kernel @f4_bits
// CHECK:         int32_t f4_bits_impl(uint8_t* restrict A, uint8_t* restrict B) {
// CHECK:           const uint8_t a = ((uint8_t)((A[k >> 1] >> ((k & 1) * 4)) & 15));
// CHECK-NEXT:      const uint8_t b = ((uint8_t)((a) & 15));
tir.prim_func @f4_bits(%A: memref<3xf4E2M1FN>, %B: memref<3xui4>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tir.for %i = %c0 to %c3 kind "serial" {
    %a = tir.load %A[%i] : memref<3xf4E2M1FN>
    %b = arith.bitcast %a : f4E2M1FN to ui4
    tir.store %b, %B[%i] : memref<3xui4>
  }
  tir.return
}
