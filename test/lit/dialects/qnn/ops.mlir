// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s
// Every qnn op round-trips through its assembly format (and the generic form).

// CHECK-LABEL: func.func @quantize
func.func @quantize(%x: tensor<1x8xf32>, %s: tensor<f32>, %z: tensor<ui8>, %sc: tensor<8xf32>, %zc: tensor<8xi8>) -> (tensor<1x8xui8>, tensor<1x8xi8>) {
  // CHECK: qnn.quantize %{{.*}}, %{{.*}}, %{{.*}} {out_dtype = "uint8"} : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  %q = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  // CHECK: qnn.quantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8xi8>
  %p = qnn.quantize %x, %sc, %zc {axis = 1 : i64, out_dtype = "int8"} : (tensor<1x8xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8xi8>
  func.return %q, %p : tensor<1x8xui8>, tensor<1x8xi8>
}

// CHECK-LABEL: func.func @dequantize
func.func @dequantize(%q: tensor<1x8xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8xf32> {
  // CHECK: qnn.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
  %x = qnn.dequantize %q, %s, %z : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
  func.return %x : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @requantize
func.func @requantize(%acc: tensor<1x8xi32>, %si: tensor<8xf32>, %zi: tensor<i32>, %so: tensor<f32>, %zo: tensor<ui8>) -> tensor<1x8xui8> {
  // CHECK: qnn.requantize %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {out_dtype = "uint8", compute_dtype = "int64"} : (tensor<1x8xi32>, tensor<8xf32>, tensor<i32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  %q = qnn.requantize %acc, %si, %zi, %so, %zo {out_dtype = "uint8", compute_dtype = "int64"} : (tensor<1x8xi32>, tensor<8xf32>, tensor<i32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  func.return %q : tensor<1x8xui8>
}

// CHECK-LABEL: func.func @conv2d
func.func @conv2d(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xi8>, %xz: tensor<ui8>, %wz: tensor<4xi8>, %xs: tensor<f32>, %ws: tensor<4xf32>) -> tensor<1x4x8x8xi32> {
  // CHECK: qnn.conv2d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<ui8>, tensor<4xi8>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
  %y = qnn.conv2d %x, %w, %xz, %wz, %xs, %ws {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<ui8>, tensor<4xi8>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
  func.return %y : tensor<1x4x8x8xi32>
}

// CHECK-LABEL: func.func @dense
func.func @dense(%x: tensor<2x16xui8>, %w: tensor<8x16xi8>, %xz: tensor<ui8>, %wz: tensor<i8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<2x8xi32> {
  // CHECK: qnn.dense %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x16xui8>, tensor<8x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x8xi32>
  %y = qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<2x16xui8>, tensor<8x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x8xi32>
  func.return %y : tensor<2x8xi32>
}

// CHECK-LABEL: func.func @add_mul
func.func @add_mul(%a: tensor<1x8xui8>, %b: tensor<8xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<1x8xui8>, tensor<1x8xui8>) {
  // CHECK: qnn.add %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8xui8>, tensor<8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  %y = qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<1x8xui8>, tensor<8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  // CHECK: qnn.mul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8xui8>, tensor<8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  %m = qnn.mul %a, %b, %s, %z, %s, %z, %s, %z : (tensor<1x8xui8>, tensor<8xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  func.return %y, %m : tensor<1x8xui8>, tensor<1x8xui8>
}

// CHECK-LABEL: func.func @concatenate
func.func @concatenate(%a: tensor<1x2xui8>, %b: tensor<1x3xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x5xui8> {
  // CHECK: qnn.concatenate %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2xui8>, tensor<1x3xui8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5xui8>
  %y = qnn.concatenate %a, %b, %s, %s, %z, %z, %s, %z {axis = 1 : i64} : (tensor<1x2xui8>, tensor<1x3xui8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x5xui8>
  func.return %y : tensor<1x5xui8>
}

// CHECK-LABEL: func.func @avg_pool2d
func.func @avg_pool2d(%x: tensor<1x8x7x7xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x1x1xui8> {
  // CHECK: qnn.avg_pool2d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {pool_size = array<i64: 7, 7>} : (tensor<1x8x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x1x1xui8>
  %y = qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 7, 7>} : (tensor<1x8x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x1x1xui8>
  func.return %y : tensor<1x8x1x1xui8>
}

// CHECK-LABEL: func.func @matmul_blocked
func.func @matmul_blocked(%a: tensor<2x2x4xui8>, %b: tensor<2x4x3xui8>, %z: tensor<ui8>, %s: tensor<f32>, %x: tensor<2x3xf32>, %bs: tensor<2x2xf32>, %bz: tensor<2x2xi8>) -> (tensor<2x2x3xi32>, tensor<2x3xi8>) {
  // CHECK: qnn.matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x2x4xui8>, tensor<2x4x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<2x2x3xi32>
  %y = qnn.matmul %a, %b, %z, %z, %s, %s : (tensor<2x2x4xui8>, tensor<2x4x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<2x2x3xi32>
  // CHECK: qnn.quantize %{{.*}}, %{{.*}}, %{{.*}} {block_size = 2 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x3xi8>
  %q = qnn.quantize %x, %bs, %bz {block_size = 2 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x3xi8>
  func.return %y, %q : tensor<2x2x3xi32>, tensor<2x3xi8>
}
