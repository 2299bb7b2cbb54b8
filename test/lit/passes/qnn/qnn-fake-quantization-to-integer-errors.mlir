// RUN: not xtvm-opt %s -p qnn-fake-quantization-to-integer 2>&1 | filecheck %s
// RUN: xtvm-opt %s -p 'qnn-fake-quantization-to-integer{allow-float=true}' | filecheck %s --check-prefix=ALLOW
// RUN: not xtvm-opt %S/inputs/fq2i-float-weight.mlir -p qnn-fake-quantization-to-integer 2>&1 | filecheck %s --check-prefix=WEIGHT
// A QDQ region no rule rewrites (an erf of a dequantized value, quantized) is an
// error naming the op and its value, unless allow-float leaves it in float.
// A convolution of dequantized data with a float weight (a dequantize folded
// away) is named too, though a bias_add sits between it and the quantize.
// WEIGHT: 'relay.nn.conv2d' (value %conv) computes in float between a dequantize and a quantize

// CHECK: 'relay.erf' (value %gelu) computes in float between a dequantize and a quantize
// ALLOW: relay.erf
// ALLOW: qnn.quantize
func.func @erf(%q: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  %x = qnn.dequantize %q, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %gelu = relay.erf %x : tensor<4xf32>
  %y = qnn.quantize %gelu, %s, %z {out_dtype = "uint8"} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %y : tensor<4xui8>
}
