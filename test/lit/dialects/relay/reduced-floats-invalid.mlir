// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// A cast's round_mode is one of ONNX's three; the result type follows dtype.

func.func @round_mode(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.cast' round_mode must be up, down or nearest, got 'odd'}}
  %y = relay.cast %x {dtype = "float8_e8m0fnu", round_mode = "odd"} : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
  func.return
}

// -----

func.func @result_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.cast' result type tensor<3xf8E4M3FN> does not match the inferred type tensor<3xf8E5M2>}}
  %y = relay.cast %x {dtype = "float8_e5m2"} : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
  func.return
}
