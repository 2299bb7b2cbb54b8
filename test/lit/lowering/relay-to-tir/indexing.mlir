// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// Gathers and slices: index arithmetic on the load, no data movement.

// take in clip mode clamps the loaded index into [0, size - 1].
// CHECK-LABEL: tir.prim_func @fused_take(%p0: memref<5x3xf32>, %p1: memref<2xi64>, %T_take: memref<2x3xf32>)
// CHECK:         %[[I:.*]] = tir.load %p1[%i0] : memref<2xi64>
// CHECK-NEXT:    %[[J:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT:    %[[LO:.*]] = arith.maxsi %[[J]], %c0 : index
// CHECK-NEXT:    %[[K:.*]] = arith.minsi %[[LO]], %c4 : index
// CHECK-NEXT:    %[[V:.*]] = tir.load %p0[%[[K]], %i1] : memref<5x3xf32>
// CHECK-NEXT:    tir.store %[[V]], %T_take[%i0, %i1] : memref<2x3xf32>

// take in wrap mode is a floor modulo: -1 is the last entry.
// CHECK-LABEL: tir.prim_func @fused_take_1(%p0: memref<5x3xf32>, %p1: memref<2xi64>, %T_take: memref<2x3xf32>)
// CHECK:         %[[R:.*]] = arith.remsi %{{.*}}, %c5 : index
// CHECK:         arith.xori
// CHECK:         tir.load %p0[%{{.*}}, %i1] : memref<5x3xf32>

// strided_slice with a negative stride reads x[i, 8 - 2 * j].
// CHECK-LABEL: tir.prim_func @fused_strided_slice(%p0: memref<4x9xf32>, %T_strided_slice: memref<4x4xf32>)
// CHECK:         %[[S:.*]] = arith.muli %i1, %c-2 : index
// CHECK-NEXT:    %[[B:.*]] = arith.addi %c8, %[[S]] : index
// CHECK-NEXT:    %[[V:.*]] = tir.load %p0[%i0, %[[B]]] : memref<4x9xf32>
func.func @main(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %y: tensor<4x9xf32>) -> tensor<2x3xf32> {
  %0 = relay.take %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = relay.take %x, %i {axis = 0 : i64, mode = "wrap"} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %2 = relay.strided_slice %y {begin = array<i64: -1>, end = array<i64: 0>, strides = array<i64: -2>, axes = array<i64: 1>} : (tensor<4x9xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<2x3xf32>
}
