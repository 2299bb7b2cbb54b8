// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid reinterpret; the verifier names the op and the problem.

func.func @reinterpret_width(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.reinterpret' cannot read float32 (32 bits) as int64 (64 bits): the widths must be equal}}
  %y = relay.reinterpret %x {dtype = "int64"} : (tensor<3xf32>) -> tensor<3xi64>
  func.return
}
