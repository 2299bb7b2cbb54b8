// RUN: xtvm-opt %s -t c | filecheck %s
// A kernel with a `?` axis in C, as on the llvm path: the entry binds the
// shape variable n from its first axis (argument 0), checks argument 1's
// against it (kind 5) and the strides against the run-time compact ones,
// and passes n after the buffers; a buffer of run-time size is made where
// it stands, its failure an assert's error, freed at the exit.

// CHECK-LABEL: int32_t addone_impl(float* restrict arg0, float* restrict arg1, int64_t n) {
// CHECK:         float* restrict t = NULL;
// CHECK-NEXT:    t = (float*)aligned_alloc(64, (size_t)(((int64_t)1 * (int64_t)(n) * (int64_t)sizeof(float) + 127) & ~(int64_t)63));
// CHECK-NEXT:    if (t == NULL) {  // out of memory
// CHECK-NEXT:      xtvm_code = ((7 << 16) | 0);
// CHECK:         for (int64_t i = 0; i < n; ++i) {
// CHECK:       xtvm_exit:
// CHECK-NEXT:    free(t);
// CHECK-LABEL: int32_t addone(void** args, int32_t num_args) {
// CHECK:         const int64_t v0 = t0->shape[0];
// CHECK:           if (t0->shape[0] != 1 && t0->strides[0] != expected) return (6 << 16) | 0;
// CHECK:         if (t1->shape[0] != v0) return (5 << 16) | 1;
// CHECK:         return addone_impl((float*)((char*)t0->data + t0->byte_offset), (float*)((char*)t1->data + t1->byte_offset), v0);
tir.prim_func @addone(%A: memref<?xf32>, %B: memref<?xf32>) attributes {tir.buffer_shapes = [array<i64: -1>, array<i64: -1>], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  %t = tir.allocate "global"(%n) : memref<?xf32>
  %one = arith.constant 1.0 : f32
  tir.for %i = %c0 to %n kind "serial" {
    %a = tir.load %A[%i] : memref<?xf32>
    %s = arith.addf %a, %one : f32
    tir.store %s, %t[%i] : memref<?xf32>
  }
  tir.for %j = %c0 to %n kind "serial" {
    %v = tir.load %t[%j] : memref<?xf32>
    tir.store %v, %B[%j] : memref<?xf32>
  }
  tir.return
}
