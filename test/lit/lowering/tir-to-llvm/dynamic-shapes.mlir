// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s
// RUN: xtvm-opt %s -p convert-tir-to-llvm | xtvm-opt | filecheck %s
// A prim_func with a shape variable (docs/dynamic-shapes.md): NAME_impl
// takes the variable as an i64 after the buffers; the packed entry binds it
// from the first argument's axis 0, checks the second argument's axis 0
// against it and every static extent as before, checks strides computed
// from the dimensions, and passes it on. A dynamic tir.allocate is an
// aligned_alloc where it stands (NULL: the error of assert 0, "out of
// memory"), freed on every exit through its slot.

// CHECK-LABEL: llvm.func @scale_impl(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}, %n: i64) -> i32 {
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[SLOT:.*]] = llvm.alloca %[[ONE]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    llvm.store %[[NULL]], %[[SLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:         %[[BYTES:.*]] = llvm.mul %{{.*}}, %n overflow<nsw> : i64
// CHECK:         %T = llvm.call @aligned_alloc(%{{.*}}, %{{.*}}) : (i64, i64) -> !llvm.ptr
// CHECK:         llvm.cond_br %{{.*}}, ^[[OK:.*]], ^[[OOM:.*]]
// CHECK:         %[[P:.*]] = llvm.ptrtoint %T : !llvm.ptr to i64
// CHECK-NEXT:    llvm.store %[[P]], %[[SLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:         llvm.icmp "slt" %i, %n : i64
// CHECK:         %[[HELD:.*]] = llvm.load %[[SLOT]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[FREED:.*]] = llvm.inttoptr %[[HELD]] : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.call @free(%[[FREED]]) : (!llvm.ptr) -> ()

// The entry: argument 0's axis 0 is loaded and kept (the binding), its axis 1
// compared with 4; argument 1's axis 0 compared with the binding (kind 5,
// index 1: 327681).
// CHECK-LABEL: llvm.func @scale(%args: !llvm.ptr, %num_args: i32) -> i32 {
// CHECK:         %[[N:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:         llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
// CHECK:         llvm.icmp "eq" %[[N1:.*]], %[[N]] : i64
// CHECK-NEXT:    %[[CODE:.*]] = llvm.mlir.constant(327681 : i32) : i32
// CHECK:         llvm.call @scale_impl(%{{.*}}, %{{.*}}, %[[N]]) : (!llvm.ptr, !llvm.ptr, i64) -> i32
tir.prim_func @scale(%A: memref<?xf32>, %B: memref<?xf32>) attributes {arg_names = ["A", "B"], tir.buffer_shapes = [array<i64: -1, 4>, array<i64: -1, 4>], tir.shape_vars = {n = [array<i64: 0, 0>, array<i64: 1, 0>]}} {
  %c0 = arith.constant 0 : index
  %n = tir.shape_var "n"
  %T = tir.allocate "global"(%n) : memref<?xf32>
  tir.for %i = %c0 to %n kind "serial" {
    %v = tir.load %A[%i] : memref<?xf32>
    tir.store %v, %T[%i] : memref<?xf32>
    tir.store %v, %B[%i] : memref<?xf32>
  }
  tir.return
}
