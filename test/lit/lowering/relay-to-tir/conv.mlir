// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// conv2d: one reduction over (input channel, kernel row, kernel column) into
// a local accumulator; padding is a guard around the update (only in-bounds
// elements are read), not a padded copy of the input.

// A padded, grouped convolution fused with relu: one loop nest; the group's
// first input channel is (output channel / channels per group) * (input
// channels per group).
// CHECK-LABEL: tir.prim_func @fused_nn_conv2d_nn_relu(%p0: memref<1x4x5x5xf32>, %p1: memref<4x2x3x3xf32>, %T_relu: memref<1x4x5x5xf32>) attributes {arg_names = ["p0", "p1", "T_relu"]} {
// CHECK:         tir.for %i0 = %c0 to %c1 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        tir.for %i2 = %c0 to %c5 kind "serial" {
// CHECK-NEXT:          tir.for %i3 = %c0 to %c5 kind "serial" {
// CHECK-NEXT:            %T_conv2d_nchw_acc = tir.allocate "local" : memref<1xf32>
// CHECK-NEXT:            tir.store %cst, %T_conv2d_nchw_acc[%c0] : memref<1xf32>
// CHECK-NEXT:            tir.for %rc = %c0 to %c2 kind "serial" {
// CHECK-NEXT:              tir.for %ry = %c0 to %c3 kind "serial" {
// CHECK-NEXT:                tir.for %rx = %c0 to %c3 kind "serial" {
// CHECK-NEXT:                  %[[Y0:.*]] = arith.addi %i2, %ry : index
// CHECK-NEXT:                  %[[Y:.*]] = arith.subi %[[Y0]], %c1 : index
// CHECK:                       %[[X0:.*]] = arith.addi %i3, %rx : index
// CHECK-NEXT:                  %[[X:.*]] = arith.subi %[[X0]], %c1 : index
// CHECK:                       %[[IN:.*]] = arith.cmpi slt, %[[X]], %c5 : index
// CHECK-NEXT:                  %[[ALL:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
// CHECK-NEXT:                  tir.if %[[ALL]] {
// CHECK-NEXT:                    %[[ACC:.*]] = tir.load %T_conv2d_nchw_acc[%c0] : memref<1xf32>
// CHECK-NEXT:                    %[[G:.*]] = arith.divsi %i1, %c2 : index
// CHECK-NEXT:                    %[[G2:.*]] = arith.muli %[[G]], %c2 : index
// CHECK-NEXT:                    %[[C:.*]] = arith.addi %[[G2]], %rc : index
// CHECK-NEXT:                    %[[D:.*]] = tir.load %p0[%i0, %[[C]], %[[Y]], %[[X]]] : memref<1x4x5x5xf32>
// CHECK-NEXT:                    %[[W:.*]] = tir.load %p1[%i1, %rc, %ry, %rx] : memref<4x2x3x3xf32>
// CHECK-NEXT:                    %[[DW:.*]] = arith.mulf %[[D]], %[[W]] : f32
// CHECK-NEXT:                    %[[S:.*]] = arith.addf %[[ACC]], %[[DW]] : f32
// CHECK-NEXT:                    tir.store %[[S]], %T_conv2d_nchw_acc[%c0] : memref<1xf32>
// CHECK-NEXT:                  }
// CHECK-NEXT:                }
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:            %[[V:.*]] = tir.load %T_conv2d_nchw_acc[%c0] : memref<1xf32>
// CHECK-NEXT:            %[[R:.*]] = arith.maximumf %[[V]], %cst : f32
// CHECK-NEXT:            tir.store %[[R]], %T_relu[%i0, %i1, %i2, %i3] : memref<1x4x5x5xf32>
func.func private @fused_nn_conv2d_nn_relu(%p0: tensor<1x4x5x5xf32>, %p1: tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32> attributes {relay.primitive} {
  %0 = relay.nn.conv2d %p0, %p1 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  %1 = relay.nn.relu %0 : tensor<1x4x5x5xf32>
  func.return %1 : tensor<1x4x5x5xf32>
}

// Without padding there is no guard; strides and out_dtype show in the indices
// and the widening of int8 operands to the int32 accumulator.
// CHECK-LABEL: tir.prim_func @fused_nn_conv2d(%p0: memref<1x1x5x5xi8>, %p1: memref<2x1x2x2xi8>, %T_conv2d_nchw: memref<1x2x2x2xi32>)
// CHECK-NOT:     tir.if
// CHECK:         tir.for %y = %c0 to %c2 kind "serial" {
// CHECK:         %[[Y:.*]] = arith.muli %y, %c2 : index
// CHECK-NEXT:    %[[YY:.*]] = arith.addi %[[Y]], %ry : index
// CHECK:         %[[D:.*]] = tir.load %p0[%b, %rc, %[[YY]], %{{.*}}] : memref<1x1x5x5xi8>
// CHECK-NEXT:    %[[DX:.*]] = arith.extsi %[[D]] : i8 to i32
// CHECK-NEXT:    %[[W:.*]] = tir.load %p1[%f, %rc, %ry, %rx] : memref<2x1x2x2xi8>
// CHECK-NEXT:    %[[WX:.*]] = arith.extsi %[[W]] : i8 to i32
// CHECK-NEXT:    arith.muli %[[DX]], %[[WX]] : i32
// CHECK:         tir.return
func.func @main(%x: tensor<1x1x5x5xi8>, %w: tensor<2x1x2x2xi8>) -> tensor<1x2x2x2xi32> {
  %0 = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, out_dtype = "int32"} : (tensor<1x1x5x5xi8>, tensor<2x1x2x2xi8>) -> tensor<1x2x2x2xi32>
  func.return %0 : tensor<1x2x2x2xi32>
}
