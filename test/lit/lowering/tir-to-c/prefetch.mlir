// RUN: xtvm-opt %s -t c | filecheck %s
// A prefetch of a `tir.load` read by nothing else: `__builtin_prefetch` of
// the element's address with the constant hints; the load itself is not
// written. A load read by anything else stays a read.

// CHECK-LABEL: int32_t prefetch_impl(
// CHECK-NEXT:    __builtin_prefetch(&arg0[1 * 16 + 0], 0, 1);
// CHECK-NEXT:    const int32_t v = arg0[0 * 16 + arg2];
// CHECK-NEXT:    arg1[arg2] = v;
tir.prim_func @prefetch(%W: memref<4x16xi32>, %O: memref<16xi32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rw = arith.constant 0 : i32
  %locality = arith.constant 1 : i32
  %data = arith.constant 1 : i32
  %ahead = tir.load %W[%c1, %c0] : memref<4x16xi32>
  tir.call_intrin "llvm.prefetch.p0"(%ahead, %rw, %locality, %data) : (i32, i32, i32, i32) -> ()
  %v = tir.load %W[%c0, %i] : memref<4x16xi32>
  tir.store %v, %O[%i] : memref<16xi32>
  tir.return
}
