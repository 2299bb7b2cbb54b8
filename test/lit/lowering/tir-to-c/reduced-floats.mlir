// RUN: xtvm-opt %s -t c | filecheck %s

// bf16 and f8 values are their bits in C (uint16_t, uint8_t): loads, stores
// and bitcasts to the bits are plain copies, and the packed entry checks the
// DLPack dtype words of kDLBfloat (0x11004) and kDLFloat8_e4m3fn (0x1080a).

// CHECK-LABEL: int32_t copy_bits_impl(uint16_t* restrict A, uint8_t* restrict B) {
// CHECK:         const uint16_t a = A[i];
// CHECK-NEXT:    const uint16_t u = a;
// CHECK-NEXT:    const uint8_t n = (uint8_t)(int16_t)u;
// CHECK-NEXT:    const uint8_t f = n;
// CHECK-NEXT:    B[i] = f;
// CHECK:       if (XTVM_DTYPE_WORD(t0) != 0x11004u)
// CHECK:       if (XTVM_DTYPE_WORD(t1) != 0x1080au)
tir.prim_func @copy_bits(%A: memref<4xbf16>, %B: memref<4xf8E4M3FN>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    %a = tir.load %A[%i] : memref<4xbf16>
    %u = arith.bitcast %a : bf16 to ui16
    %n = arith.trunci %u : ui16 to ui8
    %f = arith.bitcast %n : ui8 to f8E4M3FN
    tir.store %f, %B[%i] : memref<4xf8E4M3FN>
  }
  tir.return
}
