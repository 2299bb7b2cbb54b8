// RUN: xtvm-opt %s -p relay-simplify-inference | filecheck %s
// RUN: xtvm-opt %s -p relay-simplify-inference,relay-fold-constant | filecheck %s --check-prefix=FOLD

// batch-norm-scale-shift, NCHW batch norm on axis 1: the per-channel scale and shift are computed
// from the parameters, then expanded to [C, 1, 1] to broadcast along axis 1.
// CHECK-LABEL: func.func @batch_norm_nchw
// CHECK-NEXT: %eps = relay.const dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT: %var_eps = relay.add %v, %eps : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT: %std = relay.sqrt %var_eps : tensor<8xf32>
// CHECK-NEXT: %scale = relay.divide %g, %std : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %mean_scale = relay.multiply %m, %scale : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %shift = relay.subtract %b, %mean_scale : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = relay.expand_dims %scale {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK-NEXT: %[[B:.*]] = relay.expand_dims %shift {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK-NEXT: %[[M:.*]] = relay.multiply %x, %[[S]] : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT: %[[Y:.*]] = relay.add %[[M]], %[[B]] : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT: func.return %[[Y]]
func.func @batch_norm_nchw(%x: tensor<1x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.000000e-03 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// On the last axis (NHWC, axis = -1) the parameters broadcast as they are.
// CHECK-LABEL: func.func @batch_norm_last_axis
// CHECK-NOT: relay.expand_dims
// CHECK: %[[M:.*]] = relay.multiply %x, %scale : (tensor<2x3x8xf16>, tensor<8xf16>) -> tensor<2x3x8xf16>
// CHECK-NEXT: %[[Y:.*]] = relay.add %[[M]], %shift : (tensor<2x3x8xf16>, tensor<8xf16>) -> tensor<2x3x8xf16>
// CHECK-NEXT: func.return %[[Y]]
func.func @batch_norm_last_axis(%x: tensor<2x3x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>, %m: tensor<8xf16>, %v: tensor<8xf16>) -> tensor<2x3x8xf16> {
  %y = relay.nn.batch_norm %x, %g, %b, %m, %v {axis = -1 : i64} : (tensor<2x3x8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>) -> tensor<2x3x8xf16>
  func.return %y : tensor<2x3x8xf16>
}

// Without scale (gamma) the scale is 1 / std; without center (beta) the shift
// is -(mean * scale). Gamma and beta are left unused.
// CHECK-LABEL: func.func @batch_norm_no_scale_no_center
// CHECK-NEXT: %eps = relay.const dense<1.000000e-05> : tensor<f32>
// CHECK-NEXT: %var_eps = relay.add %v, %eps
// CHECK-NEXT: %std = relay.sqrt %var_eps
// CHECK-NEXT: %one = relay.const dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %scale = relay.divide %one, %std : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %mean_scale = relay.multiply %m, %scale
// CHECK-NEXT: %shift = relay.negative %mean_scale : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = relay.multiply %x, %scale
// CHECK-NEXT: %[[Y:.*]] = relay.add %[[M]], %shift
// CHECK-NEXT: func.return %[[Y]]
func.func @batch_norm_no_scale_no_center(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = relay.nn.batch_norm %x, %g, %b, %m, %v {center = false, scale = false} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// dropout-identity: dropout is the identity at inference; LRN has no cheaper
// form and stays.
// CHECK-LABEL: func.func @dropout_and_lrn
// CHECK-NEXT: %n = relay.nn.lrn %x
// CHECK-NEXT: func.return %x, %n
func.func @dropout_and_lrn(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %d = relay.nn.dropout %x {rate = 2.000000e-01 : f64} : tensor<1x8x4x4xf32>
  %n = relay.nn.lrn %x {size = 3 : i64} : tensor<1x8x4x4xf32>
  func.return %d, %n : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// Near misses: an integer batch norm (relay.sqrt needs floats), and one whose
// declared type is less precise than its data's (run relay-infer-type first).
// CHECK-LABEL: func.func @kept
// CHECK-NEXT: relay.nn.batch_norm %i
// CHECK-NEXT: relay.nn.batch_norm %x
// CHECK-NEXT: func.return
func.func @kept(%i: tensor<2x4xi32>, %p: tensor<4xi32>, %x: tensor<2x4xf32>, %q: tensor<4xf32>) -> (tensor<2x4xi32>, tensor<?x4xf32>) {
  %a = relay.nn.batch_norm %i, %p, %p, %p, %p : (tensor<2x4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %b = relay.nn.batch_norm %x, %q, %q, %q, %q : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  func.return %a, %b : tensor<2x4xi32>, tensor<?x4xf32>
}

// With constant parameters, relay-fold-constant leaves a single multiply and
// add by per-channel constants: scale = gamma / sqrt(var + eps) = gamma / 2,
// shift = beta - mean * scale = 1 - 2 * scale.
// FOLD-LABEL: func.func @constant_params
// FOLD-NEXT: %scale = relay.const dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]], {{\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]> : tensor<4x1x1xf32>
// FOLD-NEXT: %shift = relay.const dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}-1.000000e+00]], {{\[\[}}-2.000000e+00]], {{\[\[}}-3.000000e+00]]]> : tensor<4x1x1xf32>
// FOLD-NEXT: %[[M:.*]] = relay.multiply %x, %scale : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
// FOLD-NEXT: %[[Y:.*]] = relay.add %[[M]], %shift : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
// FOLD-NEXT: func.return %[[Y]]
func.func @constant_params(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %g = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = relay.const dense<1.0> : tensor<4xf32>
  %m = relay.const dense<2.0> : tensor<4xf32>
  %v = relay.const dense<4.0> : tensor<4xf32>
  %y = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 0.0 : f64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  func.return %y : tensor<1x4x2x2xf32>
}
