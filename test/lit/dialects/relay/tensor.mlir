// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Elementwise maths, casts and reductions round-trip through their custom and
// generic forms.

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x3xf32>, %i: tensor<5xi32>) -> tensor<4x3xf32> {
  // CHECK: relay.sigmoid %{{.*}} : tensor<4x3xf32>
  %a = relay.sigmoid %x : tensor<4x3xf32>
  // CHECK-NEXT: relay.tanh %{{.*}} : tensor<4x3xf32>
  %b = relay.tanh %a : tensor<4x3xf32>
  // CHECK-NEXT: relay.exp %{{.*}} : tensor<4x3xf32>
  %c = relay.exp %b : tensor<4x3xf32>
  // CHECK-NEXT: relay.sqrt %{{.*}} : tensor<4x3xf32>
  %d = relay.sqrt %c : tensor<4x3xf32>
  // CHECK-NEXT: relay.log %{{.*}} : tensor<4x3xf32>
  %e = relay.log %d : tensor<4x3xf32>
  // CHECK-NEXT: relay.negative %{{.*}} : tensor<4x3xf32>
  %f = relay.negative %e : tensor<4x3xf32>
  // CHECK-NEXT: relay.abs %{{.*}} : tensor<4x3xf32>
  %g = relay.abs %f : tensor<4x3xf32>
  // negative and abs accept integers.
  // CHECK-NEXT: relay.negative %{{.*}} : tensor<5xi32>
  %h = relay.negative %i : tensor<5xi32>
  // CHECK-NEXT: relay.abs %{{.*}} : tensor<5xi32>
  %k = relay.abs %h : tensor<5xi32>
  // CHECK-NEXT: relay.clip %{{.*}} {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : tensor<4x3xf32>
  %l = relay.clip %g {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : tensor<4x3xf32>
  // An infinite bound leaves that side open.
  // CHECK-NEXT: relay.clip %{{.*}} {a_min = 0xfff0000000000000 : f64, a_max = 1.000000e+00 : f64} : tensor<4x3xf32>
  %m = relay.clip %l {a_min = 0xFFF0000000000000 : f64, a_max = 1.0 : f64} : tensor<4x3xf32>
  func.return %m : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: relay.maximum %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %a = relay.maximum %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: relay.minimum %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %b = relay.minimum %a, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: relay.power %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %c = relay.power %b, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %c : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @cast_and_shape
func.func @cast_and_shape(%x: tensor<2x?x4xf32>) -> tensor<3xi64> {
  // CHECK: relay.cast %{{.*}} {dtype = "int8"} : (tensor<2x?x4xf32>) -> tensor<2x?x4xi8>
  %a = relay.cast %x {dtype = "int8"} : (tensor<2x?x4xf32>) -> tensor<2x?x4xi8>
  // CHECK-NEXT: relay.cast %{{.*}} {dtype = "uint8"} : (tensor<2x?x4xi8>) -> tensor<2x?x4xui8>
  %b = relay.cast %a {dtype = "uint8"} : (tensor<2x?x4xi8>) -> tensor<2x?x4xui8>
  // CHECK-NEXT: relay.cast %{{.*}} {dtype = "bool"} : (tensor<2x?x4xf32>) -> tensor<2x?x4xi1>
  %c = relay.cast %x {dtype = "bool"} : (tensor<2x?x4xf32>) -> tensor<2x?x4xi1>
  // The default dtype, int64, is not printed.
  // CHECK-NEXT: relay.shape_of %{{.*}} : (tensor<2x?x4xf32>) -> tensor<3xi64>
  %s = relay.shape_of %x : (tensor<2x?x4xf32>) -> tensor<3xi64>
  // CHECK-NEXT: relay.shape_of %{{.*}} {dtype = "int32"} : (tensor<2x?x4xf32>) -> tensor<3xi32>
  %t = relay.shape_of %x {dtype = "int32"} : (tensor<2x?x4xf32>) -> tensor<3xi32>
  func.return %s : tensor<3xi64>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  // CHECK: relay.sum %{{.*}} {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %a = relay.sum %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK-NEXT: relay.mean %{{.*}} {axis = array<i64: -1, 0>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %b = relay.mean %x {axis = array<i64: -1, 0>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // exclude reduces every axis but those listed.
  // CHECK-NEXT: relay.max %{{.*}} {axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %c = relay.max %x {axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // Without axis, every axis is reduced.
  // CHECK-NEXT: relay.min %{{.*}} : (tensor<2x3x4xf32>) -> tensor<f32>
  %d = relay.min %x : (tensor<2x3x4xf32>) -> tensor<f32>
  // An empty axis list reduces nothing.
  // CHECK-NEXT: relay.sum %{{.*}} {axis = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e = relay.sum %x {axis = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %d : tensor<f32>
}

// The remainders keep the operands' element type, signed or unsigned.
// CHECK-LABEL: func.func @remainders
func.func @remainders(%x: tensor<6xi32>, %y: tensor<1xi32>, %u: tensor<3xui64>) -> tensor<6xi32> {
  // CHECK: relay.floor_mod %{{.*}}, %{{.*}} : (tensor<6xi32>, tensor<1xi32>) -> tensor<6xi32>
  %a = relay.floor_mod %x, %y : (tensor<6xi32>, tensor<1xi32>) -> tensor<6xi32>
  // CHECK-NEXT: relay.trunc_mod %{{.*}}, %{{.*}} : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xui64>
  %b = relay.trunc_mod %u, %u : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xui64>
  func.return %a : tensor<6xi32>
}
