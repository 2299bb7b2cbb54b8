// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// The CNN ops of relay.nn round-trip through their custom and generic forms;
// attributes equal to their defaults are not printed.

// CHECK-LABEL: func.func @conv2d
func.func @conv2d(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>, %dw: tensor<8x1x3x3xf32>, %g: tensor<6x2x3x3xf32>) -> tensor<1x8x5x5xf32> {
  // CHECK: relay.nn.conv2d %{{.*}}, %{{.*}} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  %a = relay.nn.conv2d %x, %w : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  // Strides, asymmetric padding [top, left, bottom, right], channels and kernel_size.
  // CHECK-NEXT: relay.nn.conv2d %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 2>, channels = 8 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x5x5xf32>
  %b = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 2>, channels = 8 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x5x5xf32>
  // Depthwise with a channel multiplier of 2, dilated.
  // CHECK-NEXT: relay.nn.conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 2, 2>, groups = 4 : i64} : (tensor<1x4x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
  %c = relay.nn.conv2d %x, %dw {dilation = array<i64: 2, 2>, groups = 4 : i64} : (tensor<1x4x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
  // Grouped convolution; a dynamic batch stays dynamic.
  // CHECK-NEXT: relay.nn.conv2d %{{.*}}, %{{.*}} {groups = 2 : i64} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x7x7xf32>
  %d = relay.nn.conv2d %x, %g {groups = 2 : i64} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x7x7xf32>
  func.return %c : tensor<1x8x5x5xf32>
}

// CHECK-LABEL: func.func @conv2d_int8
func.func @conv2d_int8(%x: tensor<1x2x4x4xi8>, %w: tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi32> {
  // CHECK: relay.nn.conv2d %{{.*}}, %{{.*}} {out_dtype = "int32"} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi32>
  %y = relay.nn.conv2d %x, %w {out_dtype = "int32"} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi32>
  func.return %y : tensor<1x3x4x4xi32>
}

// u8 x s8 and s8 x s8 products accumulated in i32 (out_dtype).
// CHECK-LABEL: func.func @dense_int8
func.func @dense_int8(%x: tensor<2x8xui8>, %s: tensor<3x2x8xi8>, %w: tensor<4x8xi8>) -> (tensor<2x4xi32>, tensor<3x2x4xi32>) {
  // CHECK: relay.nn.dense %{{.*}}, %{{.*}} {out_dtype = "int32"} : (tensor<2x8xui8>, tensor<4x8xi8>) -> tensor<2x4xi32>
  %d = relay.nn.dense %x, %w {out_dtype = "int32"} : (tensor<2x8xui8>, tensor<4x8xi8>) -> tensor<2x4xi32>
  // CHECK-NEXT: relay.nn.matmul %{{.*}}, %{{.*}} {transpose_b = true, out_dtype = "int32"} : (tensor<3x2x8xi8>, tensor<4x8xi8>) -> tensor<3x2x4xi32>
  %m = relay.nn.matmul %s, %w {transpose_b = true, out_dtype = "int32"} : (tensor<3x2x8xi8>, tensor<4x8xi8>) -> tensor<3x2x4xi32>
  func.return %d, %m : tensor<2x4xi32>, tensor<3x2x4xi32>
}

// CHECK-LABEL: func.func @pools
func.func @pools(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
  // CHECK: relay.nn.max_pool2d %{{.*}} {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
  %a = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
  // ceil_mode keeps the last partial window: ceil((7 - 2) / 2) + 1 = 4.
  // CHECK-NEXT: relay.nn.max_pool2d %{{.*}} {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
  %b = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
  // CHECK-NEXT: relay.nn.max_pool2d %{{.*}} {pool_size = array<i64: 2, 2>, dilation = array<i64: 2, 3>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x5x4xf32>
  %c = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, dilation = array<i64: 2, 3>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x5x4xf32>
  // CHECK-NEXT: relay.nn.avg_pool2d %{{.*}} {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %d = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  // CHECK-NEXT: relay.nn.avg_pool2d %{{.*}} {pool_size = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x6x6xf32>
  %e = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x6x6xf32>
  // CHECK-NEXT: relay.nn.global_max_pool2d %{{.*}} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  %f = relay.nn.global_max_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  // CHECK-NEXT: relay.nn.global_avg_pool2d %{{.*}} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  %g = relay.nn.global_avg_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  func.return %g : tensor<1x8x1x1xf32>
}

// A pool window larger than the padded input (onnxruntime): (3 - 4) / 2 + 1
// with division toward zero is one window over the 3 elements; with stride 1
// there is none.
// CHECK-LABEL: func.func @pool_window_larger_than_input
func.func @pool_window_larger_than_input(%x: tensor<1x8x3x3xf32>) -> tensor<1x8x0x0xf32> {
  // CHECK: relay.nn.max_pool2d %{{.*}} {pool_size = array<i64: 4, 4>, strides = array<i64: 2, 2>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x1x1xf32>
  %a = relay.nn.max_pool2d %x {pool_size = array<i64: 4, 4>, strides = array<i64: 2, 2>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x1x1xf32>
  // CHECK-NEXT: relay.nn.avg_pool2d %{{.*}} {pool_size = array<i64: 4, 4>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x0x0xf32>
  %b = relay.nn.avg_pool2d %x {pool_size = array<i64: 4, 4>} : (tensor<1x8x3x3xf32>) -> tensor<1x8x0x0xf32>
  func.return %b : tensor<1x8x0x0xf32>
}

// CHECK-LABEL: func.func @normalization
func.func @normalization(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %nhwc: tensor<1x4x4x8xf32>) -> tensor<1x128xf32> {
  // CHECK: relay.nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %a = relay.nn.batch_norm %x, %p, %p, %p, %p {epsilon = 1.000000e-03 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  // CHECK-NEXT: relay.nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axis = 3 : i64, center = false, scale = false} : (tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %b = relay.nn.batch_norm %nhwc, %p, %p, %p, %p {axis = 3 : i64, center = false, scale = false} : (tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  // CHECK-NEXT: relay.nn.lrn %{{.*}} {size = 3 : i64, alpha = 1.000000e-04 : f64, bias = 1.000000e+00 : f64} : tensor<1x8x4x4xf32>
  %c = relay.nn.lrn %a {size = 3 : i64, alpha = 1.000000e-04 : f64, bias = 1.000000e+00 : f64} : tensor<1x8x4x4xf32>
  // CHECK-NEXT: relay.nn.lrn %{{.*}} : tensor<1x8x4x4xf32>
  %d = relay.nn.lrn %c : tensor<1x8x4x4xf32>
  // CHECK-NEXT: relay.nn.dropout %{{.*}} {rate = 2.000000e-01 : f64} : tensor<1x8x4x4xf32>
  %e = relay.nn.dropout %d {rate = 2.000000e-01 : f64} : tensor<1x8x4x4xf32>
  // CHECK-NEXT: relay.nn.dropout %{{.*}} : tensor<1x8x4x4xf32>
  %f = relay.nn.dropout %e : tensor<1x8x4x4xf32>
  // CHECK-NEXT: relay.nn.batch_flatten %{{.*}} : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  %g = relay.nn.batch_flatten %f : (tensor<1x8x4x4xf32>) -> tensor<1x128xf32>
  func.return %g : tensor<1x128xf32>
}
