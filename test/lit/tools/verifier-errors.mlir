// RUN: not xtvm-opt %s --split-input-file 2>&1 | filecheck %s

// Without --verify-diagnostics every bad chunk is reported, each error at the
// op's file:line:col (lines of this file, not of the chunk) with the source
// line and a caret; good chunks are still printed, and the exit code is 1.

// CHECK: verifier-errors.mlir:[[# @LINE + 2]]:3: error: 'relay.nn.conv2d' expects 4-d data (NCHW) and a 4-d weight (OIHW), got 1x4x9 and 8x4x3x3
func.func @first(%x: tensor<1x4x9xf32>, %w: tensor<8x4x3x3xf32>) {
  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return
}
// CHECK-NEXT: {{^}}  %y = relay.nn.conv2d %x, %w : (tensor<1x4x9xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x7x7xf32>
// CHECK-NEXT: {{^  \^$}}

// -----

// CHECK: // {{-----}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @good
func.func @good(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// Two bad ops in one chunk: both are reported.
// CHECK: verifier-errors.mlir:[[# @LINE + 3]]:3: error: 'relay.nn.lrn' size must be >= 1, got 0
// CHECK: verifier-errors.mlir:[[# @LINE + 3]]:3: error: 'relay.nn.lrn' expects a floating-point tensor, got i32
func.func @two(%x: tensor<1x8x4x4xf32>, %i: tensor<1x8x4x4xi32>) {
  %y = relay.nn.lrn %x {size = 0 : i64} : tensor<1x8x4x4xf32>
  %z = relay.nn.lrn %i : tensor<1x8x4x4xi32>
  func.return
}

// -----

// A parse error in a later chunk is reported too.
// CHECK: verifier-errors.mlir:[[# @LINE + 1]]:24: error: Expected ':'
  %y = relay.nn.relu %x, : tensor<2xf32>
// CHECK-NOT: Traceback
