// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm | xtvm-opt | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm -t llvm | filecheck %s --check-prefix=LLVM

// The loop program: noalias pointers, index constants made once in the entry
// block, the loop as header/body/exit blocks,
// one inbounds GEP per access, and `return 0`.
// CHECK-LABEL: llvm.func @addone_impl(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}) -> i32 {
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %c3 = llvm.mlir.constant(3) : i64
// CHECK-NEXT:    llvm.br ^[[HEADER:.*]](%c0 : i64)
// CHECK-NEXT:  ^[[HEADER]](%i: i64):
// CHECK-NEXT:    %[[GO:.*]] = llvm.icmp "slt" %i, %c3 : i64
// CHECK-NEXT:    llvm.cond_br %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[PA:.*]] = llvm.getelementptr inbounds %A[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %v = llvm.load %[[PA]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %one = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:    %s = llvm.fadd %v, %one : f32
// CHECK-NEXT:    %[[PB:.*]] = llvm.getelementptr inbounds %B[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %s, %[[PB]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %i, %[[ONE]] overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[HEADER]](%[[NEXT]] : i64)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.return %[[ZERO]] : i32
// CHECK-NEXT:  }

// The packed entry: argument count (kind 1, index = num_args), then per
// argument NULL tensor and data (kind 2), ndim (3), dtype float32x1 =
// 2 | 32 << 8 | 1 << 16 = 73730 (4), each dim (5), strides NULL or compact
// (6); all failures return through one block.
// CHECK-LABEL: llvm.func @addone(%args: !llvm.ptr, %num_args: i32) -> i32 {
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[COUNT_OK:.*]] = llvm.icmp "eq" %num_args, %[[TWO]] : i32
// CHECK:         %[[COUNT_CODE:.*]] = llvm.or %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.cond_br %[[COUNT_OK]], ^{{.*}}, ^[[FAIL:.*]](%[[COUNT_CODE]] : i32)
// CHECK-NEXT:  ^[[FAIL]](%[[CODE:.*]]: i32):
// CHECK-NEXT:    llvm.return %[[CODE]] : i32
// CHECK:         %[[T0:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.mlir.constant(131072 : i32) : i32
// CHECK:         %[[NDIM_P:.*]] = llvm.getelementptr inbounds %[[T0]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[NDIM:.*]] = llvm.load %[[NDIM_P]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[ONE_DIM:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.icmp "eq" %[[NDIM]], %[[ONE_DIM]] : i32
// CHECK-NEXT:    llvm.mlir.constant(196608 : i32) : i32
// CHECK:         llvm.getelementptr inbounds %[[T0]][20] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         llvm.mlir.constant(73730 : i32) : i32
// CHECK:         llvm.mlir.constant(262144 : i32) : i32
// CHECK:         llvm.getelementptr inbounds %[[T0]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         llvm.mlir.constant(3) : i64
// CHECK:         llvm.mlir.constant(327680 : i32) : i32
// CHECK:         llvm.getelementptr inbounds %[[T0]][32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         llvm.mlir.constant(393216 : i32) : i32
// CHECK:         llvm.getelementptr inbounds %[[T0]][40] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         llvm.mlir.constant(393217 : i32) : i32
// CHECK:         %[[RESULT:.*]] = llvm.call @addone_impl(%{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:    llvm.return %[[RESULT]] : i32

// LLVM: define i32 @"addone_impl"(ptr noalias %".1", ptr noalias %".2")
// LLVM: getelementptr inbounds float
// LLVM: define i32 @"addone"(ptr %".1", i32 %".2")
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
