// RUN: xtvm-opt %s -t c | filecheck %s
// arith and math ops as C expressions, with the llvm path's semantics.

// Integers: signless values are stored signed, unsigned readings cast;
// add/sub/mul wrap (computed unsigned) unless index or nsw; floor and ceil
// division, min/max and the bit counts through the prelude's helpers.
// CHECK-LABEL: // kernel @ints
// CHECK:  const int32_t add = (int32_t)((uint32_t)a + (uint32_t)b);
// CHECK:  const int32_t addnsw = a + b;
// CHECK:  const int32_t divu = (int32_t)((uint32_t)a / (uint32_t)b);
// CHECK:  const int32_t rems = (int32_t)(a % b);
// CHECK:  const int32_t shru = (int32_t)((uint32_t)a >> b);
// CHECK:  const int32_t shrs = (int32_t)(a >> b);
// CHECK:  const int32_t fdiv = (int32_t)XTVM_FLOORDIV(a, b);
// CHECK:  const int32_t cdivu = (int32_t)XTVM_CEILDIVU((uint32_t)a, (uint32_t)b);
// CHECK:  const int32_t maxu = (uint32_t)a > (uint32_t)b ? a : b;
// CHECK:  const bool ult = (uint32_t)a < (uint32_t)b;
// CHECK:  const int32_t sel = ult ? a : b;
// CHECK:  const int64_t wide = (int64_t)a;
// CHECK:  const int64_t wideu = (int64_t)(uint32_t)a;
// CHECK:  const int8_t narrow = (int8_t)a;
// CHECK:  const int32_t clz = (int32_t)(a == 0 ? 32 : (__builtin_clzll((unsigned long long)(uint32_t)a) - 32));
// CHECK:  const int32_t pop = (int32_t)__builtin_popcountll((unsigned long long)(uint32_t)a);
// CHECK:  const int32_t absi = (int32_t)(a < 0 ? (uint32_t)0 - (uint32_t)a : (uint32_t)a);
tir.prim_func @ints(%A: memref<16xi32>, %a: i32, %b: i32) attributes {arg_names = ["A", "a", "b"]} {
  %c0 = arith.constant 0 : index
  %add = arith.addi %a, %b : i32
  %addnsw = arith.addi %a, %b overflow<nsw> : i32
  %divu = arith.divui %a, %b : i32
  %rems = arith.remsi %a, %b : i32
  %shru = arith.shrui %a, %b : i32
  %shrs = arith.shrsi %a, %b : i32
  %fdiv = arith.floordivsi %a, %b : i32
  %cdivu = arith.ceildivui %a, %b : i32
  %maxu = arith.maxui %a, %b : i32
  %ult = arith.cmpi ult, %a, %b : i32
  %sel = arith.select %ult, %a, %b : i32
  %wide = arith.extsi %a : i32 to i64
  %wideu = arith.extui %a : i32 to i64
  %narrow = arith.trunci %a : i32 to i8
  %clz = math.ctlz %a : i32
  %pop = math.ctpop %a : i32
  %absi = math.absi %a : i32
  tir.store %absi, %A[%c0] : memref<16xi32>
  tir.return
}

// Floats: NaN-propagating maximumf, unordered comparisons, saturating
// float -> int (NaN gives 0), libm by type (expf, erf), f16 values held in
// floats and rounded after each op, bitcasts through a union; exact
// literals, infinities by name.
// CHECK-LABEL: // kernel @floats
// CHECK:  const float mx = (float)XTVM_MAXIMUMF(x, 0.0f);
// CHECK:  const bool ugt = !(x <= y);
// CHECK:  const bool uno = (x != x || y != y);
// CHECK:  const int8_t q = XTVM_FPTOI(int8_t, -0x1p7, INT8_MIN, 0x1p7, INT8_MAX, x);
// CHECK:  const uint32_t u = XTVM_FPTOI(uint32_t, 0.0, 0, 0x1p32, UINT32_MAX, x);
// CHECK:  const float h = xtvm_h2f(xtvm_d2h(d));
// CHECK:  const float e = expf(x);
// CHECK:  const double erf_1 = erf(d);
// CHECK:  const float th = xtvm_h2f(xtvm_f2h(tanhf(h)));
// CHECK:  const float rs = (float)(1.0f / sqrtf(x));
// CHECK:  const int32_t bits = XTVM_BITCAST(int32_t, float, x);
// CHECK:  const float inf = x + INFINITY;
// CHECK:  const float fx = fmaf(x, y, 0.1f);
// CHECK:  const int32_t dot = xtvm_vpdpbusd(bits, bits, bits);
tir.prim_func @floats(%A: memref<4xf32>, %x: f32, %y: f32, %d: f64) attributes {arg_names = ["A", "x", "y", "d"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %mx = arith.maximumf %x, %zero : f32
  %ugt = arith.cmpf ugt, %x, %y : f32
  %uno = arith.cmpf uno, %x, %y : f32
  %q = arith.fptosi %x : f32 to i8
  %u = arith.fptoui %x : f32 to ui32
  %h = arith.truncf %d : f64 to f16
  %e = math.exp %x : f32
  %erf = math.erf %d : f64
  %th = math.tanh %h : f16
  %rs = math.rsqrt %x : f32
  %bits = arith.bitcast %x : f32 to i32
  %pinf = arith.constant 0x7F800000 : f32
  %inf = arith.addf %x, %pinf : f32
  %tenth = arith.constant 0.1 : f32
  %fx = tir.call_intrin "llvm.fma.f32"(%x, %y, %tenth) : (f32, f32, f32) -> f32
  %dot = tir.call_intrin "llvm.x86.avx512.vpdpbusd.512"(%bits, %bits, %bits) : (i32, i32, i32) -> i32
  tir.store %fx, %A[%c0] : memref<4xf32>
  tir.return
}

// An external C function is declared by its call's signature.
// CHECK-LABEL: // kernel @ext
// CHECK-NEXT:  extern float fmodf(float, float);
// CHECK:         const float r = fmodf(x, x);
tir.prim_func @ext(%A: memref<1xf32>, %x: f32) attributes {arg_names = ["A", "x"]} {
  %c0 = arith.constant 0 : index
  %r = tir.call_extern "fmodf"(%x, %x) : (f32, f32) -> f32
  tir.store %r, %A[%c0] : memref<1xf32>
  tir.return
}
