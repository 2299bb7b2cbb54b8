// A QDQ convolution whose weight is float (its dequantize folded away): no
// integer form (used by qnn-fake-quantization-to-integer-errors.mlir).
func.func @float_weight(%q: tensor<1x3x6x6xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x4x4x4xui8> {
  %w = relay.const dense<0.5> : tensor<4x3x3x3xf32>
  %b = relay.const dense<0.25> : tensor<4xf32>
  %x = qnn.dequantize %q, %s, %z : (tensor<1x3x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x6x6xf32>
  %conv = relay.nn.conv2d %x, %w : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %a = relay.nn.bias_add %conv, %b {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %y = qnn.quantize %a, %s, %z {out_dtype = "uint8"} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  func.return %y : tensor<1x4x4x4xui8>
}
