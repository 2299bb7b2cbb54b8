// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Every relay op round-trips through its custom and its generic form.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: %{{.*}} = relay.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
  %c = relay.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  // CHECK-NEXT: relay.add %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %a = relay.add %x, %c : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: relay.subtract
  %s = relay.subtract %a, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: relay.multiply
  %m = relay.multiply %s, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: relay.divide
  %d = relay.divide %m, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: relay.nn.relu %{{.*}} : tensor<4x3xf32>
  %r = relay.nn.relu %d : tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @nn
func.func @nn(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>, %a: tensor<3x2x8xf32>) -> tensor<2x4xf32> {
  // CHECK: relay.nn.dense %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %d = relay.nn.dense %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  // Attributes equal to their declared defaults (bias_add's axis 1, softmax's -1) are not printed.
  // CHECK-NEXT: relay.nn.bias_add %{{[^ ]*}}, %{{[^ ]*}} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %e = relay.nn.bias_add %d, %b {axis = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: relay.nn.softmax %{{[^ ]*}} : tensor<2x4xf32>
  %s = relay.nn.softmax %e {axis = -1 : i64} : tensor<2x4xf32>
  // CHECK-NEXT: relay.nn.matmul %{{.*}}, %{{.*}} {transpose_b = true} : (tensor<3x2x8xf32>, tensor<4x8xf32>) -> tensor<3x2x4xf32>
  %m = relay.nn.matmul %a, %w {transpose_b = true} : (tensor<3x2x8xf32>, tensor<4x8xf32>) -> tensor<3x2x4xf32>
  func.return %s : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  // CHECK: relay.reshape %{{.*}} {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %r = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK-NEXT: relay.transpose %{{.*}} {axes = array<i64: 1, 0>} : (tensor<2x12xf32>) -> tensor<12x2xf32>
  %t = relay.transpose %r {axes = array<i64: 1, 0>} : (tensor<2x12xf32>) -> tensor<12x2xf32>
  // CHECK-NEXT: relay.transpose %{{.*}} : (tensor<2x12xf32>) -> tensor<12x2xf32>
  %u = relay.transpose %r : (tensor<2x12xf32>) -> tensor<12x2xf32>
  // CHECK-NEXT: relay.tuple %{{.*}}, %{{.*}} : (tensor<12x2xf32>, tensor<2x12xf32>) -> tuple<tensor<12x2xf32>, tensor<2x12xf32>>
  %tup = relay.tuple %t, %r : (tensor<12x2xf32>, tensor<2x12xf32>) -> tuple<tensor<12x2xf32>, tensor<2x12xf32>>
  // CHECK-NEXT: relay.tuple_get %{{.*}} {index = 1 : i64} : (tuple<tensor<12x2xf32>, tensor<2x12xf32>>) -> tensor<2x12xf32>
  %g = relay.tuple_get %tup {index = 1 : i64} : (tuple<tensor<12x2xf32>, tensor<2x12xf32>>) -> tensor<2x12xf32>
  // Result types may be less precise than inferred; relay-infer-type refines them.
  // CHECK-NEXT: relay.add %{{.*}}, %{{.*}} : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<?x12xf32>
  %q = relay.add %g, %g : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<?x12xf32>
  %y = relay.nn.relu %g : tensor<2x12xf32>
  // CHECK: relay.call_lowered @kernel(%{{.*}}) : (tensor<2x12xf32>) -> tensor<2xf32>
  %k = relay.call_lowered @kernel(%y) : (tensor<2x12xf32>) -> tensor<2xf32>
  func.return %k : tensor<2xf32>
}
