// RUN: xtvm-opt %s -p relay-fuse-ops | filecheck %s
// RUN: xtvm-opt %s -p 'relay-fuse-ops{max-depth=3}' | filecheck %s --check-prefix=DEPTH3

// The groups of a ResNet block after relay-simplify-inference and
// relay-fold-scale-axis: batch norm is a per-channel add (its scale is in the
// weights). conv2d is out-elemwise-fusable: it takes the bias add, the relu
// and the residual add after it into one kernel.

// conv + bias + relu: one kernel.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NEXT: %w = relay.const
// CHECK-NEXT: %b = relay.const
// CHECK-NEXT: %r = func.call @fused_nn_conv2d_add_nn_relu(%x, %w, %b) : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: func.return %r
func.func @conv_bias_relu(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.const dense<0.5> : tensor<8x4x3x3xf32>
  %b = relay.const dense<0.25> : tensor<8x1x1xf32>
  %c = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %a = relay.add %c, %b : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %r = relay.nn.relu %a : tensor<1x8x8x8xf32>
  func.return %r : tensor<1x8x8x8xf32>
}
// CHECK-LABEL: func.func private @fused_nn_conv2d_add_nn_relu
// CHECK-SAME: attributes {relay.primitive}
// CHECK-NEXT: relay.nn.conv2d
// CHECK-NEXT: relay.add
// CHECK-NEXT: relay.nn.relu
// CHECK-NEXT: func.return

// A bottleneck's tail: conv + bias + residual add + relu is one kernel; the
// residual input is the block's input, passed to the call. The first conv
// of the block is a kernel of its own (its relu output feeds the second conv,
// which is an anchor and cannot fuse into a producer).
// With max-depth=3 the group stops after three ops: the final relu is its own kernel.
// CHECK-LABEL: func.func @residual_block
// CHECK-NEXT: %w1 = relay.const
// CHECK-NEXT: %b1 = relay.const
// CHECK-NEXT: %w2 = relay.const
// CHECK-NEXT: %b2 = relay.const
// CHECK-NEXT: %r1 = func.call @fused_nn_conv2d_add_nn_relu_1(%x, %w1, %b1)
// CHECK-NEXT: %out = func.call @fused_nn_conv2d_add_add_nn_relu(%r1, %w2, %b2, %x)
// CHECK-NEXT: func.return %out
// DEPTH3-LABEL: func.func @residual_block
// DEPTH3: %r1 = func.call @fused_nn_conv2d_add_nn_relu_1(%x, %w1, %b1)
// DEPTH3-NEXT: %s = func.call @fused_nn_conv2d_add_add(%r1, %w2, %b2, %x)
// DEPTH3-NEXT: %out = func.call @fused_nn_relu(%s)
// DEPTH3-NEXT: func.return %out
func.func @residual_block(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w1 = relay.const dense<0.5> : tensor<8x8x1x1xf32>
  %b1 = relay.const dense<0.25> : tensor<8x1x1xf32>
  %w2 = relay.const dense<0.125> : tensor<8x8x3x3xf32>
  %b2 = relay.const dense<-0.25> : tensor<8x1x1xf32>
  %c1 = relay.nn.conv2d %x, %w1 : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %a1 = relay.add %c1, %b1 : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %r1 = relay.nn.relu %a1 : tensor<1x8x8x8xf32>
  %c2 = relay.nn.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %a2 = relay.add %c2, %b2 : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %s = relay.add %a2, %x : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = relay.nn.relu %s : tensor<1x8x8x8xf32>
  func.return %out : tensor<1x8x8x8xf32>
}
// CHECK-LABEL: func.func private @fused_nn_conv2d_add_add_nn_relu
// CHECK-NEXT: relay.nn.conv2d
// CHECK-NEXT: relay.add
// CHECK-NEXT: relay.add
// CHECK-NEXT: relay.nn.relu

// A conv whose output also feeds a pooling (a second consumer that is not
// elementwise): nothing after the conv post-dominates it inside an
// elementwise chain, so conv + bias stays one kernel and the pool another.
// CHECK-LABEL: func.func @conv_two_consumers
// CHECK-NEXT: %w = relay.const
// CHECK-NEXT: %a = func.call @fused_nn_conv2d_add(%x, %w, %b)
// CHECK-NEXT: %p = func.call @fused_nn_max_pool2d(%a)
// CHECK-NEXT: %r = func.call @fused_nn_relu(%a)
func.func @conv_two_consumers(%x: tensor<1x4x8x8xf32>, %b: tensor<8x1x1xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>) {
  %w = relay.const dense<0.5> : tensor<8x4x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  %a = relay.add %c, %b : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %p = relay.nn.max_pool2d %a {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %r = relay.nn.relu %a : tensor<1x8x8x8xf32>
  func.return %p, %r : tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>
}

// A quantized downsample block: the branch conv's 8-bit result meets the
// later conv's in the residual add. The earlier anchor's group ends before
// the widening cast (xtvm's rule): its result is stored as ui8 and the
// dequantize (cast, multiply) fuses into the later conv's kernel with the add,
// rather than the branch being stored as f32.
// CHECK-LABEL: func.func @quantized_residual
// CHECK: %qa = func.call @fused_nn_conv2d_cast(%x, %wa) : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xui8>
// CHECK-NEXT: %out = func.call @fused_nn_conv2d_cast_cast_multiply_cast_add_cast(%x, %wb, %qa, %s) : {{.*}} -> tensor<1x8x8x8xui8>
func.func @quantized_residual(%x: tensor<1x8x8x8xf32>, %s: tensor<f32>) -> tensor<1x8x8x8xui8> {
  %wa = relay.const dense<0.5> : tensor<8x8x1x1xf32>
  %wb = relay.const dense<0.25> : tensor<8x8x1x1xf32>
  %ca = relay.nn.conv2d %x, %wa : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %qa = relay.cast %ca {dtype = "uint8"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xui8>
  %cb = relay.nn.conv2d %x, %wb : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %qb = relay.cast %cb {dtype = "uint8"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xui8>
  %da = relay.cast %qa {dtype = "float32"} : (tensor<1x8x8x8xui8>) -> tensor<1x8x8x8xf32>
  %ma = relay.multiply %da, %s : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  %db = relay.cast %qb {dtype = "float32"} : (tensor<1x8x8x8xui8>) -> tensor<1x8x8x8xf32>
  %sum = relay.add %db, %ma : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = relay.cast %sum {dtype = "uint8"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xui8>
  func.return %out : tensor<1x8x8x8xui8>
}

// Near miss: the other operand of the add is no anchor's (a graph input),
// so the conv's group takes the widening cast and the add as before.
// CHECK-LABEL: func.func @quantized_residual_input
// CHECK: %out = func.call @fused_nn_conv2d_cast_cast_add(%x, %wa, %y) : {{.*}} -> tensor<1x8x8x8xf32>
func.func @quantized_residual_input(%x: tensor<1x8x8x8xf32>, %y: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %wa = relay.const dense<0.5> : tensor<8x8x1x1xf32>
  %ca = relay.nn.conv2d %x, %wa : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %qa = relay.cast %ca {dtype = "uint8"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xui8>
  %da = relay.cast %qa {dtype = "float32"} : (tensor<1x8x8x8xui8>) -> tensor<1x8x8x8xf32>
  %out = relay.add %da, %y : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %out : tensor<1x8x8x8xf32>
}
