// RUN: xtvm-opt %s -p relay-external-codegen | filecheck %s
// RUN: not xtvm-opt %s -p 'relay-partition-graph,relay-external-codegen' --split-input-file 2>&1 | filecheck %s --check-prefix=ERR

// A ccompiler region (add with broadcasting, relu) becomes an external
// kernel: a body-less tir.prim_func with its inputs then outputs as buffers,
// carrying the C of its _impl; the call becomes relay.call_lowered.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %r = relay.call_lowered @tvmgen_default_ccompiler_main_0(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %s = relay.nn.softmax %r
// CHECK: tir.prim_func @tvmgen_default_ccompiler_main_0(%0: memref<2x3xf32>, %1: memref<3xf32>, %2: memref<2x3xf32>)
// CHECK-SAME: arg_names = ["p0", "p1", "out0"]
// CHECK-SAME: tir.external = "ccompiler"
// CHECK-SAME: int32_t tvmgen_default_ccompiler_main_0_impl(float* restrict p0, float* restrict p1, float* restrict out0)
// CHECK-SAME: float* t0 = (float*)malloc(24); if (!t0) return 2;
// CHECK-SAME: for (long i0 = 0; i0 < 2L; ++i0) for (long i1 = 0; i1 < 3L; ++i1) { float a = p0[i0 * 3L + i1]; float b = p1[i1]; t0[i0 * 3L + i1] = a + b; }
// CHECK-SAME: out0[i] = v > 0.0f ? v : 0.0f;
// CHECK-SAME: tir.external_link = ["-lm"]
// CHECK-SAME: tir.external_ops = ["relay.add", "relay.nn.relu"]
// CHECK-NEXT: tir.return
// CHECK-NOT: tvmgen_default_ccompiler_main_0(%p0
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = func.call @tvmgen_default_ccompiler_main_0(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s = relay.nn.softmax %r {axis = -1 : i64} : tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}
func.func private @tvmgen_default_ccompiler_main_0(%p0: tensor<2x3xf32>, %p1: tensor<3xf32>) -> tensor<2x3xf32> attributes {relay.compiler = "ccompiler", relay.global_symbol = "tvmgen_default_ccompiler_main_0"} {
  %a = relay.add %p0, %p1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.nn.relu %a : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// A codegen failing on a region is an error naming the region, its ops and
// the reason (ccompiler has no softmax; the mark here was forced by hand).
// ERR: relay-external-codegen: codegen 'ccompiler' failed on region @tvmgen_default_ccompiler_main_0 (ops: relay.nn.relu, relay.nn.softmax): no C emitter for 'relay.nn.softmax'
func.func @forced(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relay.nn.relu %x {relay.target = "ccompiler", relay.region = 0 : i64} : tensor<2x3xf32>
  %s = relay.nn.softmax %r {axis = -1 : i64, relay.target = "ccompiler", relay.region = 0 : i64} : tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}
