// RUN: xtvm-opt %s -p relay-eliminate-common-subexpr | filecheck %s

// A repeated chain collapses into its first occurrence: once %a2 is %a1,
// %b2 has the same operands as %b1 and goes too.
// CHECK-LABEL: func.func @repeated_chain
// CHECK-NEXT: %a1 = relay.nn.relu %x
// CHECK-NEXT: %b1 = relay.add %a1, %y
// CHECK-NEXT: %c = relay.multiply %b1, %b1
// CHECK-NEXT: func.return %c, %a1
func.func @repeated_chain(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a1 = relay.nn.relu %x : tensor<4xf32>
  %b1 = relay.add %a1, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a2 = relay.nn.relu %x : tensor<4xf32>
  %b2 = relay.add %a2, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = relay.multiply %b1, %b2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c, %a2 : tensor<4xf32>, tensor<4xf32>
}

// Constants merge when type and bytes are equal (a splat and its written-out
// form are the same bytes); the same bytes with another shape, another value,
// and -0.0 (other bytes than 0.0) stay apart.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %c1 = relay.const dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %shape = relay.const dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT: %one = relay.const dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %neg = relay.const dense<-0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: func.return %c1, %c1, %shape, %one, %neg
func.func @constants() -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c1 = relay.const dense<0.0> : tensor<4xf32>
  %c2 = relay.const dense<[0.0, 0.0, 0.0, 0.0]> : tensor<4xf32>
  %shape = relay.const dense<0.0> : tensor<2x2xf32>
  %one = relay.const dense<1.0> : tensor<4xf32>
  %neg = relay.const dense<-0.0> : tensor<4xf32>
  func.return %c1, %c2, %shape, %one, %neg : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<4xf32>
}

// Merged constants make their users equal: both adds become one.
// CHECK-LABEL: func.func @through_constants
// CHECK-NEXT: %c1 = relay.const
// CHECK-NEXT: %a1 = relay.add %x, %c1
// CHECK-NEXT: func.return %a1, %a1
func.func @through_constants(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c1 = relay.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %a1 = relay.add %x, %c1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c2 = relay.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %a2 = relay.add %x, %c2 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %a1, %a2 : tensor<3xf32>, tensor<3xf32>
}

// Properties must be equal; an omitted property equals its default value.
// CHECK-LABEL: func.func @properties
// CHECK-NEXT: %e1 = relay.expand_dims %x {axis = 0 : i64}
// CHECK-NEXT: %e3 = relay.expand_dims %x {axis = 1 : i64}
// CHECK-NEXT: %c1 = relay.nn.conv2d %i, %w
// CHECK-NEXT: %c2 = relay.nn.conv2d %i, %w {padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT: %c3 = relay.nn.conv2d %i, %w {strides = array<i64: 2, 2>}
// CHECK-NEXT: func.return %e1, %e1, %e3, %c1, %c2, %c3, %c1
func.func @properties(%x: tensor<3xf32>, %i: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<3x1xf32>, tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<1x4x2x2xf32>, tensor<1x4x4x4xf32>) {
  %e1 = relay.expand_dims %x {axis = 0 : i64} : (tensor<3xf32>) -> tensor<1x3xf32>
  %e2 = relay.expand_dims %x {axis = 0 : i64, num_newaxis = 1 : i64} : (tensor<3xf32>) -> tensor<1x3xf32>
  %e3 = relay.expand_dims %x {axis = 1 : i64} : (tensor<3xf32>) -> tensor<3x1xf32>
  %c1 = relay.nn.conv2d %i, %w : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %c2 = relay.nn.conv2d %i, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  %c3 = relay.nn.conv2d %i, %w {strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32>
  %c4 = relay.nn.conv2d %i, %w {strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  func.return %e1, %e2, %e3, %c1, %c2, %c3, %c4 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<3x1xf32>, tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<1x4x2x2xf32>, tensor<1x4x4x4xf32>
}

// A multi-result op merges all its results.
// CHECK-LABEL: func.func @multi_result
// CHECK-NEXT: %s, %[[S1:.*]] = relay.split %x
// CHECK-NEXT: func.return %[[S1]], %[[S1]] :
func.func @multi_result(%x: tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %s:2 = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  %t:2 = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  func.return %s#1, %t#1 : tensor<1x2xf32>, tensor<1x2xf32>
}

// Near misses: swapped operands of a commutative op (not reordered, as in
// TVM), another declared result type, discardable attributes that differ,
// and relay.call_lowered (it may have effects).
// CHECK-LABEL: func.func @kept
// CHECK-NEXT: %a = relay.add %x, %y
// CHECK-NEXT: %b = relay.add %y, %x
// CHECK-NEXT: %c = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT: %t1 = relay.nn.relu %x {tag = "a"}
// CHECK-NEXT: %t2 = relay.nn.relu %x {tag = "b"}
// CHECK-NEXT: %k1 = relay.call_lowered @kernel(%x)
// CHECK-NEXT: %k2 = relay.call_lowered @kernel(%x)
// CHECK-NEXT: func.return
func.func @kept(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = relay.add %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %t1 = relay.nn.relu %x {tag = "a"} : tensor<4xf32>
  %t2 = relay.nn.relu %x {tag = "b"} : tensor<4xf32>
  %k1 = relay.call_lowered @kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %k2 = relay.call_lowered @kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %b, %c, %t1, %t2, %k1, %k2 : tensor<4xf32>, tensor<4xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Each function is its own scope: equal constants in two functions stay.
// CHECK-LABEL: func.func @scope_a
// CHECK-NEXT: relay.const dense<5.000000e+00>
// CHECK-LABEL: func.func @scope_b
// CHECK-NEXT: relay.const dense<5.000000e+00>
func.func @scope_a() -> tensor<2xf32> {
  %c = relay.const dense<5.0> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}
func.func @scope_b() -> tensor<2xf32> {
  %c = relay.const dense<5.0> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}
