// RUN: xtvm-opt %s -p qnn-canonicalize | filecheck %s
// Each qnn op becomes integer relay ops; one case per rule (named in the
// comment), with a near miss where a rule has a condition.

// Rule quantize: divide, round (halves to even), add the zero point, cast
// (the float -> uint8 cast saturates: no clip before it).
// CHECK-LABEL: func.func @quantize
// CHECK:      relay.divide %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: relay.round
// CHECK-NEXT: relay.cast %{{.*}} {dtype = "float32"} : (tensor<ui8>) -> tensor<f32>
// CHECK-NEXT: relay.add
// CHECK-NEXT: relay.cast %{{.*}} {dtype = "uint8"} : (tensor<4xf32>) -> tensor<4xui8>
// CHECK-NOT:  qnn.
func.func @quantize(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  %q = qnn.quantize %x, %s, %z {out_dtype = "uint8", axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %q : tensor<4xui8>
}

// Near miss of the clip-free saturation: to int32 the clip stays.
// CHECK-LABEL: func.func @quantize_int32
// CHECK:      relay.clip
// CHECK-NEXT: relay.cast %{{.*}} {dtype = "int32"} : (tensor<4xf32>) -> tensor<4xi32>
func.func @quantize_int32(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi32> {
  %q = qnn.quantize %x, %s, %z {out_dtype = "int32", axis = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  func.return %q : tensor<4xi32>
}

// Rule dequantize, per-axis: the scale and zero point reshaped along axis 1.
// CHECK-LABEL: func.func @dequantize
// CHECK:      relay.reshape %{{.*}} {newshape = array<i64: 1, 3, 1, 1>} : (tensor<3xi8>) -> tensor<1x3x1x1xi8>
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<2x3x4x4xi32>, tensor<1x3x1x1xi32>) -> tensor<2x3x4x4xi32>
// CHECK:      relay.multiply %{{.*}}, %{{.*}} : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
func.func @dequantize(%q: tensor<2x3x4x4xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3x4x4xf32> {
  %x = qnn.dequantize %q, %s, %z : (tensor<2x3x4x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3x4x4xf32>
  func.return %x : tensor<2x3x4x4xf32>
}

// Rule requantize-identity: the same constant parameters and type: the input itself.
// CHECK-LABEL: func.func @requantize_identity
// CHECK-NEXT: func.return %q : tensor<4xui8>
func.func @requantize_identity(%q: tensor<4xui8>) -> tensor<4xui8> {
  %s = relay.const dense<0.5> : tensor<f32>
  %z = relay.const dense<3> : tensor<ui8>
  %t = relay.const dense<0.5> : tensor<f32>
  %y = qnn.requantize %q, %s, %z, %t, %z {out_dtype = "uint8", axis = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %y : tensor<4xui8>
}

// Near miss of requantize-identity (another output scale): rule requantize-float32,
// float32(q - zi) * (si / so), rounded.
// CHECK-LABEL: func.func @requantize_float32
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK:      relay.divide %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: relay.multiply %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: relay.round
// CHECK:      relay.cast %{{.*}} {dtype = "uint8"} : (tensor<4xf32>) -> tensor<4xui8>
func.func @requantize_float32(%q: tensor<4xui8>) -> tensor<4xui8> {
  %s = relay.const dense<0.5> : tensor<f32>
  %z = relay.const dense<3> : tensor<ui8>
  %t = relay.const dense<0.25> : tensor<f32>
  %y = qnn.requantize %q, %s, %z, %t, %z {out_dtype = "uint8", axis = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %y : tensor<4xui8>
}

// Rule requantize-fixed-point: int64 multiply by the Q31 multiplier, add 2^(t-1), shift right by t.
// CHECK-LABEL: func.func @requantize_fixed_point
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK:      relay.const dense<1073741824> : tensor<i64>
// CHECK:      relay.multiply
// CHECK:      relay.add
// CHECK:      relay.right_shift
// CHECK:      relay.clip %{{.*}} {a_min = -1.280000e+02 : f64, a_max = 1.270000e+02 : f64}
// CHECK:      relay.cast %{{.*}} {dtype = "int8"} : (tensor<4xi64>) -> tensor<4xi8>
func.func @requantize_fixed_point(%acc: tensor<4xi32>) -> tensor<4xi8> {
  %s = relay.const dense<0.25> : tensor<f32>
  %t = relay.const dense<0.5> : tensor<f32>
  %z = relay.const dense<0> : tensor<i32>
  %zo = relay.const dense<0> : tensor<i8>
  %y = qnn.requantize %acc, %s, %z, %t, %zo {compute_dtype = "int64", axis = 0 : i64} : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}

// Rule conv2d: pad the raw u8 data with its zero point, an i32 conv of u8 data and
// i8 weight, minus zx * sum(w) per output channel (relay ops on constants, folded later).
// CHECK-LABEL: func.func @conv2d
// CHECK:      relay.nn.pad %x, %{{.*}} {pad_width = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>} : (tensor<1x3x6x6xui8>, tensor<ui8>) -> tensor<1x3x8x8xui8>
// CHECK-NEXT: relay.nn.conv2d %{{.*}}, %w {out_dtype = "int32"} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi32>
// CHECK:      relay.sum %{{.*}} {axis = array<i64: 1, 2, 3>} : (tensor<4x3x3x3xi32>) -> tensor<4xi32>
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<1x4x6x6xi32>, tensor<1x4x1x1xi32>) -> tensor<1x4x6x6xi32>
func.func @conv2d(%x: tensor<1x3x6x6xui8>, %w: tensor<4x3x3x3xi8>, %xs: tensor<f32>, %ws: tensor<4xf32>) -> tensor<1x4x6x6xi32> {
  %xz = relay.const dense<7> : tensor<ui8>
  %wz = relay.const dense<0> : tensor<4xi8>
  %y = qnn.conv2d %x, %w, %xz, %wz, %xs, %ws {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x6x6xui8>, tensor<4x3x3x3xi8>, tensor<ui8>, tensor<4xi8>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x6x6xi32>
  func.return %y : tensor<1x4x6x6xi32>
}

// Near miss of the zero-point terms of rule conv2d: zero zero points, so no pad and
// no correction; a non-zero weight zero point is subtracted from the weight.
// CHECK-LABEL: func.func @conv2d_zero_points
// CHECK-NOT:  relay.nn.pad
// CHECK:      relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, out_dtype = "int32"}
// CHECK-NOT:  relay.subtract
// CHECK:      func.return
func.func @conv2d_zero_points(%x: tensor<1x3x6x6xui8>, %w: tensor<4x3x3x3xi8>, %s: tensor<f32>) -> tensor<1x4x6x6xi32> {
  %xz = relay.const dense<0> : tensor<ui8>
  %wz = relay.const dense<0> : tensor<i8>
  %y = qnn.conv2d %x, %w, %xz, %wz, %s, %s {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x6x6xui8>, tensor<4x3x3x3xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x4x6x6xi32>
  func.return %y : tensor<1x4x6x6xi32>
}

// Rule dense: the i32 dense of the raw u8 data and i8 weight (out_dtype), plus
// (0 - zw) * sum_k x (zw is not a constant), minus zx * sum_k (w - zw) per output.
// CHECK-LABEL: func.func @dense
// CHECK:      relay.nn.dense %x, %w {out_dtype = "int32"} : (tensor<2x16xui8>, tensor<8x16xi8>) -> tensor<2x8xi32>
// CHECK:      relay.sum %{{.*}} {keepdims = true, axis = array<i64: -1>} : (tensor<2x16xi32>) -> tensor<2x1xi32>
// CHECK:      relay.add %{{.*}}, %{{.*}} : (tensor<2x8xi32>, tensor<2x1xi32>) -> tensor<2x8xi32>
// CHECK:      relay.sum %{{.*}} {axis = array<i64: 1>} : (tensor<8x16xi32>) -> tensor<8xi32>
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
func.func @dense(%x: tensor<2x16xui8>, %w: tensor<8x16xi8>, %xz: tensor<ui8>, %wz: tensor<i8>, %s: tensor<f32>) -> tensor<2x8xi32> {
  %y = qnn.dense %x, %w, %xz, %wz, %s, %s : (tensor<2x16xui8>, tensor<8x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x8xi32>
  func.return %y : tensor<2x8xi32>
}

// Rule dense, a uint8 weight (MatMulInteger's): w - 128 in i8, plus (128 - zw)
// * sum_k x with the per-row zw; zx = 0, so no last term.
// CHECK-LABEL: func.func @dense_uint8_weight
// CHECK:      relay.cast %{{.*}} {dtype = "int8"} : (tensor<8x12xi32>) -> tensor<8x12xi8>
// CHECK-NEXT: relay.nn.dense %x, %{{.*}} {out_dtype = "int32"} : (tensor<3x12xui8>, tensor<8x12xi8>) -> tensor<3x8xi32>
// CHECK:      relay.multiply %{{.*}}, %{{.*}} : (tensor<3x1xi32>, tensor<8xi32>) -> tensor<3x8xi32>
// CHECK-NEXT: relay.add
// CHECK-NOT:  relay.subtract %{{.*}}, %{{.*}} : (tensor<3x8xi32>
// CHECK:      func.return
func.func @dense_uint8_weight(%x: tensor<3x12xui8>, %w: tensor<8x12xui8>, %s: tensor<f32>, %ws: tensor<8xf32>) -> tensor<3x8xi32> {
  %xz = relay.const dense<0> : tensor<ui8>
  %wz = relay.const dense<[120, 121, 122, 123, 124, 125, 126, 127]> : tensor<8xui8>
  %y = qnn.dense %x, %w, %xz, %wz, %s, %ws : (tensor<3x12xui8>, tensor<8x12xui8>, tensor<ui8>, tensor<8xui8>, tensor<f32>, tensor<8xf32>) -> tensor<3x8xi32>
  func.return %y : tensor<3x8xi32>
}

// Near miss of the zero-point terms of rule dense: i8 data (QDQ with int8
// activations) and constant zero zero points: the dense alone.
// CHECK-LABEL: func.func @dense_int8_data
// CHECK-NEXT: relay.nn.dense %x, %w {out_dtype = "int32"} : (tensor<2x3x12xi8>, tensor<8x12xi8>) -> tensor<2x3x8xi32>
// CHECK-NEXT: func.return
func.func @dense_int8_data(%x: tensor<2x3x12xi8>, %w: tensor<8x12xi8>, %s: tensor<f32>) -> tensor<2x3x8xi32> {
  %z = relay.const dense<0> : tensor<i8>
  %y = qnn.dense %x, %w, %z, %z, %s, %s : (tensor<2x3x12xi8>, tensor<8x12xi8>, tensor<i8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x3x8xi32>
  func.return %y : tensor<2x3x8xi32>
}

// Rules add and mul: the reals in float32, quantized with the output parameters.
// CHECK-LABEL: func.func @add_mul
// CHECK:      relay.add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:      relay.cast %{{.*}} {dtype = "uint8"}
// CHECK:      relay.multiply %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK:      relay.cast %{{.*}} {dtype = "uint8"}
// CHECK-NOT:  qnn.
func.func @add_mul(%a: tensor<4xui8>, %b: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<4xui8>, tensor<4xui8>) {
  %y = qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  %m = qnn.mul %a, %b, %s, %z, %s, %z, %s, %z : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %y, %m : tensor<4xui8>, tensor<4xui8>
}

// Rule concatenate: each input requantized (requantize-identity drops the one
// already in the output's parameters), then relay.concatenate.
// CHECK-LABEL: func.func @concatenate
// CHECK-COUNT-1: relay.round
// CHECK:      relay.concatenate %a, %{{.*}} {axis = 1 : i64} : (tensor<1x2xui8>, tensor<1x3xui8>) -> tensor<1x5xui8>
func.func @concatenate(%a: tensor<1x2xui8>, %b: tensor<1x3xui8>) -> tensor<1x5xui8> {
  %s = relay.const dense<0.5> : tensor<f32>
  %t = relay.const dense<0.25> : tensor<f32>
  %z = relay.const dense<3> : tensor<ui8>
  %y = qnn.concatenate %a, %b, %s, %t, %z, %z, %s, %z {axis = 1 : i64} : (tensor<1x2xui8>, tensor<1x3xui8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5xui8>
  func.return %y : tensor<1x5xui8>
}

// Rule avg-pool2d-global-integer: a window of the whole plane sums the u8 values
// in i32, minus zx * 49, then / 49 and the scale ratio in float32, quantized.
// CHECK-LABEL: func.func @avg_pool2d
// CHECK:      relay.cast %x {dtype = "int32"} : (tensor<1x8x7x7xui8>) -> tensor<1x8x7x7xi32>
// CHECK-NEXT: relay.sum %{{.*}} {keepdims = true, axis = array<i64: 2, 3>} : (tensor<1x8x7x7xi32>) -> tensor<1x8x1x1xi32>
// CHECK:      relay.const dense<49> : tensor<i32>
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<1x8x1x1xi32>, tensor<i32>) -> tensor<1x8x1x1xi32>
// CHECK-NOT:  relay.nn.avg_pool2d
// CHECK:      relay.cast %{{.*}} {dtype = "uint8"} : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xui8>
func.func @avg_pool2d(%x: tensor<1x8x7x7xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x1x1xui8> {
  %y = qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 7, 7>} : (tensor<1x8x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x1x1xui8>
  func.return %y : tensor<1x8x1x1xui8>
}

// Near miss of avg-pool2d-global-integer (a 3x3 padded window), rule avg-pool2d:
// a float32 average of the centred values, scaled and quantized.
// CHECK-LABEL: func.func @avg_pool2d_window
// CHECK:      relay.nn.avg_pool2d %{{.*}} {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
// CHECK:      relay.cast %{{.*}} {dtype = "uint8"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xui8>
func.func @avg_pool2d_window(%x: tensor<1x8x7x7xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x4x4xui8> {
  %y = qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xui8>
  func.return %y : tensor<1x8x4x4xui8>
}

// Rule matmul: the i32 matmul of the centred operands (b's zero point per column).
// CHECK-LABEL: func.func @matmul
// CHECK:      relay.subtract %{{.*}}, %{{.*}} : (tensor<2x4x3xi32>, tensor<1x1x3xi32>) -> tensor<2x4x3xi32>
// CHECK:      relay.nn.matmul %{{.*}}, %{{.*}} : (tensor<2x2x4xi32>, tensor<2x4x3xi32>) -> tensor<2x2x3xi32>
func.func @matmul(%a: tensor<2x2x4xui8>, %b: tensor<2x4x3xi8>, %az: tensor<ui8>, %bz: tensor<3xi8>, %s: tensor<f32>, %bs: tensor<3xf32>) -> tensor<2x2x3xi32> {
  %y = qnn.matmul %a, %b, %az, %bz, %s, %bs : (tensor<2x2x4xui8>, tensor<2x4x3xi8>, tensor<ui8>, tensor<3xi8>, tensor<f32>, tensor<3xf32>) -> tensor<2x2x3xi32>
  func.return %y : tensor<2x2x3xi32>
}

// Rule quantize, block-wise: each parameter repeated over its block of 2 along
// axis 1 (reshape, broadcast, reshape), cut to the 3 elements there.
// CHECK-LABEL: func.func @quantize_blocked
// CHECK:      relay.reshape %s {newshape = array<i64: 2, 2, 1>} : (tensor<2x2xf32>) -> tensor<2x2x1xf32>
// CHECK-NEXT: relay.broadcast_to %{{.*}} {shape = array<i64: 2, 2, 2>}
// CHECK-NEXT: relay.reshape %{{.*}} {newshape = array<i64: 2, 4>}
// CHECK-NEXT: relay.strided_slice
// CHECK:      relay.divide %x, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @quantize_blocked(%x: tensor<2x3xf32>, %s: tensor<2x2xf32>, %z: tensor<2x2xi8>) -> tensor<2x3xi8> {
  %q = qnn.quantize %x, %s, %z {block_size = 2 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x3xi8>
  func.return %q : tensor<2x3xi8>
}

// Rule conv2d-uint8-weight: a uint8 weight becomes w - 128 in int8 (the conv stays
// u8 x i8), plus (128 - zw) times the window sums (a conv with all-ones int8
// weights, one channel per group, here broadcast to the 2 channels of each group).
// CHECK-LABEL: func.func @conv2d_uint8_weight
// CHECK:      relay.nn.conv2d %x, %{{.*}} {groups = 2 : i64, out_dtype = "int32"} : (tensor<1x4x5x5xui8>, tensor<4x2x3x3xi8>) -> tensor<1x4x3x3xi32>
// CHECK:      relay.const dense<1> : tensor<2x2x3x3xi8>
// CHECK-NEXT: relay.nn.conv2d %x, %{{.*}} {groups = 2 : i64, out_dtype = "int32"} : (tensor<1x4x5x5xui8>, tensor<2x2x3x3xi8>) -> tensor<1x2x3x3xi32>
// CHECK-NEXT: relay.reshape %{{.*}} {newshape = array<i64: 1, 2, 1, 3, 3>}
// CHECK-NEXT: relay.broadcast_to %{{.*}} {shape = array<i64: 1, 2, 2, 3, 3>}
// CHECK:      relay.add
func.func @conv2d_uint8_weight(%x: tensor<1x4x5x5xui8>, %w: tensor<4x2x3x3xui8>, %s: tensor<f32>) -> tensor<1x4x3x3xi32> {
  %xz = relay.const dense<0> : tensor<ui8>
  %wz = relay.const dense<3> : tensor<ui8>
  %y = qnn.conv2d %x, %w, %xz, %wz, %s, %s {groups = 2 : i64} : (tensor<1x4x5x5xui8>, tensor<4x2x3x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<1x4x3x3xi32>
  func.return %y : tensor<1x4x3x3xi32>
}

// Near miss of conv2d-uint8-weight (an int8 weight): rule conv2d, no window sums.
// CHECK-LABEL: func.func @conv2d_int8_weight
// CHECK-COUNT-1: relay.nn.conv2d
// CHECK-NOT:  relay.nn.conv2d
func.func @conv2d_int8_weight(%x: tensor<1x4x5x5xui8>, %w: tensor<4x2x3x3xi8>, %s: tensor<f32>) -> tensor<1x4x3x3xi32> {
  %xz = relay.const dense<0> : tensor<ui8>
  %wz = relay.const dense<3> : tensor<i8>
  %y = qnn.conv2d %x, %w, %xz, %wz, %s, %s {groups = 2 : i64} : (tensor<1x4x5x5xui8>, tensor<4x2x3x3xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x4x3x3xi32>
  func.return %y : tensor<1x4x3x3xi32>
}

// Rule conv2d-uint8-weight with zero points of 128 and a padded, shifted input:
// no window sums; pad with zx; minus zx * sum(w - zw).
// CHECK-LABEL: func.func @conv2d_uint8_weight_128
// CHECK:      relay.nn.pad %x
// CHECK-COUNT-1: relay.nn.conv2d
// CHECK-NOT:  relay.nn.conv2d
// CHECK:      relay.sum
func.func @conv2d_uint8_weight_128(%x: tensor<1x4x5x5xui8>, %w: tensor<4x4x3x3xui8>, %s: tensor<f32>) -> tensor<1x4x5x5xi32> {
  %xz = relay.const dense<9> : tensor<ui8>
  %wz = relay.const dense<128> : tensor<ui8>
  %y = qnn.conv2d %x, %w, %xz, %wz, %s, %s {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x5x5xui8>, tensor<4x4x3x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<1x4x5x5xi32>
  func.return %y : tensor<1x4x5x5xi32>
}

// Rules quantize and dequantize on a scalar (rank 0; the axis means nothing).
// CHECK-LABEL: func.func @scalar
// CHECK:      relay.divide %x, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK:      relay.multiply %{{.*}}, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @scalar(%x: tensor<f32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<f32> {
  %q = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<ui8>
  %y = qnn.dequantize %q, %s, %z : (tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<f32>
  func.return %y : tensor<f32>
}
