// RUN: not xtvm-opt %s -p vm-manifest-dynamic-alloc 2>&1 | filecheck %s

// A result axis that shares its shape variable with no input (its extent is
// computed at run time): no shape function gives it yet, and the pass says so.
// CHECK: vm-manifest-dynamic-alloc: axis 0 of result 0 (tensor<?xf32>) of @nonzero is no input's extent (tir.shape_vars) and no shape operand gives it (value-dependent sizes come from a shape kernel: vm-manifest-value-shapes, docs/data-dependent-ops.md)
tir.prim_func @nonzero(%p0: memref<4xf32>, %out: memref<?xf32>) attributes {arg_names = ["p0", "out"], tir.shape_vars = {n = [array<i64: 1, 0>]}, tir.buffer_shapes = [array<i64: 4>, array<i64: -1>]} {
  tir.return
}
func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %a = relay.call_lowered @nonzero(%x) : (tensor<4xf32>) -> tensor<?xf32>
  func.return %a : tensor<?xf32>
}
