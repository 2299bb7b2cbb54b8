// RUN: not xtvm-opt %s -p convert-tir-to-llvm --allow-unregistered-dialect 2>&1 | filecheck %s
// The legality check: an op that no pattern lowers (math.ipowi, an op of
// another dialect) keeps its prim_func whole, and the conversion fails with
// the pass name, then the prim_func and each such op with its file:line:col
// and text; the ops of the prim_func that have a lowering are not listed.
// An arith op outside a prim_func that its pattern cannot lower in place
// (on index) is listed too; so is nothing of @ok, which nothing blocks.

// CHECK: convert-tir-to-llvm: 4 op(s) left unlowered (no pattern lowers them):
// CHECK-NEXT: legality.mlir:[[# @LINE + 9]]:1: 'tir.prim_func'
// CHECK-NEXT:   tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
// CHECK:      legality.mlir:[[# @LINE + 9]]:3: 'math.ipowi'
// CHECK-NEXT:   %p = math.ipowi %a, %a : i32
// CHECK-NEXT: legality.mlir:[[# @LINE + 8]]:3: 'test.op'
// CHECK-NEXT:   %q = "test.op"(%p) : (i32) -> i32
// CHECK-NEXT: legality.mlir:[[# @LINE + 12]]:3: 'arith.addi'
// CHECK-NEXT:   %c = arith.addi %i, %i : index
// CHECK-NOT:  legality.mlir
tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
  %c0 = arith.constant 0 : index
  %p = math.ipowi %a, %a : i32
  %q = "test.op"(%p) : (i32) -> i32
  tir.store %q, %A[%c0] : memref<4xi32>
  tir.return
}

func.func @host(%i: index) -> index {
  %c = arith.addi %i, %i : index
  func.return %c : index
}

tir.prim_func @ok(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = tir.load %A[%c0] : memref<4xf32>
  %y = math.exp %x : f32
  tir.store %y, %A[%c0] : memref<4xf32>
  tir.return
}
