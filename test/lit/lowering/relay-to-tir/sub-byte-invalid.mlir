// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' --verify-diagnostics

// Sub-byte integers are storage types (ONNX computes on them in a wider
// type): an op that would do arithmetic on int4 names itself and the type
// instead of wrapping modulo 16.

func.func @main(%x: tensor<5xi4>) -> tensor<5xi4> {
  // expected-error @+1 {{convert-relay-to-tir: cannot build kernel @fused_add: Add does not compute on int4 (a sub-byte storage type): cast to int8 or int32 first}}
  %e = relay.add %x, %x : (tensor<5xi4>, tensor<5xi4>) -> tensor<5xi4>
  func.return %e : tensor<5xi4>
}
