// RUN: not xtvm-opt %s -p vm-manifest-value-shapes 2>&1 | filecheck %s

// A result axis no input binds, but the call's last argument is no shape
// tensor of the result's rank: the pass names the kernel and what it needs.
// CHECK: vm-manifest-value-shapes: result 0 (tensor<2x?xi64>) of @nonzero has a size that depends on input values; its shape must be the call's argument #0 of type tensor<2xi64> (a relay.<op>_shape result), got tensor<3x4xf32>
tir.prim_func @nonzero(%p0: memref<3x4xf32>, %out: memref<2x?xi64>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 1, 1>]}} {
  tir.return
}
func.func @main(%x: tensor<3x4xf32>) -> tensor<2x?xi64> {
  %y = relay.call_lowered @nonzero(%x) : (tensor<3x4xf32>) -> tensor<2x?xi64>
  func.return %y : tensor<2x?xi64>
}
