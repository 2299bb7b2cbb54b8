// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' --verify-diagnostics

// Storage-only floats are converted, never computed on: an op that would do
// arithmetic on bfloat16 names itself and the type instead of a wrong answer.

func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{convert-relay-to-tir: cannot build kernel @fused_add: Add does not compute on bfloat16 (a storage-only type): cast to float32 first}}
  %e = relay.add %x, %x : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  func.return %e : tensor<4xbf16>
}
