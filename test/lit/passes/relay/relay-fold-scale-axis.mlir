// RUN: xtvm-opt %s -p relay-fold-scale-axis | filecheck %s
// RUN: xtvm-opt %s -p relay-simplify-inference,relay-fold-constant,relay-fold-scale-axis,relay-fold-constant | filecheck %s --check-prefix=PIPE

// conv-output-scale: a per-output-channel scale ([O, 1, 1]) of the conv's output is folded into
// the weight's axis 0; the conv keeps its name, the old weight goes.
// CHECK-LABEL: func.func @output_scale
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<3x2x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT: func.return %y
func.func @output_scale(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %s = relay.const dense<[[[2.0]], [[3.0]], [[4.0]]]> : tensor<3x1x1xf32>
  %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
  %z = relay.multiply %y, %s : (tensor<1x3x2x2xf32>, tensor<3x1x1xf32>) -> tensor<1x3x2x2xf32>
  func.return %z : tensor<1x3x2x2xf32>
}

// Chained scales fold one after the other: a [1, O, 1, 1] scale on the left,
// then a scalar.
// CHECK-LABEL: func.func @chained_scales
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}5.000000e-01]]], {{\[\[\[}}1.000000e+00]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}1.500000e+00]]]]> : tensor<3x2x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w
// CHECK-NEXT: func.return %y
func.func @chained_scales(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %s = relay.const dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf32>
  %k = relay.const dense<0.5> : tensor<f32>
  %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
  %z = relay.multiply %s, %y : (tensor<1x3x1x1xf32>, tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %u = relay.multiply %z, %k : (tensor<1x3x2x2xf32>, tensor<f32>) -> tensor<1x3x2x2xf32>
  func.return %u : tensor<1x3x2x2xf32>
}

// conv-bias-add-output-scale, through a bias_add: the bias is scaled too.
// CHECK-LABEL: func.func @through_bias_add
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<3x2x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w
// CHECK-NEXT: %b = relay.const dense<[2.000000e+00, 6.000000e+00, 1.200000e+01]> : tensor<3xf32>
// CHECK-NEXT: %a = relay.nn.bias_add %y, %b : (tensor<1x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT: func.return %a
func.func @through_bias_add(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %b = relay.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = relay.const dense<[[[2.0]], [[3.0]], [[4.0]]]> : tensor<3x1x1xf32>
  %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
  %a = relay.nn.bias_add %y, %b {axis = 1 : i64} : (tensor<1x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  %z = relay.multiply %a, %s : (tensor<1x3x2x2xf32>, tensor<3x1x1xf32>) -> tensor<1x3x2x2xf32>
  func.return %z : tensor<1x3x2x2xf32>
}

// conv-add-output-scale, through an add of a per-channel constant: the bias becomes B * C.
// CHECK-LABEL: func.func @through_add
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<3x2x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w
// CHECK-NEXT: %b = relay.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}6.000000e+00]], {{\[\[}}1.200000e+01]]]]> : tensor<1x3x1x1xf32>
// CHECK-NEXT: %[[Z:.*]] = relay.add %y, %b : (tensor<1x3x2x2xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT: func.return %[[Z]]
func.func @through_add(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %b = relay.const dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>
  %s = relay.const dense<[[[[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x3x1x1xf32>
  %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
  %a = relay.add %b, %y : (tensor<3x1x1xf32>, tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %z = relay.multiply %a, %s : (tensor<1x3x2x2xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x2x2xf32>
  func.return %z : tensor<1x3x2x2xf32>
}

// A depthwise conv (groups = channels): its output channel o is still W's
// axis 0, so the same fold is right.
// CHECK-LABEL: func.func @depthwise
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}3.000000e+00]]], {{\[\[\[}}1.000000e+01]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w {groups = 2 : i64}
// CHECK-NEXT: func.return %y
func.func @depthwise(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = relay.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = relay.const dense<[[[3.0]], [[5.0]]]> : tensor<2x1x1xf32>
  %y = relay.nn.conv2d %x, %w {groups = 2 : i64} : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = relay.multiply %y, %s : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  func.return %z : tensor<1x2x3x3xf32>
}

// conv-input-scale, forward: a per-input-channel scale of the data scales W along axis 1 (with
// padding: zero padding commutes with the scale).
// CHECK-LABEL: func.func @input_scale
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]]]> : tensor<3x2x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT: func.return %y
func.func @input_scale(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x4x4xf32> {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %s = relay.const dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %m = relay.multiply %x, %s : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = relay.nn.conv2d %m, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}

// Forward, grouped (2 groups of 2 input channels): output channel o reads
// input channels 2 * (o // 1) + i, so W'[0] = [1, 2] and W'[1] = [3, 4].
// CHECK-LABEL: func.func @input_scale_grouped
// CHECK-NEXT: %w = relay.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT: func.return %y
func.func @input_scale_grouped(%x: tensor<1x4x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = relay.const dense<1.0> : tensor<2x2x1x1xf32>
  %s = relay.const dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %m = relay.multiply %s, %x : (tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %y = relay.nn.conv2d %m, %w {groups = 2 : i64} : (tensor<1x4x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Near misses: a per-spatial scale, a [3] scale (along the width, not the
// channels), a weight that is not a constant, a scale that is not a constant,
// a conv with another use, an integer conv, a bias_add along the width, and a
// data scale that broadcasts the data to more channels.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-7: relay.const
// CHECK-NEXT: %c1 = relay.nn.conv2d %x, %w
// CHECK-NEXT: %a = relay.multiply %c1, %spatial
// CHECK-NEXT: %c2 = relay.nn.conv2d %x, %w
// CHECK-NEXT: %b = relay.multiply %c2, %row
// CHECK-NEXT: %c3 = relay.nn.conv2d %x, %v
// CHECK-NEXT: %c = relay.multiply %c3, %s
// CHECK-NEXT: %c4 = relay.nn.conv2d %x, %w
// CHECK-NEXT: %d = relay.multiply %c4, %t
// CHECK-NEXT: %c5 = relay.nn.conv2d %x, %w
// CHECK-NEXT: %e = relay.multiply %c5, %s
// CHECK-NEXT: %c6 = relay.nn.conv2d %i, %wi
// CHECK-NEXT: %f = relay.multiply %c6, %si
// CHECK-NEXT: %c7 = relay.nn.conv2d %x, %w
// CHECK-NEXT: %g1 = relay.nn.bias_add %c7, %row {axis = 3 : i64}
// CHECK-NEXT: %g = relay.multiply %g1, %s
// CHECK-NEXT: %m = relay.multiply %x1, %si2
// CHECK-NEXT: %h = relay.nn.conv2d %m, %w
// CHECK-NEXT: func.return
func.func @kept(%x: tensor<1x2x3x3xf32>, %v: tensor<3x2x1x1xf32>, %t: tensor<3x1x1xf32>, %i: tensor<1x2x3x3xi32>, %x1: tensor<1x1x3x3xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xi32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %wi = relay.const dense<1> : tensor<3x2x1x1xi32>
  %spatial = relay.const dense<2.0> : tensor<3x3xf32>
  %row = relay.const dense<2.0> : tensor<3xf32>
  %s = relay.const dense<2.0> : tensor<3x1x1xf32>
  %si = relay.const dense<2> : tensor<3x1x1xi32>
  %si2 = relay.const dense<2.0> : tensor<2x1x1xf32>
  %c1 = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  %a = relay.multiply %c1, %spatial : (tensor<1x3x3x3xf32>, tensor<3x3xf32>) -> tensor<1x3x3x3xf32>
  %c2 = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  %b = relay.multiply %c2, %row : (tensor<1x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %c3 = relay.nn.conv2d %x, %v : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  %c = relay.multiply %c3, %s : (tensor<1x3x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x3x3x3xf32>
  %c4 = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  %d = relay.multiply %c4, %t : (tensor<1x3x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x3x3x3xf32>
  %c5 = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  %e = relay.multiply %c5, %s : (tensor<1x3x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x3x3x3xf32>
  %c6 = relay.nn.conv2d %i, %wi : (tensor<1x2x3x3xi32>, tensor<3x2x1x1xi32>) -> tensor<1x3x3x3xi32>
  %f = relay.multiply %c6, %si : (tensor<1x3x3x3xi32>, tensor<3x1x1xi32>) -> tensor<1x3x3x3xi32>
  %c7 = relay.nn.conv2d %x, %w : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  %g1 = relay.nn.bias_add %c7, %row {axis = 3 : i64} : (tensor<1x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %g = relay.multiply %g1, %s : (tensor<1x3x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x3x3x3xf32>
  %m = relay.multiply %x1, %si2 : (tensor<1x1x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %h = relay.nn.conv2d %m, %w : (tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  func.return %a, %b, %c, %d, %e, %c5, %f, %g, %h : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xi32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
}

// The CNN case: conv, bias and batch norm with constant parameters become a
// conv with scaled weights, its scaled bias and an add of the batch norm's
// shift; no multiply is left. (scale = gamma / 2 = [1, 2, 3], shift = 1 - scale.)
// PIPE-LABEL: func.func @conv_batch_norm
// PIPE-NEXT: %shift = relay.const dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}-1.000000e+00]], {{\[\[}}-2.000000e+00]]]> : tensor<3x1x1xf32>
// PIPE-NEXT: %w = relay.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}3.000000e+00]]]]> : tensor<3x2x1x1xf32>
// PIPE-NEXT: %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
// PIPE-NEXT: %b = relay.const dense<[1.000000e+00, 4.000000e+00, 9.000000e+00]> : tensor<3xf32>
// PIPE-NEXT: %a = relay.nn.bias_add %y, %b : (tensor<1x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
// PIPE-NEXT: %[[N:.*]] = relay.add %a, %shift : (tensor<1x3x2x2xf32>, tensor<3x1x1xf32>) -> tensor<1x3x2x2xf32>
// PIPE-NEXT: func.return %[[N]]
func.func @conv_batch_norm(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w = relay.const dense<1.0> : tensor<3x2x1x1xf32>
  %b = relay.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %g = relay.const dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
  %beta = relay.const dense<1.0> : tensor<3xf32>
  %mean = relay.const dense<1.0> : tensor<3xf32>
  %var = relay.const dense<4.0> : tensor<3xf32>
  %y = relay.nn.conv2d %x, %w : (tensor<1x2x2x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x2x2xf32>
  %a = relay.nn.bias_add %y, %b : (tensor<1x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  %n = relay.nn.batch_norm %a, %g, %beta, %mean, %var {epsilon = 0.0 : f64} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  func.return %n : tensor<1x3x2x2xf32>
}
