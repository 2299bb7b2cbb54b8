// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// The storage-only floats (docs/element-types.md) are builtin element types:
// bf16 and the float8 family in tensors, constants and relay.cast, whose
// saturate and round_mode properties round-trip (defaults are not printed).

// CHECK-LABEL: func.func @element_types
func.func @element_types(%b: tensor<2xbf16>, %e: tensor<2xf8E4M3FN>, %u: tensor<2xf8E4M3FNUZ>,
                         %m: tensor<2xf8E5M2>, %n: tensor<2xf8E5M2FNUZ>, %s: tensor<2xf8E8M0FNU>)
    -> tensor<2xbf16> {
  // CHECK: relay.const dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>
  %c = relay.const dense<[1.5, -2.0]> : tensor<2xbf16>
  // CHECK-NEXT: relay.const dense<[4.480000e+02, 1.562500e-02]> : tensor<2xf8E4M3FN>
  %d = relay.const dense<[448.0, 0.015625]> : tensor<2xf8E4M3FN>
  func.return %c : tensor<2xbf16>
}

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.cast %{{.*}} {dtype = "bfloat16"} : (tensor<4xf32>) -> tensor<4xbf16>
  %a = relay.cast %x {dtype = "bfloat16"} : (tensor<4xf32>) -> tensor<4xbf16>
  // CHECK-NEXT: relay.cast %{{.*}} {dtype = "float8_e4m3fn", saturate = true} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %b = relay.cast %x {dtype = "float8_e4m3fn", saturate = true} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  // CHECK-NEXT: relay.cast %{{.*}} {dtype = "float8_e5m2fnuz"} : (tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2FNUZ>
  %c = relay.cast %b {dtype = "float8_e5m2fnuz", saturate = false} : (tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2FNUZ>
  // CHECK-NEXT: relay.cast %{{.*}} {dtype = "float8_e8m0fnu", round_mode = "nearest"} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  %d = relay.cast %x {dtype = "float8_e8m0fnu", round_mode = "nearest"} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  // CHECK-NEXT: relay.cast %{{.*}} {dtype = "float32"} : (tensor<4xbf16>) -> tensor<4xf32>
  %e = relay.cast %a {dtype = "float32"} : (tensor<4xbf16>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}
