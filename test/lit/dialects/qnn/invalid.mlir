// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid qnn op; the verifier names the op and the problem.

func.func @quantize_float_zero_point(%x: tensor<1x8xf32>, %s: tensor<f32>, %z: tensor<f32>) {
  // expected-error @+1 {{'qnn.quantize' expects an integer zero point, got f32}}
  %q = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<1x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8xui8>
  func.return
}

// -----

func.func @quantize_zero_point_dtype(%x: tensor<1x8xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{'qnn.quantize' zero point is i8, but out_dtype is 'uint8'}}
  %q = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xui8>
  func.return
}

// -----

func.func @quantize_per_axis_size(%x: tensor<1x8xf32>, %s: tensor<4xf32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'qnn.quantize' per-axis scale has 4 values, but axis 1 of 1x8 has 8 elements}}
  %q = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<1x8xf32>, tensor<4xf32>, tensor<ui8>) -> tensor<1x8xui8>
  func.return
}

// -----

func.func @quantize_out_dtype(%x: tensor<1x8xf32>, %s: tensor<f32>, %z: tensor<i64>) {
  // expected-error @+1 {{'qnn.quantize' out_dtype must be one of int8, uint8, int16, uint16, int32, int4, uint4, int2, uint2, got 'int64'}}
  %q = qnn.quantize %x, %s, %z {out_dtype = "int64"} : (tensor<1x8xf32>, tensor<f32>, tensor<i64>) -> tensor<1x8xi64>
  func.return
}

// -----

func.func @dequantize_float(%x: tensor<1x8xf32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'qnn.dequantize' expects an integer data, got f32}}
  %y = qnn.dequantize %x, %s, %z : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
  func.return
}

// -----

func.func @dequantize_scale_dtype(%q: tensor<1x8xui8>, %s: tensor<f64>, %z: tensor<ui8>) {
  // expected-error @+1 {{'qnn.dequantize' expects an f32 scale, got f64}}
  %y = qnn.dequantize %q, %s, %z : (tensor<1x8xui8>, tensor<f64>, tensor<ui8>) -> tensor<1x8xf32>
  func.return
}

// -----

func.func @requantize_compute(%a: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>, %zo: tensor<ui8>) {
  // expected-error @+1 {{'qnn.requantize' compute_dtype must be one of float32, int64, got 'float16'}}
  %y = qnn.requantize %a, %s, %z, %s, %zo {out_dtype = "uint8", compute_dtype = "float16"} : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return
}

// -----

func.func @conv2d_channels(%x: tensor<1x3x8x8xui8>, %w: tensor<4x2x3x3xi8>, %xz: tensor<ui8>, %wz: tensor<i8>, %s: tensor<f32>) {
  // expected-error @+1 {{'qnn.conv2d' weight 4x2x3x3 has 2 input channels per group, but data 1x3x8x8 with groups=1 needs 3}}
  %y = qnn.conv2d %x, %w, %xz, %wz, %s, %s : (tensor<1x3x8x8xui8>, tensor<4x2x3x3xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x4x6x6xi32>
  func.return
}

// -----

func.func @conv2d_weight_scale(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xi8>, %xz: tensor<ui8>, %wz: tensor<i8>, %s: tensor<f32>, %ws: tensor<3xf32>) {
  // expected-error @+1 {{'qnn.conv2d' per-axis weight scale has 3 values, but axis 0 of 4x3x3x3 has 4 elements}}
  %y = qnn.conv2d %x, %w, %xz, %wz, %s, %ws : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<3xf32>) -> tensor<1x4x6x6xi32>
  func.return
}

// -----

func.func @dense_k(%x: tensor<2x16xui8>, %w: tensor<8x15xi8>, %xz: tensor<ui8>, %wz: tensor<i8>, %s: tensor<f32>) {
  // expected-error @+1 {{'qnn.dense' expects data [..., K] and a weight [N, K], got 2x16 and 8x15}}
  %y = qnn.dense %x, %w, %xz, %wz, %s, %s : (tensor<2x16xui8>, tensor<8x15xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x8xi32>
  func.return
}

// -----

func.func @add_dtypes(%a: tensor<8xui8>, %b: tensor<8xi8>, %s: tensor<f32>, %z: tensor<ui8>, %zb: tensor<i8>) {
  // expected-error @+1 {{'qnn.add' operands must have one element type, got ui8 and i8}}
  %y = qnn.add %a, %b, %s, %z, %s, %zb, %s, %z : (tensor<8xui8>, tensor<8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  func.return
}

// -----

func.func @concatenate_operands(%a: tensor<1x2xui8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'qnn.concatenate' expects n inputs, n scales, n zero points, an output scale and zero point (3n + 2 operands), got 4}}
  %y = qnn.concatenate %a, %s, %z, %s {axis = 1 : i64} : (tensor<1x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<1x2xui8>
  func.return
}

// -----

func.func @avg_pool_window(%x: tensor<1x8x7x7xui8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'qnn.avg_pool2d' window height 9 (with dilation) is larger than the padded input height 7}}
  %y = qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 9, 9>} : (tensor<1x8x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x1x1xui8>
  func.return
}

// -----

func.func @quantize_block_shape(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>, %z: tensor<2x3xi8>) {
  // expected-error @+1 {{'qnn.quantize' block-wise scale must have shape 2x2 (blocks of 2 along axis 1 of 2x3), got 2x3}}
  %q = qnn.quantize %x, %s, %z {block_size = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi8>) -> tensor<2x3xi8>
  func.return
}

// -----

func.func @matmul_inner(%a: tensor<2x4xui8>, %b: tensor<2x5x3xui8>, %z: tensor<ui8>, %s: tensor<f32>) {
  // expected-error @+1 {{'qnn.matmul' reduction sizes differ: a has K=4, b has K=5}}
  %y = qnn.matmul %a, %b, %z, %z, %s, %s : (tensor<2x4xui8>, tensor<2x5x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<2x2x3xi32>
  func.return
}
