// RUN: xtvm-opt %s -t c | filecheck %s
// A vectorized loop of constant extent whose body is contiguous or uniform
// f32/f64 loads and stores, + - * / and index arithmetic becomes straight-line
// vector code: the extent in power-of-two chunks of up to 64 bytes (13 lanes:
// 8 + 4 + 1), uniform values once as scalars (broadcast by the vector ops).
// The register tile's accumulator then stays in registers across the
// reduction loop, as on the llvm path.

// CHECK-LABEL: // kernel @tile
// CHECK:         for (int64_t k = 0; k < 64; ++k) {
// CHECK-NEXT:      const float x = X[k];
// CHECK-NEXT:      {
// CHECK-NEXT:        const xtvm_f32x8 a = XTVM_VLOAD(xtvm_f32x8, &acc[((0) * (13)) + (0) + 0]);
// CHECK-NEXT:        const xtvm_f32x8 w = XTVM_VLOAD(xtvm_f32x8, &W[((k) * (13)) + (0) + 0]);
// CHECK-NEXT:        const xtvm_f32x8 p = x * w;
// CHECK-NEXT:        const xtvm_f32x8 s = a + p;
// CHECK-NEXT:        XTVM_VSTORE(&acc[((0) * (13)) + (0) + 0], s);
// CHECK-NEXT:      }
// CHECK-NEXT:      {
// CHECK-NEXT:        const xtvm_f32x4 a_1 = XTVM_VLOAD(xtvm_f32x4, &acc[((0) * (13)) + (0) + 8]);
// CHECK:             XTVM_VSTORE(&acc[((0) * (13)) + (0) + 8], s_1);
// CHECK-NEXT:      }
// CHECK-NEXT:      {
// CHECK-NEXT:        const float a_2 = *(&acc[((0) * (13)) + (0) + 12]);
// CHECK:             *(&acc[((0) * (13)) + (0) + 12]) = s_2;
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tir.prim_func @tile(%X: memref<64xf32>, %W: memref<832xf32>, %Y: memref<13xf32>) attributes {arg_names = ["X", "W", "Y"]} {
  %c0 = arith.constant 0 : index
  %c13 = arith.constant 13 : index
  %c64 = arith.constant 64 : index
  %acc = tir.allocate "local" : memref<13xf32>
  tir.for %k = %c0 to %c64 kind "serial" {
    tir.for %l = %c0 to %c13 kind "vectorized" {
      %row = arith.muli %c0, %c13 : index
      %i = arith.addi %row, %l : index
      %a = tir.load %acc[%i] : memref<13xf32>
      %x = tir.load %X[%k] : memref<64xf32>
      %wrow = arith.muli %k, %c13 : index
      %j = arith.addi %wrow, %l : index
      %w = tir.load %W[%j] : memref<832xf32>
      %p = arith.mulf %x, %w : f32
      %s = arith.addf %a, %p : f32
      tir.store %s, %acc[%i] : memref<13xf32>
    }
  }
  tir.for %l = %c0 to %c13 kind "serial" {
    %v = tir.load %acc[%l] : memref<13xf32>
    tir.store %v, %Y[%l] : memref<13xf32>
  }
  tir.return
}

// A stride other than 0 or 1, or a store to a uniform address (a reduction
// across lanes), keeps the loop.
// CHECK-LABEL: // kernel @strided
// CHECK:         #pragma omp simd
// CHECK-NEXT:    for (int64_t l = 0; l < 8; ++l) {
// CHECK:         #pragma omp simd
// CHECK-NEXT:    for (int64_t l_1 = 0; l_1 < 8; ++l_1) {
tir.prim_func @strided(%A: memref<16xf32>, %B: memref<8xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  tir.for %l = %c0 to %c8 kind "vectorized" {
    %i = arith.muli %l, %c2 : index
    %a = tir.load %A[%i] : memref<16xf32>
    tir.store %a, %B[%l] : memref<8xf32>
  }
  tir.for %l = %c0 to %c8 kind "vectorized" {
    %a = tir.load %A[%l] : memref<16xf32>
    %b = tir.load %B[%c0] : memref<8xf32>
    %s = arith.addf %a, %b : f32
    tir.store %s, %B[%c0] : memref<8xf32>
  }
  tir.return
}
