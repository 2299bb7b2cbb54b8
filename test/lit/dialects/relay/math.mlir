// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// The unary maths of relay.math round-trip through their custom and generic
// forms.

// CHECK-LABEL: func.func @rounding
func.func @rounding(%x: tensor<4x3xf32>, %i: tensor<5xi8>, %u: tensor<5xui16>) -> tensor<4x3xf32> {
  // CHECK: relay.floor %{{.*}} : tensor<4x3xf32>
  %a = relay.floor %x : tensor<4x3xf32>
  // CHECK-NEXT: relay.ceil %{{.*}} : tensor<4x3xf32>
  %b = relay.ceil %a : tensor<4x3xf32>
  // CHECK-NEXT: relay.round %{{.*}} : tensor<4x3xf32>
  %c = relay.round %b : tensor<4x3xf32>
  // CHECK-NEXT: relay.trunc %{{.*}} : tensor<4x3xf32>
  %d = relay.trunc %c : tensor<4x3xf32>
  // sign accepts every numeric type.
  // CHECK-NEXT: relay.sign %{{.*}} : tensor<4x3xf32>
  %e = relay.sign %d : tensor<4x3xf32>
  // CHECK-NEXT: relay.sign %{{.*}} : tensor<5xi8>
  %f = relay.sign %i : tensor<5xi8>
  // CHECK-NEXT: relay.sign %{{.*}} : tensor<5xui16>
  %g = relay.sign %u : tensor<5xui16>
  func.return %e : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @trigonometry
func.func @trigonometry(%x: tensor<2xf64>, %h: tensor<3xf16>) -> tensor<2xf64> {
  // CHECK: relay.sin %{{.*}} : tensor<2xf64>
  %a = relay.sin %x : tensor<2xf64>
  // CHECK-NEXT: relay.cos %{{.*}} : tensor<2xf64>
  %b = relay.cos %a : tensor<2xf64>
  // CHECK-NEXT: relay.tan %{{.*}} : tensor<2xf64>
  %c = relay.tan %b : tensor<2xf64>
  // CHECK-NEXT: relay.asin %{{.*}} : tensor<2xf64>
  %d = relay.asin %c : tensor<2xf64>
  // CHECK-NEXT: relay.acos %{{.*}} : tensor<2xf64>
  %e = relay.acos %d : tensor<2xf64>
  // CHECK-NEXT: relay.atan %{{.*}} : tensor<2xf64>
  %f = relay.atan %e : tensor<2xf64>
  // CHECK-NEXT: relay.sinh %{{.*}} : tensor<2xf64>
  %g = relay.sinh %f : tensor<2xf64>
  // CHECK-NEXT: relay.cosh %{{.*}} : tensor<2xf64>
  %h1 = relay.cosh %g : tensor<2xf64>
  // CHECK-NEXT: relay.asinh %{{.*}} : tensor<2xf64>
  %i = relay.asinh %h1 : tensor<2xf64>
  // CHECK-NEXT: relay.acosh %{{.*}} : tensor<2xf64>
  %j = relay.acosh %i : tensor<2xf64>
  // CHECK-NEXT: relay.atanh %{{.*}} : tensor<2xf64>
  %k = relay.atanh %j : tensor<2xf64>
  // CHECK-NEXT: relay.erf %{{.*}} : tensor<3xf16>
  %l = relay.erf %h : tensor<3xf16>
  func.return %k : tensor<2xf64>
}

// The classifications give bool tensors of the operand's shape.
// CHECK-LABEL: func.func @classify
func.func @classify(%x: tensor<2x?xf32>) -> tensor<2x?xi1> {
  // CHECK: relay.isnan %{{.*}} : (tensor<2x?xf32>) -> tensor<2x?xi1>
  %a = relay.isnan %x : (tensor<2x?xf32>) -> tensor<2x?xi1>
  // CHECK-NEXT: relay.isinf %{{.*}} : (tensor<2x?xf32>) -> tensor<2x?xi1>
  %b = relay.isinf %x : (tensor<2x?xf32>) -> tensor<2x?xi1>
  // CHECK-NEXT: relay.isfinite %{{.*}} : (tensor<2x?xf32>) -> tensor<2x?xi1>
  %c = relay.isfinite %x : (tensor<2x?xf32>) -> tensor<2x?xi1>
  func.return %c : tensor<2x?xi1>
}
