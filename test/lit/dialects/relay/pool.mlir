// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Pools over 1 and 3 spatial axes round-trip (2-d pools are in nn.mlir).

// CHECK-LABEL: func.func @pools
func.func @pools(%s: tensor<1x3x9xf32>, %x: tensor<1x2x5x6x7xf32>) -> tensor<1x3x5xf32> {
  // CHECK: relay.nn.max_pool1d %{{.*}} {pool_size = array<i64: 3>, strides = array<i64: 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x3x9xf32>) -> tensor<1x3x5xf32>
  %a = relay.nn.max_pool1d %s {pool_size = array<i64: 3>, strides = array<i64: 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x3x9xf32>) -> tensor<1x3x5xf32>
  // CHECK-NEXT: relay.nn.avg_pool1d %{{.*}} {pool_size = array<i64: 2>, count_include_pad = true} : (tensor<1x3x9xf32>) -> tensor<1x3x8xf32>
  %b = relay.nn.avg_pool1d %s {pool_size = array<i64: 2>, count_include_pad = true} : (tensor<1x3x9xf32>) -> tensor<1x3x8xf32>
  // CHECK-NEXT: relay.nn.max_pool3d %{{.*}} {pool_size = array<i64: 2, 3, 2>, strides = array<i64: 2, 1, 2>, dilation = array<i64: 1, 2, 1>} : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x2x3xf32>
  %c = relay.nn.max_pool3d %x {pool_size = array<i64: 2, 3, 2>, strides = array<i64: 2, 1, 2>, dilation = array<i64: 1, 2, 1>} : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x2x2x3xf32>
  // CHECK-NEXT: relay.nn.avg_pool3d %{{.*}} {pool_size = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 0, 0, 0>} : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x5x6x7xf32>
  %d = relay.nn.avg_pool3d %x {pool_size = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 0, 0, 0>} : (tensor<1x2x5x6x7xf32>) -> tensor<1x2x5x6x7xf32>
  func.return %a : tensor<1x3x5xf32>
}

// CHECK-LABEL: func.func @max_pool_with_argmax
func.func @max_pool_with_argmax(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  // The second result holds the int64 position of each maximum in the flattened input.
  // CHECK: %{{.*}}, %{{.*}} = relay.nn.max_pool2d_with_argmax %{{.*}} {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %y, %i = relay.nn.max_pool2d_with_argmax %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  // CHECK-NEXT: relay.nn.max_pool2d_with_argmax %{{.*}} {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, column_major = true} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  %c:2 = relay.nn.max_pool2d_with_argmax %x {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, column_major = true} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  func.return %i : tensor<1x1x2x2xi64>
}
