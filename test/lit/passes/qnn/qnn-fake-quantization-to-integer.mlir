// RUN: xtvm-opt %s -p 'qnn-fake-quantization-to-integer{allow-float=true}' | filecheck %s
// Float dequantize → op → quantize regions become qnn ops; one case per rule
// (named in the comment), and near misses that stay float (allow-float keeps
// them; without it they are errors: see the -errors file).

// Rules conv2d-bias and quantize-dequantize: a QDQ convolution with its int32 bias
// becomes qnn.conv2d + bias_add + requantize; q(dq(x)) a requantize.
// CHECK-LABEL: func.func @conv2d_bias
// CHECK:      qnn.conv2d %q, %w, %zx, %zw, %sx, %sw {padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT: relay.nn.bias_add %{{.*}}, %b : (tensor<1x4x6x6xi32>, tensor<4xi32>) -> tensor<1x4x6x6xi32>
// CHECK-NEXT: relay.multiply %sx, %sw
// CHECK:      qnn.requantize %{{.*}}, %{{.*}}, %{{.*}}, %so, %zo {out_dtype = "uint8"}
// CHECK:      qnn.requantize %{{.*}}, %so, %zo, %sx, %zx {out_dtype = "uint8"}
// CHECK-NOT:  qnn.dequantize
func.func @conv2d_bias(%q: tensor<1x3x6x6xui8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>, %sx: tensor<f32>, %zx: tensor<ui8>, %sw: tensor<4xf32>, %zw: tensor<4xi8>, %sb: tensor<4xf32>, %zb: tensor<4xi32>, %so: tensor<f32>, %zo: tensor<ui8>) -> tensor<1x4x6x6xui8> {
  %x = qnn.dequantize %q, %sx, %zx : (tensor<1x3x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x6x6xf32>
  %wf = qnn.dequantize %w, %sw, %zw {axis = 0 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x3x3x3xf32>
  %bf = qnn.dequantize %b, %sb, %zb {axis = 0 : i64} : (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  %c = relay.nn.conv2d %x, %wf {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %a = relay.nn.bias_add %c, %bf {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %y = qnn.quantize %a, %so, %zo {out_dtype = "uint8"} : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xui8>
  %d = qnn.dequantize %y, %so, %zo : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %r = qnn.quantize %d, %sx, %zx {out_dtype = "uint8"} : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xui8>
  func.return %r : tensor<1x4x6x6xui8>
}

// Rule conv2d (no bias); near miss: a per-axis data scale is not a qnn.conv2d input.
// CHECK-LABEL: func.func @conv2d
// CHECK:      qnn.conv2d
// CHECK:      qnn.requantize
// CHECK:      relay.nn.conv2d %{{.*}}, %{{.*}} : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>)
// CHECK:      qnn.quantize
func.func @conv2d(%q: tensor<1x3x6x6xui8>, %w: tensor<4x3x3x3xi8>, %sx: tensor<f32>, %sxc: tensor<3xf32>, %zx: tensor<ui8>, %sw: tensor<f32>, %zw: tensor<i8>) -> (tensor<1x4x4x4xui8>, tensor<1x4x4x4xui8>) {
  %x = qnn.dequantize %q, %sx, %zx : (tensor<1x3x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x6x6xf32>
  %wf = qnn.dequantize %w, %sw, %zw : (tensor<4x3x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x3x3x3xf32>
  %c = relay.nn.conv2d %x, %wf : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %y = qnn.quantize %c, %sx, %zx {out_dtype = "uint8"} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  %x2 = qnn.dequantize %q, %sxc, %zx : (tensor<1x3x6x6xui8>, tensor<3xf32>, tensor<ui8>) -> tensor<1x3x6x6xf32>
  %c2 = relay.nn.conv2d %x2, %wf : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %y2 = qnn.quantize %c2, %sx, %zx {out_dtype = "uint8"} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  func.return %y, %y2 : tensor<1x4x4x4xui8>, tensor<1x4x4x4xui8>
}

// Rules dense-bias and dense (a Gemm of dequantized operands).
// CHECK-LABEL: func.func @dense
// CHECK:      qnn.dense %q, %w, %zx, %zw, %sx, %sw
// CHECK-NEXT: relay.add %{{.*}}, %b : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
// CHECK:      qnn.requantize
// CHECK:      qnn.dense %q, %w, %zx, %zw, %sx, %sw
// CHECK:      qnn.requantize
func.func @dense(%q: tensor<2x16xui8>, %w: tensor<8x16xi8>, %b: tensor<8xi32>, %sx: tensor<f32>, %zx: tensor<ui8>, %sw: tensor<f32>, %zw: tensor<i8>, %zb: tensor<i32>) -> (tensor<2x8xui8>, tensor<2x8xui8>) {
  %x = qnn.dequantize %q, %sx, %zx : (tensor<2x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x16xf32>
  %wf = qnn.dequantize %w, %sw, %zw : (tensor<8x16xi8>, tensor<f32>, tensor<i8>) -> tensor<8x16xf32>
  %bf = qnn.dequantize %b, %sx, %zb {axis = 0 : i64} : (tensor<8xi32>, tensor<f32>, tensor<i32>) -> tensor<8xf32>
  %d = relay.nn.dense %x, %wf : (tensor<2x16xf32>, tensor<8x16xf32>) -> tensor<2x8xf32>
  %a = relay.add %d, %bf : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %y = qnn.quantize %a, %sx, %zx {out_dtype = "uint8"} : (tensor<2x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x8xui8>
  %y2 = qnn.quantize %d, %sx, %zx {out_dtype = "uint8"} : (tensor<2x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x8xui8>
  func.return %y, %y2 : tensor<2x8xui8>, tensor<2x8xui8>
}

// Rule add: a residual add of two dequantized tensors becomes qnn.add.
// CHECK-LABEL: func.func @add
// CHECK:      qnn.add %a, %b, %s, %z, %t, %z, %s, %z
func.func @add(%a: tensor<4xui8>, %b: tensor<4xui8>, %s: tensor<f32>, %t: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  %x = qnn.dequantize %a, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %y = qnn.dequantize %b, %t, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %u = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = qnn.quantize %u, %s, %z {out_dtype = "uint8"} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %q : tensor<4xui8>
}

// Rules max-pool2d, reshape and batch-flatten: the op on the integers, then a requantize.
// CHECK-LABEL: func.func @moves
// CHECK:      relay.nn.max_pool2d %q {pool_size = array<i64: 2, 2>} : (tensor<1x2x4x4xui8>) -> tensor<1x2x3x3xui8>
// CHECK:      relay.reshape %q {newshape = array<i64: 1, 32>} : (tensor<1x2x4x4xui8>) -> tensor<1x32xui8>
// CHECK:      relay.nn.batch_flatten %q : (tensor<1x2x4x4xui8>) -> tensor<1x32xui8>
// CHECK-NOT:  qnn.dequantize
func.func @moves(%q: tensor<1x2x4x4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<1x2x3x3xui8>, tensor<1x32xui8>, tensor<1x32xui8>) {
  %x = qnn.dequantize %q, %s, %z : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %m = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  %mq = qnn.quantize %m, %s, %z {out_dtype = "uint8"} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  %r = relay.reshape %x {newshape = array<i64: 1, 32>} : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %rq = qnn.quantize %r, %s, %z {out_dtype = "uint8"} : (tensor<1x32xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x32xui8>
  %f = relay.nn.batch_flatten %x : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %fq = qnn.quantize %f, %s, %z {out_dtype = "uint8"} : (tensor<1x32xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x32xui8>
  func.return %mq, %rq, %fq : tensor<1x2x3x3xui8>, tensor<1x32xui8>, tensor<1x32xui8>
}

// Rules avg-pool2d and global-avg-pool2d become qnn.avg_pool2d; rule concatenate
// qnn.concatenate. Near miss: a softmax region stays float.
// CHECK-LABEL: func.func @pools_concat_softmax
// CHECK:      qnn.avg_pool2d %q, %s, %z, %s, %z {pool_size = array<i64: 2, 2>}
// CHECK:      qnn.avg_pool2d %q, %s, %z, %s, %z {pool_size = array<i64: 4, 4>}
// CHECK:      qnn.concatenate %q, %q, %s, %s, %z, %z, %s, %z {axis = 1 : i64}
// CHECK:      relay.nn.softmax
// CHECK:      qnn.quantize
func.func @pools_concat_softmax(%q: tensor<1x2x4x4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<1x2x3x3xui8>, tensor<1x2x1x1xui8>, tensor<1x4x4x4xui8>, tensor<1x2x4x4xui8>) {
  %x = qnn.dequantize %q, %s, %z : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %a = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  %aq = qnn.quantize %a, %s, %z {out_dtype = "uint8"} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  %g = relay.nn.global_avg_pool2d %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %gq = qnn.quantize %g, %s, %z {out_dtype = "uint8"} : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x1x1xui8>
  %c = relay.concatenate %x, %x {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %cq = qnn.quantize %c, %s, %z {out_dtype = "uint8"} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  %m = relay.nn.softmax %x {axis = 1 : i64} : tensor<1x2x4x4xf32>
  %mq = qnn.quantize %m, %s, %z {out_dtype = "uint8"} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  func.return %aq, %gq, %cq, %mq : tensor<1x2x3x3xui8>, tensor<1x2x1x1xui8>, tensor<1x4x4x4xui8>, tensor<1x2x4x4xui8>
}

// Near misses: per-axis parameters (rules add, max-pool2d, reshape, batch-flatten,
// avg-pool2d, global-avg-pool2d, dense), a bias that is not int32 (conv2d-bias,
// dense-bias) and a concatenation of a value that is not dequantized (concatenate)
// stay float: no qnn op but the quantizes and dequantizes.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:  qnn.add
// CHECK-NOT:  qnn.conv2d
// CHECK-NOT:  qnn.dense
// CHECK-NOT:  qnn.avg_pool2d
// CHECK-NOT:  qnn.concatenate
// CHECK-NOT:  qnn.requantize
// CHECK:      func.return
func.func @near_misses(%q: tensor<1x2x4x4xui8>, %sc: tensor<2xf32>, %zc: tensor<2xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<2x2x1x1xi8>, %zw: tensor<i8>, %b: tensor<2xi8>, %zb: tensor<i8>, %f: tensor<1x2x4x4xf32>, %d: tensor<2x8xui8>, %dw: tensor<3x8xi8>, %db: tensor<3xi8>, %dsc: tensor<8xf32>, %dzc: tensor<8xui8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x3x3xui8>, tensor<1x32xui8>, tensor<1x32xui8>, tensor<1x2x3x3xui8>, tensor<1x2x1x1xui8>, tensor<1x2x4x4xui8>, tensor<1x4x4x4xui8>, tensor<2x3xui8>, tensor<2x3xui8>) {
  %x = qnn.dequantize %q, %sc, %zc : (tensor<1x2x4x4xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x4x4xf32>
  %a = relay.add %x, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %aq = qnn.quantize %a, %s, %z {out_dtype = "uint8"} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %m = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  %mq = qnn.quantize %m, %s, %z {out_dtype = "uint8"} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  %r = relay.reshape %x {newshape = array<i64: 1, 32>} : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %rq = qnn.quantize %r, %s, %z {out_dtype = "uint8"} : (tensor<1x32xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x32xui8>
  %fl = relay.nn.batch_flatten %x : (tensor<1x2x4x4xf32>) -> tensor<1x32xf32>
  %flq = qnn.quantize %fl, %s, %z {out_dtype = "uint8"} : (tensor<1x32xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x32xui8>
  %p = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  %pq = qnn.quantize %p, %s, %z {out_dtype = "uint8"} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  %g = relay.nn.global_avg_pool2d %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %gq = qnn.quantize %g, %s, %z {out_dtype = "uint8"} : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x1x1xui8>
  %xt = qnn.dequantize %q, %s, %z : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %wf = qnn.dequantize %w, %s, %zw : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xf32>
  %bf = qnn.dequantize %b, %s, %zb {axis = 0 : i64} : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %c = relay.nn.conv2d %xt, %wf : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %cb = relay.nn.bias_add %c, %bf {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %cq = qnn.quantize %cb, %s, %z {out_dtype = "uint8"} : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %k = relay.concatenate %xt, %f {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %kq = qnn.quantize %k, %s, %z {out_dtype = "uint8"} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  %dx = qnn.dequantize %d, %s, %z : (tensor<2x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x8xf32>
  %dxc = qnn.dequantize %d, %dsc, %dzc : (tensor<2x8xui8>, tensor<8xf32>, tensor<8xui8>) -> tensor<2x8xf32>
  %dwf = qnn.dequantize %dw, %s, %zw : (tensor<3x8xi8>, tensor<f32>, tensor<i8>) -> tensor<3x8xf32>
  %dbf = qnn.dequantize %db, %s, %zb {axis = 0 : i64} : (tensor<3xi8>, tensor<f32>, tensor<i8>) -> tensor<3xf32>
  %de = relay.nn.dense %dx, %dwf : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x3xf32>
  %deb = relay.add %de, %dbf : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %deq = qnn.quantize %deb, %s, %z {out_dtype = "uint8"} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  %dc = relay.nn.dense %dxc, %dwf : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x3xf32>
  %dcq = qnn.quantize %dc, %s, %z {out_dtype = "uint8"} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  func.return %aq, %mq, %rq, %flq, %pq, %gq, %cq, %kq, %deq, %dcq : tensor<1x2x4x4xui8>, tensor<1x2x3x3xui8>, tensor<1x32xui8>, tensor<1x32xui8>, tensor<1x2x3x3xui8>, tensor<1x2x1x1xui8>, tensor<1x2x4x4xui8>, tensor<1x4x4x4xui8>, tensor<2x3xui8>, tensor<2x3xui8>
}

// Rule quantize-dequantize with per-axis dequantize parameters along axis 0: the
// requantize takes that axis. Near miss: block-wise parameters stay as they are.
// CHECK-LABEL: func.func @quantize_dequantize_axes
// CHECK:      qnn.requantize %q, %sc, %zc, %s, %z {axis = 0 : i64, out_dtype = "uint8"}
// CHECK:      qnn.dequantize %q, %sb, %zb {block_size = 2 : i64}
// CHECK:      qnn.quantize
func.func @quantize_dequantize_axes(%q: tensor<3x4xui8>, %sc: tensor<3xf32>, %zc: tensor<3xui8>, %s: tensor<f32>, %z: tensor<ui8>, %sb: tensor<3x2xf32>, %zb: tensor<3x2xui8>) -> (tensor<3x4xui8>, tensor<3x4xui8>) {
  %x = qnn.dequantize %q, %sc, %zc {axis = 0 : i64} : (tensor<3x4xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<3x4xf32>
  %y = qnn.quantize %x, %s, %z {out_dtype = "uint8"} : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x4xui8>
  %b = qnn.dequantize %q, %sb, %zb {block_size = 2 : i64} : (tensor<3x4xui8>, tensor<3x2xf32>, tensor<3x2xui8>) -> tensor<3x4xf32>
  %c = qnn.quantize %b, %s, %z {out_dtype = "uint8"} : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x4xui8>
  func.return %y, %c : tensor<3x4xui8>, tensor<3x4xui8>
}

// Near miss of rule conv2d: the weight's parameters along its input channels
// (axis 1), which qnn.conv2d does not take.
// CHECK-LABEL: func.func @conv2d_weight_axis
// CHECK-NOT:  qnn.conv2d
// CHECK:      relay.nn.conv2d
func.func @conv2d_weight_axis(%q: tensor<1x3x6x6xui8>, %w: tensor<3x3x3x3xi8>, %s: tensor<f32>, %z: tensor<ui8>, %sw: tensor<3xf32>, %zw: tensor<3xi8>) -> tensor<1x3x4x4xui8> {
  %x = qnn.dequantize %q, %s, %z : (tensor<1x3x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x6x6xf32>
  %wf = qnn.dequantize %w, %sw, %zw {axis = 1 : i64} : (tensor<3x3x3x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x3x3x3xf32>
  %c = relay.nn.conv2d %x, %wf : (tensor<1x3x6x6xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x4x4xf32>
  %y = qnn.quantize %c, %s, %z {out_dtype = "uint8"} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  func.return %y : tensor<1x3x4x4xui8>
}
