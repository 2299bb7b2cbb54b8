// RUN: xtvm-opt %s -p convert-memory-to-llvm | filecheck %s

// A bfloat16 constant's global holds its bits as i16, as llvm holds bf16
// values (docs/element-types.md): [1.0, 3.0, -2.0] → 0x3F80, 0x4040, 0xC000.
// CHECK: llvm.mlir.global external constant @__xtvm_const_w(dense<[16256, 16448, -16384]> : tensor<3xi16>) {{.*}}alignment = 64 : i64{{.*}} : !llvm.array<3 x i16>

tir.prim_func @copy(%p0: memref<3xbf16>, %out: memref<3xbf16>) attributes {arg_names = ["p0", "out"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tir.for %i = %c0 to %c3 kind "serial" {
    %x = tir.load %p0[%i] : memref<3xbf16>
    tir.store %x, %out[%i] : memref<3xbf16>
  }
  tir.return
}
func.func @main() -> (tensor<3xbf16> {relay.name = "y"}) attributes {memory.planned_bytes = 64 : i64, memory.naive_bytes = 64 : i64} {
  %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
  %w = relay.const dense<[1.0, 3.0, -2.0]> : tensor<3xbf16>
  %b = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<3xbf16>
  memory.invoke_kernel @copy ins(%w : tensor<3xbf16>) outs(%b : tensor<3xbf16>)
  func.return %b : tensor<3xbf16>
}
