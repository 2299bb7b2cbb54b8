// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// A `?` broadcast against a static 3: the kernel asserts it is 1 or 3 once
// the variable is read, and reads row 0 when it is 1.
// CHECK-LABEL: tir.prim_func @fused_add(%p0: memref<?x4xf32>, %p1: memref<3x4xf32>, %T_add: memref<3x4xf32>)
// CHECK:         %p0_n0 = tir.shape_var "p0_n0"
// CHECK-NEXT:    %[[ONE:.*]] = arith.cmpi eq, %p0_n0, %c1 : index
// CHECK-NEXT:    %[[THREE:.*]] = arith.cmpi eq, %p0_n0, %c3 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.ori %[[ONE]], %[[THREE]] : i1
// CHECK-NEXT:    tir.assert %[[OK]], "a dynamic extent (p0_n0) broadcast to 3 must be 1 or 3"
// CHECK:           %[[ROW:.*]] = arith.select %{{.*}}, %c0, %i0 : index
// CHECK-NEXT:      tir.load %p0[%[[ROW]], %i1] : memref<?x4xf32>
func.func @main(%x: tensor<?x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = relay.add %x, %y : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}
