// RUN: xtvm-opt %s -p convert-tir-to-c | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-c | xtvm-opt | filecheck %s
// The pass: each prim_func becomes, in its place, a declaration of its packed
// entry carrying its C source (compiled by cc at code generation); a kernel
// with parallel loops is marked xtvm.c_openmp and the module gains the C of
// xtvm_set_num_threads. Other ops (the host part) are left alone.

// CHECK:      llvm.func @host_helper() -> i32 {
// CHECK:      llvm.func @copy(!llvm.ptr, i32) -> i32 attributes {xtvm.c_source = "// kernel @copy\0Aint32_t copy_impl(float* restrict A, float* restrict B) {\0A
// CHECK-NOT:  xtvm.c_openmp
// CHECK-SAME: \0A"}
// CHECK:      llvm.func @par(!llvm.ptr, i32) -> i32 attributes {xtvm.c_source = "// kernel @par\0Aextern int32_t __xtvm_num_threads
// CHECK-SAME: xtvm.c_openmp
// CHECK:      llvm.func @xtvm_set_num_threads(i32) attributes {xtvm.c_source = "// the thread count of parallel loops
// CHECK-NOT:  tir.prim_func
builtin.module {
  llvm.func @host_helper() -> i32 {
    %0 = llvm.mlir.constant(0 : i32) : i32
    llvm.return %0 : i32
  }
  tir.prim_func @copy(%A: memref<4xf32>, %B: memref<4xf32>) attributes {arg_names = ["A", "B"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    tir.for %i = %c0 to %c4 kind "serial" {
      %v = tir.load %A[%i] : memref<4xf32>
      tir.store %v, %B[%i] : memref<4xf32>
    }
    tir.return
  }
  tir.prim_func @par(%A: memref<4xf32>) attributes {arg_names = ["A"]} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %z = arith.constant 0.0 : f32
    tir.for %i = %c0 to %c4 kind "parallel" {
      tir.store %z, %A[%i] : memref<4xf32>
    }
    tir.return
  }
}
