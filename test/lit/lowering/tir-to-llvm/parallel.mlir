// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm | xtvm-opt -t llvm | filecheck %s --check-prefix=LLVM

// An outermost parallel loop is outlined into a chunk function (noalias
// buffers, constants re-created, a per-thread allocation) and an OpenMP
// thread function, which runs the chunks libgomp's dynamic schedule hands
// it (4 a thread); the kernel passes lb, ub and the captured values in an
// 8-byte-slot context and calls GOMP_parallel, or at one thread calls the
// chunk function on the whole range itself (no team); a failed assert's code
// comes back through the last slot either way. The module also gets xtvm_set_num_threads.
// CHECK:       llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
// CHECK:       llvm.mlir.global internal @__xtvm_num_threads(0 : i32)
// CHECK:       llvm.func @omp_get_num_threads() -> i32
// CHECK:       llvm.func @GOMP_loop_dynamic_start(i64, i64, i64, i64, !llvm.ptr, !llvm.ptr) -> i8
// CHECK:       llvm.func @GOMP_loop_dynamic_next(!llvm.ptr, !llvm.ptr) -> i8
// CHECK:       llvm.func @GOMP_loop_end_nowait()
// CHECK-LABEL: llvm.func @xtvm_set_num_threads(%n: i32) {
// CHECK-NEXT:    %[[G:.*]] = llvm.mlir.addressof @__xtvm_num_threads : !llvm.ptr
// CHECK-NEXT:    llvm.store %n, %[[G]] {alignment = 4 : i64} : i32, !llvm.ptr

// CHECK-LABEL: llvm.func @par_impl(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}, %s: f32) -> i32 {
// CHECK:         %[[CTX:.*]] = llvm.alloca %{{.*}} x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK:         llvm.ptrtoint %A : !llvm.ptr to i64
// CHECK:         llvm.store %s, %{{.*}} {alignment = 8 : i64} : f32, !llvm.ptr
// CHECK:         %[[NT_P:.*]] = llvm.mlir.addressof @__xtvm_num_threads : !llvm.ptr
// CHECK-NEXT:    %[[NT:.*]] = llvm.load %[[NT_P]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[SERIAL:.*]] = llvm.icmp "eq" %[[NT]], %[[ONE]] : i32
// CHECK-NEXT:    llvm.cond_br %[[SERIAL]], ^[[CALLER:.*]], ^[[TEAM:.*]]
// CHECK-NEXT:  ^[[CALLER]]:
// CHECK-NEXT:    %[[RC:.*]] = llvm.call @par_impl_parallel0(%A, %s, %B, %c0, %c64) : (!llvm.ptr, f32, !llvm.ptr, i64, i64) -> i32
// CHECK:         llvm.store %[[RC]], %{{.*}} {alignment = 8 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[JOIN:.*]]
// CHECK-NEXT:  ^[[TEAM]]:
// CHECK-NEXT:    %[[FN:.*]] = llvm.mlir.addressof @par_impl_parallel0_omp : !llvm.ptr
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @GOMP_parallel(%[[FN]], %[[CTX]], %[[NT]], %[[ZERO]]) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NEXT:    llvm.br ^[[JOIN]]
// CHECK-NEXT:  ^[[JOIN]]:
// CHECK:         %[[CODE:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i32
// CHECK:         llvm.return %[[CODE]] : i32

// CHECK-LABEL: llvm.func @par_impl_parallel0(%A_1: !llvm.ptr {llvm.noalias}, %s_1: f32, %B_1: !llvm.ptr {llvm.noalias}, %start: i64, %end: i64) -> i32 {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(32) : i64
// CHECK-NEXT:    %tmp = llvm.alloca %[[N]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK:         llvm.br ^[[HEADER:.*]](%start : i64)
// CHECK-NEXT:  ^[[HEADER]](%i: i64):
// CHECK-NEXT:    %{{.*}} = llvm.icmp "slt" %i, %end : i64
// CHECK:         llvm.mlir.constant(458752 : i32) : i32

// CHECK-LABEL: llvm.func @par_impl_parallel0_omp(%ctx: !llvm.ptr) {
// CHECK:         llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK:         %[[NT:.*]] = llvm.call @omp_get_num_threads() : () -> i32
// CHECK:         %[[PIECES:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK:         %[[SIZE:.*]] = llvm.sdiv %{{.*}}, %[[PIECES]] : i64
// CHECK:         %[[GOT:.*]] = llvm.call @GOMP_loop_dynamic_start(%{{.*}}, %{{.*}}, %{{.*}}, %[[SIZE]], %[[LO:.*]], %[[HI:.*]]) : (i64, i64, i64, i64, !llvm.ptr, !llvm.ptr) -> i8
// CHECK:         ^[[CHUNK:.*]]:
// CHECK-NEXT:      %[[START:.*]] = llvm.load %[[LO]]
// CHECK-NEXT:      %[[END:.*]] = llvm.load %[[HI]]
// CHECK-NEXT:      llvm.call @par_impl_parallel0(%{{.*}}, %{{.*}}, %{{.*}}, %[[START]], %[[END]]) : (!llvm.ptr, f32, !llvm.ptr, i64, i64) -> i32
// CHECK:           llvm.call @GOMP_loop_end_nowait() : () -> ()
// CHECK:           llvm.call @GOMP_loop_dynamic_next(%[[LO]], %[[HI]]) : (!llvm.ptr, !llvm.ptr) -> i8

// LLVM: call ccc void @"GOMP_parallel"(void (ptr)* @"par_impl_parallel0_omp"
tir.prim_func @par(%A: memref<64x32xf32>, %B: memref<64x32xf32>, %s: f32) attributes {arg_names = ["A", "B", "s"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c60 = arith.constant 60 : index
  tir.for %i = %c0 to %c64 kind "parallel" {
    %tmp = tir.allocate "local" : memref<32xf32>
    tir.for %j = %c0 to %c32 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<64x32xf32>
      %w = arith.mulf %v, %s : f32
      tir.store %w, %tmp[%j] : memref<32xf32>
    }
    tir.for %j = %c0 to %c32 kind "serial" {
      %t = tir.load %tmp[%j] : memref<32xf32>
      tir.store %t, %B[%i, %j] : memref<64x32xf32>
    }
    %ok = arith.cmpi slt, %i, %c60 : index
    tir.assert %ok, "i < 60"
  }
  tir.return
}
