// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Every annotation form of MLIR's --verify-diagnostics; each chunk is checked
// against its own annotations, at the lines of this file.

// On the op's own line.
func.func @same_line(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32> // expected-error {{expects 4-d data (NCHW)}}
  func.return
}

// -----

// @+N and @-N count lines from the annotation.
func.func @relative(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{got 1x4x9 and 8x4x3x3}}
  // (a line between)
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  %z = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
  // expected-error @-2 {{'relay.nn.conv2d' expects 4-d data}}
}

// -----

// @below: the next line that is not an annotation; @above: the last one.
// Each diagnostic matches one annotation, and each annotation needs one.
func.func @below_above(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{expects 4-d data}}
  // expected-error @+2 {{expects 4-d data}}
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  %z = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  %v = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  // expected-error @above {{expects 4-d data}}
  func.return
}

// -----

// -re: {{...}} parts are regular expressions, the rest is literal text.
func.func @regex(%x: tensor<1x4x9x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error-re @+1 {{result type tensor<{{[0-9x]+}}xf32> does not match the inferred type tensor<1x8x{{4|5}}x4xf32>}}
  %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

// A parse error is a diagnostic too.
func.func @parse_error(%x: tensor<2xf32>) {
  // expected-error @+1 {{Expected ':'}}
  %y = relay.nn.relu %x, : tensor<2xf32>
  func.return
}

// -----

// A chunk without annotations must produce no diagnostic.
func.func @valid(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
