// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Shape, concatenation, split and indexing ops round-trip through their
// custom and generic forms.

// CHECK-LABEL: func.func @concat_split
func.func @concat_split(%a: tensor<1x2x4xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x5x4xf32> {
  // CHECK: relay.concatenate %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  %c = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  // CHECK-NEXT: relay.concatenate %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x12xf32>
  %d = relay.concatenate %a, %a, %a {axis = -1 : i64} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x12xf32>
  // A section count splits into equal pieces.
  // CHECK-NEXT: relay.split %{{.*}} {indices_or_sections = 2 : i64, axis = 2 : i64} : (tensor<1x5x4xf32>) -> (tensor<1x5x2xf32>, tensor<1x5x2xf32>)
  %e:2 = relay.split %c {indices_or_sections = 2 : i64, axis = 2 : i64} : (tensor<1x5x4xf32>) -> (tensor<1x5x2xf32>, tensor<1x5x2xf32>)
  // Indices say where pieces start.
  // CHECK-NEXT: relay.split %{{.*}} {indices_or_sections = array<i64: 1, 4>, axis = 1 : i64} : (tensor<1x5x4xf32>) -> (tensor<1x1x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>)
  %f:3 = relay.split %c {indices_or_sections = array<i64: 1, 4>, axis = 1 : i64} : (tensor<1x5x4xf32>) -> (tensor<1x1x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>)
  func.return %c : tensor<1x5x4xf32>
}

// CHECK-LABEL: func.func @squeeze_expand
func.func @squeeze_expand(%x: tensor<1x512x1x1xf32>, %v: tensor<8xf32>) -> tensor<8x1x1xf32> {
  // CHECK: relay.squeeze %{{.*}} {axis = array<i64: 2, -1>} : (tensor<1x512x1x1xf32>) -> tensor<1x512xf32>
  %a = relay.squeeze %x {axis = array<i64: 2, -1>} : (tensor<1x512x1x1xf32>) -> tensor<1x512xf32>
  // CHECK-NEXT: relay.squeeze %{{.*}} : (tensor<1x512x1x1xf32>) -> tensor<512xf32>
  %b = relay.squeeze %x : (tensor<1x512x1x1xf32>) -> tensor<512xf32>
  // CHECK-NEXT: relay.expand_dims %{{.*}} {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
  %c = relay.expand_dims %v {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
  // CHECK-NEXT: relay.expand_dims %{{.*}} {axis = 0 : i64} : (tensor<8xf32>) -> tensor<1x8xf32>
  %d = relay.expand_dims %v {axis = 0 : i64} : (tensor<8xf32>) -> tensor<1x8xf32>
  func.return %c : tensor<8x1x1xf32>
}

// CHECK-LABEL: func.func @full
func.func @full(%v: tensor<f32>) -> tensor<2x3xi32> {
  // CHECK: relay.full %{{.*}} {shape = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
  %a = relay.full %v {shape = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: relay.full %{{.*}} {shape = array<i64: 2, 3>, dtype = "int32"} : (tensor<f32>) -> tensor<2x3xi32>
  %b = relay.full %v {shape = array<i64: 2, 3>, dtype = "int32"} : (tensor<f32>) -> tensor<2x3xi32>
  func.return %b : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  // CHECK: relay.take %{{.*}}, %{{.*}} {axis = 0 : i64, mode = "wrap"} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %a = relay.take %x, %i {axis = 0 : i64, mode = "wrap"} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: relay.take %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<10x2x3xf32>
  %b = relay.take %x, %i {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<10x2x3xf32>
  // Without axis, data is flattened.
  // CHECK-NEXT: relay.take %{{.*}}, %{{.*}} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %c = relay.take %x, %i : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  // CHECK-NEXT: relay.strided_slice %{{.*}} {begin = array<i64: 1, 0>, end = array<i64: 3, -1>, strides = array<i64: 1, 2>} : (tensor<10x4xf32>) -> tensor<2x2xf32>
  %d = relay.strided_slice %x {begin = array<i64: 1, 0>, end = array<i64: 3, -1>, strides = array<i64: 1, 2>} : (tensor<10x4xf32>) -> tensor<2x2xf32>
  // A negative stride walks backwards; out-of-range bounds are clamped.
  // CHECK-NEXT: relay.strided_slice %{{.*}} {begin = array<i64: -1>, end = array<i64: -100>, strides = array<i64: -3>, axes = array<i64: 0>} : (tensor<10x4xf32>) -> tensor<4x4xf32>
  %e = relay.strided_slice %x {begin = array<i64: -1>, end = array<i64: -100>, strides = array<i64: -3>, axes = array<i64: 0>} : (tensor<10x4xf32>) -> tensor<4x4xf32>
  // CHECK-NEXT: relay.strided_slice %{{.*}} {begin = array<i64: 2>, end = array<i64: 9223372036854775807>, axes = array<i64: 1>} : (tensor<10x4xf32>) -> tensor<10x2xf32>
  %f = relay.strided_slice %x {begin = array<i64: 2>, end = array<i64: 9223372036854775807>, axes = array<i64: 1>} : (tensor<10x4xf32>) -> tensor<10x2xf32>
  func.return %a : tensor<2x3x4xf32>
}
