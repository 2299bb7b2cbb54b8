// RUN: not xtvm-opt %s 2>&1 | filecheck %s

// A malformed op gives file:line:col, what was expected, the line, and no traceback.

// CHECK: parse-error.mlir:[[# @LINE + 3]]:24: error: Expected ':'
// CHECK-NEXT: %y = relay.nn.relu %x, : tensor<2xf32>
// CHECK-NOT: Traceback
  %y = relay.nn.relu %x, : tensor<2xf32>
