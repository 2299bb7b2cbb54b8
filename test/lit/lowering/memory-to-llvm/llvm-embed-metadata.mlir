// RUN: xtvm-opt %s -p llvm-embed-metadata | filecheck %s

// A kernel library (no @main): the metadata lists each kernel's signature
// (argument names, logical shapes, dtypes, assert messages) and no graph.
// CHECK:      tir.prim_func @addone
// CHECK:      llvm.mlir.global external constant @__xtvm_metadata("{\22functions\22:{\22addone\22:{\22args\22:[{\22name\22:\22A\22,\22shape\22:[3],\22dtype\22:\22float32\22},{\22name\22:\22B\22,\22shape\22:[3],\22dtype\22:\22float32\22}],\22asserts\22:[]}},\22graph_json\22:null,\22params\22:{},\22version\22:2}") {{.*}} : !llvm.array<[[N:[0-9]+]] x i8>
// CHECK-NEXT: llvm.mlir.global external constant @__xtvm_metadata_size([[N]] : i64)

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
