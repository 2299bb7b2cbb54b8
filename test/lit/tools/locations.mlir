// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: xtvm-opt - < %s | filecheck %s
// RUN: cat %s | xtvm-opt | filecheck %s

// Parsed ops carry file:line:col (of the op's first token); it prints only
// with --print-debuginfo. '-' or no file reads standard input.

// CHECK: func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %y = relay.nn.relu %x : tensor<2xf32>{{$}}
// LOC: %y = relay.nn.relu %x : tensor<2xf32> loc("{{.*}}":[[# @LINE + 3]]:3)
// LOC: func.return %y : tensor<2xf32> loc("{{.*}}":[[# @LINE + 3]]:3)
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
