// RUN: xtvm-opt %s -t c | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-c | xtvm-opt -t c | filecheck %s
// A kernel in C: the loop program `NAME_impl` over restrict buffers, and the
// packed entry with the llvm path's checks (count, NULL, ndim, dtype, shape,
// strides) and error codes (kind << 16 | argument).

// CHECK: #include <math.h>
// CHECK: _Static_assert(offsetof(DLTensor, ndim) == 16, "DLTensor.ndim");

// CHECK-LABEL: // kernel @addone
// CHECK-NEXT:  int32_t addone_impl(float* restrict A, float* restrict B) {
// CHECK-NEXT:    for (int64_t i = 0; i < 3; ++i) {
// CHECK-NEXT:      const float v = A[i];
// CHECK-NEXT:      const float s = v + 1.0f;
// CHECK-NEXT:      B[i] = s;
// CHECK-NEXT:    }
// CHECK-NEXT:    return 0;
// CHECK-NEXT:  }
// CHECK:       int32_t addone(void** args, int32_t num_args) {
// CHECK-NEXT:    if (num_args != 2) return (1 << 16) | (num_args & 0xFFFF);
// CHECK-NEXT:    const DLTensor* t0 = (const DLTensor*)args[0];
// CHECK-NEXT:    if (t0 == NULL || t0->data == NULL) return (2 << 16) | 0;
// CHECK-NEXT:    if (t0->ndim != 1) return (3 << 16) | 0;
// CHECK-NEXT:    if (XTVM_DTYPE_WORD(t0) != 0x12002u) return (4 << 16) | 0;
// CHECK-NEXT:    if (t0->shape[0] != 3) return (5 << 16) | 0;
// CHECK-NEXT:    if (t0->strides != NULL && (t0->strides[0] != 1)) return (6 << 16) | 0;
// CHECK:         return addone_impl((float*)((char*)t0->data + t0->byte_offset), (float*)((char*)t1->data + t1->byte_offset));
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

// A flattened buffer keeps its logical shape for the checks (strides only
// where the extent exceeds 1); a scalar parameter is read from a rank-0
// tensor and passed by value; an N-d access is linearised row-major.
// CHECK-LABEL: // kernel @scale
// CHECK-NEXT:  int32_t scale_impl(int8_t* restrict X, int64_t n) {
// CHECK:         const int8_t x = X[i * 4 + j];
// CHECK-NEXT:    const int8_t y = (int8_t)((uint8_t)x + (uint8_t)x);
// CHECK-NEXT:    X[i * 4 + j] = y;
// CHECK:       int32_t scale(void** args, int32_t num_args) {
// CHECK:         if (XTVM_DTYPE_WORD(t0) != 0x10800u) return (4 << 16) | 0;
// CHECK-NEXT:    if (t0->shape[0] != 2) return (5 << 16) | 0;
// CHECK-NEXT:    if (t0->shape[1] != 1) return (5 << 16) | 0;
// CHECK-NEXT:    if (t0->shape[2] != 4) return (5 << 16) | 0;
// CHECK-NEXT:    if (t0->strides != NULL && (t0->strides[0] != 4 || t0->strides[2] != 1)) return (6 << 16) | 0;
// CHECK:         if (t1->ndim != 0) return (3 << 16) | 1;
// CHECK-NEXT:    if (XTVM_DTYPE_WORD(t1) != 0x14000u) return (4 << 16) | 1;
// CHECK-NEXT:    return scale_impl((int8_t*)((char*)t0->data + t0->byte_offset), *(int64_t*)((char*)t1->data + t1->byte_offset));
tir.prim_func @scale(%X: memref<2x4xi8>, %n: index) attributes {arg_names = ["X", "n"], tir.buffer_shapes = [array<i64: 2, 1, 4>, array<i64>]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c2 kind "serial" {
    tir.for %j = %c0 to %c4 kind "serial" {
      %x = tir.load %X[%i, %j] : memref<2x4xi8>
      %y = arith.addi %x, %x : i8
      tir.store %y, %X[%i, %j] : memref<2x4xi8>
    }
  }
  tir.return
}
