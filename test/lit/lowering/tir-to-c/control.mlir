// RUN: xtvm-opt %s -t c | filecheck %s
// Loops, branches, allocations and asserts in C.

// A vectorized loop the vector form does not cover (here: exp) gets
// `omp simd`, an unrolled one `GCC unroll`; if/else is if/else; a local
// buffer is an aligned stack array (vector.mlir shows the vector form).
// CHECK-LABEL: // kernel @loops
// CHECK:         float acc[16] __attribute__((aligned(64)));
// CHECK-NEXT:    #pragma omp simd
// CHECK-NEXT:    for (int64_t v = 0; v < 16; ++v) {
// CHECK-NEXT:      const float e = expf(0.0f);
// CHECK-NEXT:      acc[v] = e;
// CHECK:         #pragma GCC unroll 4
// CHECK-NEXT:    for (int64_t u = 0; u < 4; ++u) {
// CHECK-NEXT:      const bool lt = u < 2;
// CHECK-NEXT:      if (lt) {
// CHECK-NEXT:        A[u] = 1.0f;
// CHECK-NEXT:      } else {
// CHECK-NEXT:        A[u] = -2.5f;
// CHECK-NEXT:      }
tir.prim_func @loops(%A: memref<16xf32>) attributes {arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %m = arith.constant -2.5 : f32
  %acc = tir.allocate "local" : memref<16xf32>
  tir.for %v = %c0 to %c16 kind "vectorized" {
    %e = math.exp %zero : f32
    tir.store %e, %acc[%v] : memref<16xf32>
  }
  tir.for %u = %c0 to %c4 kind "unrolled" {
    %lt = arith.cmpi slt, %u, %c2 : index
    tir.if %lt {
      tir.store %one, %A[%u] : memref<16xf32>
    } else {
      tir.store %m, %A[%u] : memref<16xf32>
    }
  }
  tir.return
}

// An outermost parallel loop runs on OpenMP threads, as many as
// xtvm_set_num_threads says (0: OpenMP's default); a parallel loop inside it
// is serial. An assert inside records its code and ends the iteration (an
// OpenMP loop cannot return); the function returns the code after the loop.
// An assert outside returns (7 << 16) | k, k the assert's program order.
// CHECK-LABEL: // kernel @par
// CHECK-NEXT:  extern int32_t __xtvm_num_threads __attribute__((visibility("hidden")));
// CHECK:         if (!(ok)) {  // n must be positive
// CHECK-NEXT:      return ((7 << 16) | 0);
// CHECK-NEXT:    }
// CHECK-NEXT:    int32_t xtvm_error0 = 0;
// CHECK-NEXT:    #pragma omp parallel for schedule(static) num_threads(__xtvm_num_threads > 0 ? __xtvm_num_threads : omp_get_max_threads())
// CHECK-NEXT:    for (int64_t i = 0; i < 8; ++i) {
// CHECK-NEXT:      for (int64_t j = 0; j < 8; ++j) {
// CHECK:             if (!(inside)) {  // index in range
// CHECK-NEXT:          __atomic_store_n(&xtvm_error0, ((7 << 16) | 1), __ATOMIC_RELAXED);
// CHECK-NEXT:          goto xtvm_iteration_end0;
// CHECK-NEXT:        }
// CHECK:           xtvm_iteration_end0:;
// CHECK-NEXT:    }
// CHECK-NEXT:    if (xtvm_error0 != 0) {
// CHECK-NEXT:      return xtvm_error0;
// CHECK-NEXT:    }
tir.prim_func @par(%A: memref<64xf32>, %n: i32) attributes {arg_names = ["A", "n"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c0i = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %n, %c0i : i32
  tir.assert %ok, "n must be positive"
  tir.for %i = %c0 to %c8 kind "parallel" {
    tir.for %j = %c0 to %c8 kind "parallel" {
      %row = arith.muli %i, %c8 : index
      %k = arith.addi %row, %j : index
      %ki = arith.index_cast %k : index to i32
      %inside = arith.cmpi slt, %ki, %n : i32
      tir.assert %inside, "index in range"
      %x = tir.load %A[%k] : memref<64xf32>
      %y = arith.mulf %x, %x : f32
      tir.store %y, %A[%k] : memref<64xf32>
    }
  }
  tir.return
}

// A buffer above the stack limit (1 MiB) comes from aligned_alloc at the
// function entry and is freed on every exit, asserts included.
// CHECK-LABEL: // kernel @big
// CHECK-NEXT:  int32_t big_impl(float* restrict A, bool c) {
// CHECK-NEXT:    int32_t xtvm_code = 0;
// CHECK-NEXT:    float* restrict buf = (float*)aligned_alloc(64, 2097152);
// CHECK:         if (!(c)) {  // c
// CHECK-NEXT:      xtvm_code = ((7 << 16) | 0);
// CHECK-NEXT:      goto xtvm_exit;
// CHECK:         goto xtvm_exit;
// CHECK-NEXT:  xtvm_exit:
// CHECK-NEXT:    free(buf);
// CHECK-NEXT:    return xtvm_code;
tir.prim_func @big(%A: memref<4xf32>, %c: i1) attributes {arg_names = ["A", "c"]} {
  %c0 = arith.constant 0 : index
  %buf = tir.allocate "global" : memref<524288xf32>
  tir.assert %c, "c"
  %x = tir.load %A[%c0] : memref<4xf32>
  tir.store %x, %buf[%c0] : memref<524288xf32>
  %y = tir.load %buf[%c0] : memref<524288xf32>
  tir.store %y, %A[%c0] : memref<4xf32>
  tir.return
}

// The thread-count setting, once, for the parallel loops.
// CHECK: int32_t __xtvm_num_threads __attribute__((visibility("hidden"))) = 0;
// CHECK-NEXT: void xtvm_set_num_threads(int32_t n) { __xtvm_num_threads = n; }
