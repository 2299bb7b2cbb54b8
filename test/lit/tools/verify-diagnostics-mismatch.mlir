// RUN: not xtvm-opt %s --split-input-file --verify-diagnostics -o %t 2>&1 | filecheck %s

// When the diagnostics and the annotations disagree, each difference is an
// error at its place in this file, and xtvm-opt exits 1.

// A diagnostic nobody expected.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:3: error: unexpected error: 'relay.nn.conv2d' expects 4-d data (NCHW)
func.func @unexpected(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}
// CHECK-NEXT: %y = relay.nn.conv2d %x, %w
// CHECK-NEXT: {{^  \^$}}

// -----

// An expected error that does not come, pointed at by its annotation.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "no such error" was not produced
func.func @missing(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{no such error}}
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// The right line but the wrong text: both sides are reported.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 4]]:3: error: unexpected error: 'relay.nn.conv2d' expects 4-d data
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "expects 5-d data" was not produced
func.func @wrong_text(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expects 5-d data}}
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

// The right text on the wrong line.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 4]]:3: error: unexpected error: 'relay.nn.conv2d' expects 4-d data
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "expects 4-d data" was not produced
func.func @wrong_line(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{expects 4-d data}}
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// -----

// Warnings and notes are checked the same way: none is produced here.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected warning "a warning" was not produced
func.func @warning(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-warning @+1 {{a warning}}
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// A malformed regex annotation is an error itself.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: invalid regex
func.func @bad_regex(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error-re @+1 {{a {{[}} b}}
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
// CHECK-NOT: Traceback
