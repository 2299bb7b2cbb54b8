// RUN: xtvm-opt %s -p tir-flatten-buffer | filecheck %s
// RUN: xtvm-opt %s -p tir-flatten-buffer,tir-simplify | filecheck %s --check-prefix=SIMPLE

// 2-d arguments and a 2-d allocation become 1-d; indices are linearised
// row-major (i*8 + j), a rank-0 buffer becomes memref<1xT> indexed by 0,
// and 1-d buffers are left alone.
// CHECK-LABEL: tir.prim_func @transpose(%A: memref<32xf32>, %S: memref<1xf32>, %V: memref<4xf32>)
// CHECK-SAME:      attributes {tir.buffer_shapes = [array<i64: 4, 8>, array<i64>, array<i64: 4>]} {
// CHECK:         %t = tir.allocate "local" : memref<32xf32>
// CHECK:         tir.for %i = %c0 to %c4 kind "serial" {
// CHECK-NEXT:      tir.for %j = %c0 to %c8 kind "serial" {
// CHECK-NEXT:        %[[S1:.*]] = arith.constant 8 : index
// CHECK-NEXT:        %[[M1:.*]] = arith.muli %i, %[[S1]] : index
// CHECK-NEXT:        %[[L1:.*]] = arith.addi %[[M1]], %j : index
// CHECK-NEXT:        %v = tir.load %A[%[[L1]]] : memref<32xf32>
// CHECK-NEXT:        %[[S2:.*]] = arith.constant 4 : index
// CHECK-NEXT:        %[[M2:.*]] = arith.muli %j, %[[S2]] : index
// CHECK-NEXT:        %[[L2:.*]] = arith.addi %[[M2]], %i : index
// CHECK-NEXT:        tir.store %v, %t[%[[L2]]] {note = "kept"} : memref<32xf32>
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %s = tir.load %S[%[[Z]]] : memref<1xf32>
// CHECK-NEXT:        tir.store %s, %V[%i] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// SIMPLE-LABEL: tir.prim_func @transpose(%A: memref<32xf32>, %S: memref<1xf32>, %V: memref<4xf32>)
// SIMPLE:             %[[M1:.*]] = arith.muli %i, %c8 : index
// SIMPLE-NEXT:        %[[L1:.*]] = arith.addi %[[M1]], %j : index
// SIMPLE-NEXT:        %v = tir.load %A[%[[L1]]] : memref<32xf32>
// SIMPLE-NEXT:        %[[M2:.*]] = arith.muli %j, %c4 : index
// SIMPLE-NEXT:        %[[L2:.*]] = arith.addi %[[M2]], %i : index
// SIMPLE-NEXT:        tir.store %v, %t[%[[L2]]] {note = "kept"} : memref<32xf32>
// SIMPLE-NEXT:        %s = tir.load %S[%c0] : memref<1xf32>
tir.prim_func @transpose(%A: memref<4x8xf32>, %S: memref<f32>, %V: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = tir.allocate "local" : memref<8x4xf32>
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %t[%j, %i] {note = "kept"} : memref<8x4xf32>
      %s = tir.load %S[] : memref<f32>
      tir.store %s, %V[%i] : memref<4xf32>
    }
  }
  tir.return
}

// Rank 3: strides 12, 4, 1; other attributes are kept.
// CHECK-LABEL: tir.prim_func @rank3(%B: memref<24xi32>, %x: index, %y: index, %z: index)
// CHECK-SAME:      attributes {arg_names = ["B", "x", "y", "z"], tir.buffer_shapes = [array<i64: 2, 3, 4>, array<i64>, array<i64>, array<i64>]} {
// CHECK-NEXT:    %[[S0:.*]] = arith.constant 12 : index
// CHECK-NEXT:    %[[A0:.*]] = arith.muli %x, %[[S0]] : index
// CHECK-NEXT:    %[[S1:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[A1:.*]] = arith.muli %y, %[[S1]] : index
// CHECK-NEXT:    %[[A2:.*]] = arith.addi %[[A0]], %[[A1]] : index
// CHECK-NEXT:    %[[A3:.*]] = arith.addi %[[A2]], %z : index
// CHECK-NEXT:    %v = tir.load %B[%[[A3]]] : memref<24xi32>
tir.prim_func @rank3(%B: memref<2x3x4xi32>, %x: index, %y: index, %z: index) attributes {arg_names = ["B", "x", "y", "z"]} {
  %v = tir.load %B[%x, %y, %z] : memref<2x3x4xi32>
  tir.store %v, %B[%x, %y, %z] : memref<2x3x4xi32>
  tir.return
}
