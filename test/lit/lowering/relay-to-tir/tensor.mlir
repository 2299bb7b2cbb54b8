// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// Elementwise relay ops left in a graph function (no fuse-ops): each becomes
// its own kernel `fused_<op>`, called with relay.call_lowered.

// One broadcasting add: the bias-like operand is read at the inner index only.
// CHECK-LABEL: tir.prim_func @fused_add(%p0: memref<4x3xf32>, %p1: memref<3xf32>, %T_add: memref<4x3xf32>) attributes {arg_names = ["p0", "p1", "T_add"]} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    tir.for %i0 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %[[A:.*]] = tir.load %p0[%i0, %i1] : memref<4x3xf32>
// CHECK-NEXT:        %[[B:.*]] = tir.load %p1[%i1] : memref<3xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:        tir.store %[[S]], %T_add[%i0, %i1] : memref<4x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }

// A size-1 axis broadcasts by reading index 0.
// CHECK-LABEL: tir.prim_func @fused_multiply(%p0: memref<4x3xf32>, %p1: memref<4x1xf32>, %T_multiply: memref<4x3xf32>)
// CHECK:         %[[L:.*]] = tir.load %p1[%i0, %c0] : memref<4x1xf32>
// CHECK-NEXT:    arith.mulf %{{.*}}, %[[L]] : f32

// Integer division truncates; a variable divisor is guarded against 0 and -1.
// CHECK-LABEL: tir.prim_func @fused_divide(%p0: memref<8xi32>, %p1: memref<8xi32>, %T_divide: memref<8xi32>)
// CHECK:         %[[Z:.*]] = arith.cmpi eq, %[[D:.*]], %c0_i32 : i32
// CHECK-NEXT:    %[[M:.*]] = arith.cmpi eq, %[[D]], %c-1_i32 : i32
// CHECK-NEXT:    %[[T:.*]] = arith.ori %[[Z]], %[[M]] : i1
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[T]], %c1_i32, %[[D]] : i32
// CHECK-NEXT:    arith.divsi %{{.*}}, %[[SAFE]] : i32

// relu on int64 is a signed max with 0.
// CHECK-LABEL: tir.prim_func @fused_nn_relu(%p0: memref<8xi64>, %T_relu: memref<8xi64>)
// CHECK:         arith.maxsi %{{.*}}, %c0_i64 : i64

// A second add with other operand types gets its own kernel, suffixed.
// CHECK-LABEL: tir.prim_func @fused_add_1(%p0: memref<8xi32>, %p1: memref<8xi32>, %T_add: memref<8xi32>)
// CHECK:         arith.addi %{{.*}}, %{{.*}} : i32

// Identical ops share one kernel; constants stay in the graph.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[C:.*]] = relay.const dense<2.000000e+00> : tensor<4x1xf32>
// CHECK-NEXT:    %[[X:.*]] = relay.call_lowered @fused_add(%x, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.call_lowered @fused_add(%[[X]], %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    relay.call_lowered @fused_multiply(%[[Y]], %[[C]]) : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    relay.call_lowered @fused_divide(%i, %j) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
// CHECK-NEXT:    relay.call_lowered @fused_nn_relu(%k) : (tensor<8xi64>) -> tensor<8xi64>
// CHECK-NEXT:    relay.call_lowered @fused_add_1(%i, %j) : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
func.func @main(%x: tensor<4x3xf32>, %b: tensor<3xf32>, %i: tensor<8xi32>, %j: tensor<8xi32>, %k: tensor<8xi64>) -> tensor<4x3xf32> {
  %c = relay.const dense<2.0> : tensor<4x1xf32>
  %0 = relay.add %x, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = relay.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = relay.multiply %1, %c : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  %3 = relay.divide %i, %j : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %4 = relay.nn.relu %k : tensor<8xi64>
  %5 = relay.add %i, %j : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  func.return %2 : tensor<4x3xf32>
}
