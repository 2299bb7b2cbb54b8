// RUN: not xtvm-opt %s -p relay-fold-constant 2>&1 | filecheck %s
// RUN: not xtvm-compile %s -o %t.so 2>&1 | filecheck %s --check-prefix=COMPILE

// An elided constant has no values: a pass that needs them (folding
// relay.negative of it) and compiling both say which constant, and why.

// CHECK: error: constant 'relay.const' at {{.*}}elided-constant-errors.mlir:[[# @LINE + 6]]:3 : tensor<64xf32> was elided when the file was printed (--elide-large-constants); print it again without that flag
// CHECK-NOT: Traceback

// COMPILE: xtvm-compile: error: constant 'relay.const' at {{.*}}elided-constant-errors.mlir:[[# @LINE + 3]]:3 : tensor<64xf32> was elided when the file was printed (--elide-large-constants); print it again without that flag
// COMPILE-NOT: Traceback
func.func @main() -> tensor<64xf32> {
  %w = relay.const dense_resource<__elided__> : tensor<64xf32>
  %n = relay.negative %w : tensor<64xf32>
  func.return %n : tensor<64xf32>
}
