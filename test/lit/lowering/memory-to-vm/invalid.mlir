// RUN: not xtvm-opt %s -p convert-memory-to-vm 2>&1 | filecheck %s

// A graph function whose memory was not made explicit: the conversion names
// the op it cannot lower, where it is, and the pass.
// CHECK: convert-memory-to-vm: 1 op(s) left unlowered
// CHECK: invalid.mlir:[[# @LINE + 5]]:{{[0-9]+}}: 'relay.call_lowered'
tir.prim_func @k(%p0: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["p0", "out"]} {
  tir.return
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
