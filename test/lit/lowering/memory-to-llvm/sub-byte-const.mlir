// RUN: xtvm-opt %s -p convert-memory-to-llvm | filecheck %s

// A sub-byte constant holds one byte an element in the IR (as MLIR), but
// kernels read it packed (docs/sub-byte-types.md): its global is the packed
// bytes, two int4 elements a byte, low nibble first, the last byte padded.
// [1, -2, 7, -8, 3] → 0xE1, 0x87, 0x03 (-31, -121, 3 as i8).
// CHECK: llvm.mlir.global external constant @__xtvm_const_w(dense<[-31, -121, 3]> : tensor<3xi8>) {{.*}}alignment = 64 : i64{{.*}} : !llvm.array<3 x i8>

tir.prim_func @copy(%p0: memref<5xi4>, %out: memref<5xi4>) attributes {arg_names = ["p0", "out"]} {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  tir.for %i = %c0 to %c5 kind "serial" {
    %x = tir.load %p0[%i] : memref<5xi4>
    tir.store %x, %out[%i] : memref<5xi4>
  }
  tir.return
}
func.func @main() -> (tensor<5xi4> {relay.name = "y"}) attributes {memory.planned_bytes = 64 : i64, memory.naive_bytes = 64 : i64} {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %w = relay.const dense<[1, -2, 7, -8, 3]> : tensor<5xi4>
  %b = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<5xi4>
  memory.invoke_kernel @copy ins(%w : tensor<5xi4>) outs(%b : tensor<5xi4>)
  func.return %b : tensor<5xi4>
}
