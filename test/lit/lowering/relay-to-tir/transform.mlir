// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// Shape ops: reshape maps each output index through the flat row-major
// offset; transpose permutes the load indices; a fused chain of both is one
// loop nest reading the input directly.

// A fused transpose + reshape: the transpose is inlined into the reshape,
// no intermediate buffer.
// CHECK-LABEL: tir.prim_func @fused_transpose_reshape(%p0: memref<2x3xf32>, %T_reshape: memref<6xf32>)
// CHECK-NOT:     tir.allocate
// CHECK:         tir.for %i0 = %c0 to %c6 kind "serial" {
// CHECK-NEXT:      %[[S:.*]] = arith.remsi %i0, %c2 : index
// CHECK-NEXT:      %[[R:.*]] = arith.divsi %i0, %c2 : index
// CHECK-NEXT:      %[[L:.*]] = tir.load %p0[%[[S]], %[[R]]] : memref<2x3xf32>
// CHECK-NEXT:      tir.store %[[L]], %T_reshape[%i0] : memref<6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
func.func private @fused_transpose_reshape(%p0: tensor<2x3xf32>) -> tensor<6xf32> attributes {relay.primitive} {
  %0 = relay.transpose %p0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = relay.reshape %0 {newshape = array<i64: -1>} : (tensor<3x2xf32>) -> tensor<6xf32>
  func.return %1 : tensor<6xf32>
}

// CHECK-LABEL: tir.prim_func @fused_reshape(%p0: memref<2x3x4xf32>, %T_reshape: memref<2x12xf32>) attributes {arg_names = ["p0", "T_reshape"]} {
// CHECK:         tir.for %i0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c12 kind "serial" {
// CHECK-NEXT:        %[[ROW:.*]] = arith.muli %i0, %c12 : index
// CHECK-NEXT:        %[[FLAT:.*]] = arith.addi %[[ROW]], %i1 : index
// CHECK-NEXT:        %[[A:.*]] = arith.divsi %[[FLAT]], %c12 : index
// CHECK-NEXT:        %[[Q:.*]] = arith.divsi %[[FLAT]], %c4 : index
// CHECK-NEXT:        %[[B:.*]] = arith.remsi %[[Q]], %c3 : index
// CHECK-NEXT:        %[[C:.*]] = arith.remsi %[[FLAT]], %c4 : index
// CHECK-NEXT:        %[[V:.*]] = tir.load %p0[%[[A]], %[[B]], %[[C]]] : memref<2x3x4xf32>
// CHECK-NEXT:        tir.store %[[V]], %T_reshape[%i0, %i1] : memref<2x12xf32>

// CHECK-LABEL: tir.prim_func @fused_transpose(%p0: memref<2x12xf32>, %T_transpose: memref<12x2xf32>)
// CHECK:         tir.for %i0 = %c0 to %c12 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:        %[[T:.*]] = tir.load %p0[%i1, %i0] : memref<2x12xf32>
// CHECK-NEXT:        tir.store %[[T]], %T_transpose[%i0, %i1] : memref<12x2xf32>

// Explicit axes: output axis d reads input axis axes[d].
// CHECK-LABEL: tir.prim_func @fused_transpose_1(%p0: memref<2x3x4xf32>, %T_transpose: memref<3x4x2xf32>)
// CHECK:         tir.load %p0[%i2, %i0, %i1] : memref<2x3x4xf32>

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[R1:.*]] = relay.call_lowered @fused_reshape(%x) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:    relay.call_lowered @fused_transpose(%[[R1]]) : (tensor<2x12xf32>) -> tensor<12x2xf32>
// CHECK-NEXT:    relay.call_lowered @fused_transpose_1(%x) : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT:    relay.call_lowered @fused_transpose_reshape(%y) : (tensor<2x3xf32>) -> tensor<6xf32>
func.func @main(%x: tensor<2x3x4xf32>, %y: tensor<2x3xf32>) -> tensor<12x2xf32> {
  %0 = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = relay.transpose %0 : (tensor<2x12xf32>) -> tensor<12x2xf32>
  %2 = relay.transpose %x {axes = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %3 = func.call @fused_transpose_reshape(%y) : (tensor<2x3xf32>) -> tensor<6xf32>
  func.return %1 : tensor<12x2xf32>
}

// split: one output argument per piece, each piece its own loop nest reading
// the input at its offset along the axis; the call has one result per piece.
// CHECK-LABEL: tir.prim_func @fused_split(%p0: memref<2x5xf32>, %T_split0: memref<2x2xf32>, %T_split1: memref<2x3xf32>) attributes {arg_names = ["p0", "T_split0", "T_split1"]} {
// CHECK:         tir.for %i0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:        %[[A:.*]] = tir.load %p0[%i0, %i1] : memref<2x5xf32>
// CHECK-NEXT:        tir.store %[[A]], %T_split0[%i0, %i1] : memref<2x2xf32>
// CHECK:         tir.for %[[I:.*]] = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %[[J:.*]] = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %[[OFF:.*]] = arith.addi %[[J]], %c2 : index
// CHECK-NEXT:        %[[B:.*]] = tir.load %p0[%[[I]], %[[OFF]]] : memref<2x5xf32>
// CHECK-NEXT:        tir.store %[[B]], %T_split1[%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-LABEL: func.func @splits
// CHECK-NEXT:    %[[P:.*]], %[[Q:.*]] = relay.call_lowered @fused_split(%x) : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[Q]] : tensor<2x3xf32>
func.func @splits(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  %0:2 = relay.split %x {indices_or_sections = array<i64: 2>, axis = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  func.return %0#1 : tensor<2x3xf32>
}
