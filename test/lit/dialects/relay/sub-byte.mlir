// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// The sub-byte element types (docs/sub-byte-types.md) are builtin types:
// i4, ui4, i2, ui2 and f4E2M1FN in tensors, constants (one value an
// element in the IR, packed only in buffers) and relay.cast; relay.cast's
// type rule gives the narrow result type from the dtype name.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<4xi4>, tensor<2xui4>, tensor<3xi2>, tensor<2xui2>, tensor<3xf4E2M1FN>) {
  // CHECK-NEXT: relay.const dense<[1, -2, 7, -8]> : tensor<4xi4>
  %a = relay.const dense<[1, -2, 7, -8]> : tensor<4xi4>
  // CHECK-NEXT: relay.const dense<[0, 15]> : tensor<2xui4>
  %b = relay.const dense<[0, 15]> : tensor<2xui4>
  // CHECK-NEXT: relay.const dense<[-2, 0, 1]> : tensor<3xi2>
  %c = relay.const dense<[-2, 0, 1]> : tensor<3xi2>
  // CHECK-NEXT: relay.const dense<[3, 1]> : tensor<2xui2>
  %d = relay.const dense<[3, 1]> : tensor<2xui2>
  // CHECK-NEXT: relay.const dense<[5.000000e-01, -6.000000e+00, 1.500000e+00]> : tensor<3xf4E2M1FN>
  %e = relay.const dense<[0.5, -6.0, 1.5]> : tensor<3xf4E2M1FN>
  func.return %a, %b, %c, %d, %e : tensor<4xi4>, tensor<2xui4>, tensor<3xi2>, tensor<2xui2>, tensor<3xf4E2M1FN>
}

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<4xf32>) -> (tensor<4xi4>, tensor<4xui2>, tensor<4xf4E2M1FN>) {
  // CHECK: relay.cast %x {dtype = "int4"} : (tensor<4xf32>) -> tensor<4xi4>
  %a = relay.cast %x {dtype = "int4"} : (tensor<4xf32>) -> tensor<4xi4>
  // CHECK: relay.cast %x {dtype = "uint2"} : (tensor<4xf32>) -> tensor<4xui2>
  %b = relay.cast %x {dtype = "uint2"} : (tensor<4xf32>) -> tensor<4xui2>
  // CHECK: relay.cast %x {dtype = "float4_e2m1fn"} : (tensor<4xf32>) -> tensor<4xf4E2M1FN>
  %c = relay.cast %x {dtype = "float4_e2m1fn"} : (tensor<4xf32>) -> tensor<4xf4E2M1FN>
  func.return %a, %b, %c : tensor<4xi4>, tensor<4xui2>, tensor<4xf4E2M1FN>
}
