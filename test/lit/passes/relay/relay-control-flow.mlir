// RUN: xtvm-opt %s -p relay-infer-type | filecheck %s --check-prefix=INFER
// RUN: xtvm-opt %s -p relay-fold-constant,relay-dead-code-elimination | filecheck %s --check-prefix=FOLD

// Relay passes see through the regions of relay.if / relay.while.

// relay-infer-type refines the ops inside a branch, then the if's result
// (the branches' joined types) and what uses it.
// INFER-LABEL: func.func @refine(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32>
// INFER:         %r = relay.if %c : tensor<i1> -> (tensor<4xf32>) {
// INFER-NEXT:      %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// INFER:         %e = relay.exp %r : tensor<4xf32>
// INFER-NEXT:    func.return %e : tensor<4xf32>

// relay-fold-constant folds inside a branch; relay-dead-code-elimination
// drops the branch's unused ops.
// FOLD-LABEL: func.func @fold
// FOLD:         relay.if %c : tensor<i1> -> (tensor<4xf32>) {
// FOLD-NEXT:      %two = relay.const dense<2.000000e+00> : tensor<4xf32>
// FOLD-NEXT:      %a = relay.multiply %x, %two
// FOLD-NEXT:      relay.yield %a : tensor<4xf32>
func.func @refine(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<?xf32> {
  %r = relay.if %c : tensor<i1> -> (tensor<?xf32>) {
    %a = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
    relay.yield %a : tensor<?xf32>
  } else {
    relay.yield %x : tensor<4xf32>
  }
  %e = relay.exp %r : tensor<?xf32>
  func.return %e : tensor<?xf32>
}
func.func @fold(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = relay.if %c : tensor<i1> -> (tensor<4xf32>) {
    %one = relay.const dense<1.0> : tensor<4xf32>
    %two = relay.add %one, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %dead = relay.exp %x : tensor<4xf32>
    %a = relay.multiply %x, %two : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    relay.yield %a : tensor<4xf32>
  } else {
    relay.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
