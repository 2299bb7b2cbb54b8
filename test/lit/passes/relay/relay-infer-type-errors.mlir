// RUN: xtvm-opt %s -p relay-infer-type --split-input-file --verify-diagnostics

// A public function's parameters are never refined: a call that now passes a
// more precise type is reported.
func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  // expected-error @+1 {{relay-infer-type: @public_callee takes (tensor<?xf32>) but a call passes the refined types (tensor<4xf32>)}}
  %b = func.call @public_callee(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %b : tensor<?xf32>
}
func.func @public_callee(%y: tensor<?xf32>) -> tensor<?xf32> {
  func.return %y : tensor<?xf32>
}

// -----

// Refining a private function's parameter can break a type rule in its body.
func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %b = func.call @callee(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %b : tensor<?xf32>
}
func.func private @callee(%y: tensor<?xf32>) -> tensor<?xf32> {
  %c = relay.const dense<1.0> : tensor<3xf32>
  // expected-error @+1 {{relay-infer-type: 'relay.add' cannot broadcast shapes 4 and 3}}
  %s = relay.add %y, %c : (tensor<?xf32>, tensor<3xf32>) -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}
