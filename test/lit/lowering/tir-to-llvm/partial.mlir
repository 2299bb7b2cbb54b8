// RUN: xtvm-opt %s -p 'convert-tir-to-llvm{partial=true}' | filecheck %s
// A partial conversion: what no pattern lowers stays where it is — the
// prim_func @ipow whole (it holds math.ipowi, which has no lowering) and
// arith.addi on index outside a prim_func — and the rest is lowered around
// it: the prim_func @ipow stays tir (its i32 arith.addi too, which the
// scalar patterns lower in place only outside prim_funcs), the prim_func
// @ok becomes its two functions (with the declaration of the libm function
// it calls before them), and the f32 maths of @host is lowered in place.

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
// CHECK-NEXT:      %c0 = arith.constant 0 : index
// CHECK-NEXT:      %s = arith.addi %a, %a : i32
// CHECK-NEXT:      %p = math.ipowi %s, %a : i32
// CHECK-NEXT:      tir.store %p, %A[%c0] : memref<4xi32>
// CHECK-NEXT:      tir.return
// CHECK-NEXT:    }
tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
  %c0 = arith.constant 0 : index
  %s = arith.addi %a, %a : i32
  %p = math.ipowi %s, %a : i32
  tir.store %p, %A[%c0] : memref<4xi32>
  tir.return
}

// CHECK-NEXT:    llvm.func @erff(f32) -> f32
// CHECK-NEXT:    llvm.func @ok_impl(%A{{.*}}: !llvm.ptr {llvm.noalias}) -> i32 {
// CHECK:           %y = llvm.call @erff(%x) : (f32) -> f32
// CHECK:         llvm.func @ok(%args: !llvm.ptr, %num_args: i32) -> i32 {
// CHECK:           llvm.call @ok_impl(
tir.prim_func @ok(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = tir.load %A[%c0] : memref<4xf32>
  %y = math.erf %x : f32
  tir.store %y, %A[%c0] : memref<4xf32>
  tir.return
}

// CHECK-LABEL: func.func @host(%{{.*}}: f32, %i: index) -> (f32, index) {
// CHECK-NEXT:    %e = llvm.call_intrinsic "llvm.exp.f32"(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:    %s = llvm.fadd %e, %e : f32
// CHECK-NEXT:    %c = arith.addi %i, %i : index
// CHECK-NEXT:    func.return %s, %c : f32, index
func.func @host(%a: f32, %i: index) -> (f32, index) {
  %e = math.exp %a : f32
  %s = arith.addf %e, %e : f32
  %c = arith.addi %i, %i : index
  func.return %s, %c : f32, index
}
