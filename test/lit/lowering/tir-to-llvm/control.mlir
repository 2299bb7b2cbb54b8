// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm | xtvm-opt | filecheck %s

// A 2-d loop nest with a small (stack) and a large (heap) allocation, an
// assert, an if/else, an extern call and an intrinsic; scalar arguments are
// passed by value.
// CHECK-LABEL: llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK-NEXT:  llvm.func @free(!llvm.ptr)
// CHECK-NEXT:  llvm.func @expf(f32) -> f32
// CHECK-LABEL: llvm.func @nest_impl(%A: !llvm.ptr {llvm.noalias}, %n: i64, %x: f32) -> i32 {
// Allocations are hoisted to the entry block: 8 floats on the stack,
// 512*1024*4 bytes (over the 1 MiB stack limit) with aligned_alloc.
// CHECK-NEXT:    %[[EIGHT:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %tmp = llvm.alloca %[[EIGHT]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ALIGN:.*]] = llvm.mlir.constant(64) : i64
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.mlir.constant(2097152) : i64
// CHECK-NEXT:    %big = llvm.call @aligned_alloc(%[[ALIGN]], %[[BYTES]]) : (i64, i64) -> !llvm.ptr
// The assert returns (7 << 16) | 0 after freeing the heap buffer.
// CHECK:         %ok = llvm.icmp "slt" %n, %c4 : i64
// CHECK-NEXT:    llvm.cond_br %ok, ^[[CONT:.*]], ^[[FAIL:.*]]
// CHECK:       ^[[FAIL]]:
// CHECK-NEXT:    llvm.call @free(%big) : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[CODE:.*]] = llvm.mlir.constant(458752 : i32) : i32
// CHECK-NEXT:    llvm.return %[[CODE]] : i32
// The normal exit frees the heap buffer too.
// CHECK:         llvm.call @free(%big) : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32
// A[i, j] of memref<4x8xf32> is element i*8 + j.
// CHECK:         %[[M:.*]] = llvm.mul %i, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[L:.*]] = llvm.add %[[M]], %j overflow<nsw> : i64
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %A[%[[L]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %v = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %lt = llvm.icmp "slt" %i, %n : i64
// CHECK-NEXT:    llvm.cond_br %lt, ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK:       ^[[THEN]]:
// CHECK-NEXT:    %e = llvm.call @expf(%v) : (f32) -> f32
// CHECK-NEXT:    %[[T:.*]] = llvm.getelementptr inbounds %tmp[%j] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %e, %[[T]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[MERGE:.*]]
// CHECK-NEXT:  ^[[MERGE]]:
// CHECK:       ^[[ELSE]]:
// CHECK-NEXT:    %f = llvm.call_intrinsic "llvm.fma.f32"(%v, %x, %x) : (f32, f32, f32) -> f32
// CHECK:         llvm.getelementptr inbounds %big[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.br ^[[MERGE]]
// The scalar arguments are rank-0 tensors: ndim 0, dtype int64 (0 | 64 << 8
// | 1 << 16 = 81920) and float32, then loaded and passed by value.
// CHECK-LABEL: llvm.func @nest(%args: !llvm.ptr, %num_args: i32) -> i32 {
// CHECK:         llvm.mlir.constant(81920 : i32) : i32
// CHECK:         %[[NP:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[NP]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         %[[XP:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[XP]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %{{.*}} = llvm.call @nest_impl(%{{.*}}, %[[N]], %[[X]]) : (!llvm.ptr, i64, f32) -> i32
tir.prim_func @nest(%A: memref<4x8xf32>, %n: index, %x: f32) attributes {arg_names = ["A", "n", "x"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %tmp = tir.allocate "local" : memref<8xf32>
  %big = tir.allocate "global" : memref<512x1024xf32>
  %ok = arith.cmpi slt, %n, %c4 : index
  tir.assert %ok, "n must be < 4"
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      %lt = arith.cmpi slt, %i, %n : index
      tir.if %lt {
        %e = tir.call_extern "expf"(%v) : (f32) -> f32
        tir.store %e, %tmp[%j] : memref<8xf32>
      } else {
        %f = tir.call_intrin "llvm.fma.f32"(%v, %x, %x) : (f32, f32, f32) -> f32
        tir.store %f, %big[%i, %j] : memref<512x1024xf32>
      }
    }
  }
  tir.return
}
