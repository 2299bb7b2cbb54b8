// RUN: xtvm-opt %s -p relay-fold-constant | filecheck %s

// A chain of ops on constants folds to one constant; the inputs vanish.
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: %[[C:.*]] = relay.const dense<[-1.000000e+00, 5.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: relay.multiply %x, %[[C]]
  // CHECK-NEXT: func.return
  %a = relay.const dense<[-4.0, 2.0]> : tensor<2xf32>
  %b = relay.const dense<3.0> : tensor<2xf32>
  %c = relay.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = relay.nn.relu %c : tensor<2xf32>
  %f = relay.const dense<[7.0, 2.5]> : tensor<2xf32>
  %d = relay.multiply %r, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %s = relay.divide %d, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %e = relay.subtract %s, %r : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %g = relay.add %e, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %m = relay.multiply %x, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %m : tensor<2xf32>
}

// Only the constant part of an expression folds.
// CHECK-LABEL: func.func @partial
func.func @partial(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CHECK-NEXT: %[[T:.*]] = relay.const dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  // CHECK-NEXT: relay.add %x, %[[T]]
  %a = relay.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %t = relay.transpose %a : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = relay.add %x, %t : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %y : tensor<2x2xf32>
}

// nn and shape ops fold through their references.
// CHECK-LABEL: func.func @dense_reshape
func.func @dense_reshape() -> tensor<4xf32> {
  // CHECK-NEXT: relay.const dense<[3.000000e+00, 7.000000e+00, 6.000000e+00, 1.400000e+01]> : tensor<4xf32>
  // CHECK-NEXT: func.return
  %x = relay.const dense<[[1.0, 2.0], [2.0, 4.0]]> : tensor<2x2xf32>
  %w = relay.const dense<[[1.0, 1.0], [1.0, 3.0]]> : tensor<2x2xf32>
  %d = relay.nn.dense %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = relay.reshape %d {newshape = array<i64: -1>} : (tensor<2x2xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// Integer division truncates toward zero, as at run time.
// CHECK-LABEL: func.func @integers
func.func @integers() -> tensor<3xi32> {
  // CHECK-NEXT: relay.const dense<[3, -3, 0]> : tensor<3xi32>
  %a = relay.const dense<[7, -7, 1]> : tensor<3xi32>
  %b = relay.const dense<2> : tensor<3xi32>
  %d = relay.divide %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  func.return %d : tensor<3xi32>
}

// An op whose declared type is imprecise is kept (run relay-infer-type first),
// and a lowered call is never folded.
// CHECK-LABEL: func.func @not_folded
func.func @not_folded() -> (tensor<?xf32>, tensor<2xf32>) {
  // CHECK: relay.add %{{.*}}, %{{.*}} : (tensor<2xf32>, tensor<2xf32>) -> tensor<?xf32>
  // CHECK: relay.call_lowered @kernel
  %a = relay.const dense<1.0> : tensor<2xf32>
  %b = relay.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<?xf32>
  %k = relay.call_lowered @kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %b, %k : tensor<?xf32>, tensor<2xf32>
}

// A multi-result op (split) folds into one constant per result.
// CHECK-LABEL: func.func @fold_split
// CHECK-NEXT: %{{.*}} = relay.const dense<[4.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: func.return
func.func @fold_split() -> tensor<2xf32> {
  %c = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a, %b = relay.split %c {indices_or_sections = array<i64: 2>} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %s = relay.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %s : tensor<2xf32>
}
