// RUN: xtvm-opt %s -p 'relay-simplify-expr,relay-fuse-ops{max-depth=2}' --print-ir-after-all -o %t 2>&1 >/dev/null | filecheck %s
// RUN: filecheck %s --check-prefix=OUT < %t

// After every pass the IR is dumped to stderr with the pipeline that reproduces it; -o writes the result.

// CHECK: // -----// IR Dump After relay-simplify-expr //----- //
// CHECK-NEXT: // reproduce: xtvm-opt -p 'relay-simplify-expr'
// CHECK: relay.nn.relu
// CHECK: // -----// IR Dump After relay-fuse-ops //----- //
// CHECK-NEXT: // reproduce: xtvm-opt -p 'relay-simplify-expr,relay-fuse-ops{max-depth=2}'
// CHECK: func.call @fused_nn_relu

// OUT: func.func private @fused_nn_relu
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = relay.nn.relu %x : tensor<4xf32>
  %s = relay.nn.relu %r : tensor<4xf32>
  func.return %s : tensor<4xf32>
}
