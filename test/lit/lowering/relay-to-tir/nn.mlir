// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// relay.nn ops: a reduction is a one-element local accumulator (init, then
// the reduction loop, then the store); a fused primitive function keeps ONE
// loop nest where the elementwise epilogue follows the reduction per element.

// The fused group dense + bias_add + relu: one loop nest over the output, no
// intermediate buffer; per element: init, accumulate over k, bias, relu, store.
// CHECK-LABEL: tir.prim_func @fused_nn_dense_nn_bias_add_nn_relu(%p0: memref<2x8xf32>, %p1: memref<4x8xf32>, %p2: memref<4xf32>, %T_relu: memref<2x4xf32>) attributes {arg_names = ["p0", "p1", "p2", "T_relu"]} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    tir.for %i0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %T_dense_acc = tir.allocate "local" : memref<1xf32>
// CHECK-NEXT:        tir.store %cst, %T_dense_acc[%c0] : memref<1xf32>
// CHECK-NEXT:        tir.for %k = %c0 to %c8 kind "serial" {
// CHECK-NEXT:          %[[ACC:.*]] = tir.load %T_dense_acc[%c0] : memref<1xf32>
// CHECK-NEXT:          %[[X:.*]] = tir.load %p0[%i0, %k] : memref<2x8xf32>
// CHECK-NEXT:          %[[W:.*]] = tir.load %p1[%i1, %k] : memref<4x8xf32>
// CHECK-NEXT:          %[[XW:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT:          %[[SUM:.*]] = arith.addf %[[ACC]], %[[XW]] : f32
// CHECK-NEXT:          tir.store %[[SUM]], %T_dense_acc[%c0] : memref<1xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[D:.*]] = tir.load %T_dense_acc[%c0] : memref<1xf32>
// CHECK-NEXT:        %[[B:.*]] = tir.load %p2[%i1] : memref<4xf32>
// CHECK-NEXT:        %[[DB:.*]] = arith.addf %[[D]], %[[B]] : f32
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[DB]], %cst : f32
// CHECK-NEXT:        tir.store %[[R]], %T_relu[%i0, %i1] : memref<2x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
func.func private @fused_nn_dense_nn_bias_add_nn_relu(%p0: tensor<2x8xf32>, %p1: tensor<4x8xf32>, %p2: tensor<4xf32>) -> tensor<2x4xf32> attributes {relay.primitive} {
  %0 = relay.nn.dense %p0, %p1 : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %1 = relay.nn.bias_add %0, %p2 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = relay.nn.relu %1 : tensor<2x4xf32>
  func.return %2 : tensor<2x4xf32>
}

// dense alone: the accumulator is stored to the output.
// CHECK-LABEL: tir.prim_func @fused_nn_dense(%p0: memref<2x8xf32>, %p1: memref<4x8xf32>, %T_dense: memref<2x4xf32>)
// CHECK:         tir.for %i0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %T_dense_acc = tir.allocate "local" : memref<1xf32>
// CHECK-NEXT:        tir.store %cst, %T_dense_acc[%c0] : memref<1xf32>
// CHECK-NEXT:        tir.for %k = %c0 to %c8 kind "serial" {
// CHECK:             }
// CHECK-NEXT:        %[[V:.*]] = tir.load %T_dense_acc[%c0] : memref<1xf32>
// CHECK-NEXT:        tir.store %[[V]], %T_dense[%i0, %i1] : memref<2x4xf32>

// softmax: three stages, the max and the exp-sum in global buffers.
// CHECK-LABEL: tir.prim_func @fused_nn_softmax(%p0: memref<2x4xf32>, %T_softmax_norm: memref<2x4xf32>)
// CHECK:         %cst = arith.constant -3.40282347e+38 : f32
// CHECK:         %T_softmax_maxelem = tir.allocate "global" : memref<2xf32>
// CHECK-NEXT:    tir.for %i0 = %c0 to %c2 kind "serial" {
// CHECK:             arith.maximumf
// CHECK:           tir.store %{{.*}}, %T_softmax_maxelem[%i0] : memref<2xf32>
// CHECK:         %T_softmax_expsum = tir.allocate "global" : memref<2xf32>
// CHECK-NEXT:    tir.for %[[I:.*]] = %c0 to %c2 kind "serial" {
// CHECK:             %[[M:.*]] = tir.load %T_softmax_maxelem[%[[I]]] : memref<2xf32>
// CHECK-NEXT:        %[[SH:.*]] = arith.subf %{{.*}}, %[[M]] : f32
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[SH]] : f32
// CHECK-NEXT:        arith.addf %{{.*}}, %[[E]] : f32
// CHECK:           tir.store %{{.*}}, %T_softmax_expsum[%[[I]]] : memref<2xf32>
// CHECK:         tir.for %[[N:.*]] = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      tir.for %[[J:.*]] = %c0 to %c4 kind "serial" {
// CHECK:             math.exp
// CHECK-NEXT:        %[[S:.*]] = tir.load %T_softmax_expsum[%[[N]]] : memref<2xf32>
// CHECK-NEXT:        %[[Q:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:        tir.store %[[Q]], %T_softmax_norm[%[[N]], %[[J]]] : memref<2x4xf32>

// matmul with transpose_b and a broadcast batch: b has no batch axis.
// CHECK-LABEL: tir.prim_func @fused_nn_matmul(%p0: memref<3x2x8xf32>, %p1: memref<4x8xf32>, %T_matmul_NT: memref<3x2x4xf32>)
// CHECK:         tir.for %k = %c0 to %c8 kind "serial" {
// CHECK-NEXT:      tir.load %T_matmul_NT_acc[%c0] : memref<1xf32>
// CHECK-NEXT:      tir.load %p0[%i0, %i1, %k] : memref<3x2x8xf32>
// CHECK-NEXT:      tir.load %p1[%i2, %k] : memref<4x8xf32>

// The call of the primitive function becomes relay.call_lowered; the
// primitive func.func is gone.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    relay.call_lowered @fused_nn_dense(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[F:.*]] = relay.call_lowered @fused_nn_dense_nn_bias_add_nn_relu(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    relay.call_lowered @fused_nn_softmax(%[[F]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    relay.call_lowered @fused_nn_matmul(%a, %w)
// CHECK-NOT:     func.func private
func.func @main(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>, %a: tensor<3x2x8xf32>) -> tensor<2x4xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %1 = func.call @fused_nn_dense_nn_bias_add_nn_relu(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = relay.nn.softmax %1 {axis = -1 : i64} : tensor<2x4xf32>
  %3 = relay.nn.matmul %a, %w {transpose_b = true} : (tensor<3x2x8xf32>, tensor<4x8xf32>) -> tensor<3x2x4xf32>
  func.return %2 : tensor<2x4xf32>
}
