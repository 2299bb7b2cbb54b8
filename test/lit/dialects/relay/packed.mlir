// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s | xtvm-opt | filecheck %s

// CHECK-LABEL: func.func @packed
// CHECK-NEXT: %p = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<32x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
// CHECK-NEXT: %y = relay.nn.contrib_conv2d_packed %x, %p {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
// CHECK-NEXT: %u = relay.layout_transform %p {src_layout = "OIHW16o", dst_layout = "OIHW"} : (tensor<2x8x3x3x16xf32>) -> tensor<32x8x3x3xf32>
// CHECK-NEXT: %q = relay.layout_transform %d {src_layout = "NK", dst_layout = "NK8n"} : (tensor<24x5xf32>) -> tensor<3x5x8xf32>
// CHECK-NEXT: %z = relay.nn.contrib_dense_pack %v, %q {weight_layout = "NK8n"} : (tensor<2x5xf32>, tensor<3x5x8xf32>) -> tensor<2x24xf32>
func.func @packed(%x: tensor<1x8x8x8xf32>, %w: tensor<32x8x3x3xf32>, %v: tensor<2x5xf32>, %d: tensor<24x5xf32>) -> (tensor<1x32x8x8xf32>, tensor<32x8x3x3xf32>, tensor<2x24xf32>) {
  %p = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<32x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
  %y = relay.nn.contrib_conv2d_packed %x, %p {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
  %u = relay.layout_transform %p {src_layout = "OIHW16o", dst_layout = "OIHW"} : (tensor<2x8x3x3x16xf32>) -> tensor<32x8x3x3xf32>
  %q = relay.layout_transform %d {src_layout = "NK", dst_layout = "NK8n"} : (tensor<24x5xf32>) -> tensor<3x5x8xf32>
  %z = relay.nn.contrib_dense_pack %v, %q {weight_layout = "NK8n"} : (tensor<2x5xf32>, tensor<3x5x8xf32>) -> tensor<2x24xf32>
  func.return %y, %u, %z : tensor<1x32x8x8xf32>, tensor<32x8x3x3xf32>, tensor<2x24xf32>
}

// CHECK-LABEL: func.func @int8_packed
// CHECK-NEXT: %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x32x8x8xi32>
func.func @int8_packed(%x: tensor<1x6x8x8xui8>, %p: tensor<2x2x3x3x16xi32>) -> tensor<1x32x8x8xi32> {
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x32x8x8xi32>
  func.return %y : tensor<1x32x8x8xi32>
}

// CHECK-LABEL: func.func @int8_packed_nchwc
// CHECK-NEXT: %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32>
func.func @int8_packed_nchwc(%x: tensor<1x1x8x8x8xui8>, %p: tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32> {
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32>
  func.return %y : tensor<1x2x6x6x16xi32>
}

// CHECK-LABEL: func.func @int8_packed_blocked_result
// CHECK-NEXT: %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", out_layout = "NCHW16c"} : (tensor<1x6x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32>
func.func @int8_packed_blocked_result(%x: tensor<1x6x8x8xui8>, %p: tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32> {
  %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", out_layout = "NCHW16c"} : (tensor<1x6x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32>
  func.return %y : tensor<1x2x6x6x16xi32>
}

// CHECK-LABEL: func.func @dense_int8_packed
// CHECK-NEXT: %y = relay.nn.contrib_dense_int8_packed %x, %p {weight_layout = "NK16n4k"} : (tensor<2x10xui8>, tensor<2x3x16xi32>) -> tensor<2x32xi32>
func.func @dense_int8_packed(%x: tensor<2x10xui8>, %p: tensor<2x3x16xi32>) -> tensor<2x32xi32> {
  %y = relay.nn.contrib_dense_int8_packed %x, %p {weight_layout = "NK16n4k"} : (tensor<2x10xui8>, tensor<2x3x16xi32>) -> tensor<2x32xi32>
  func.return %y : tensor<2x32xi32>
}
