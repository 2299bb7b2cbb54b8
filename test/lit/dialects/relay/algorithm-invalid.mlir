// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid topk, cumsum or einsum; the verifier names the
// op and the problem.

func.func @topk_k(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'relay.topk' k = 5 must be in [0, 4] (the size of axis 1)}}
  %v, %i = relay.topk %x {k = 5 : i64} : (tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  func.return
}

// -----

func.func @topk_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'relay.topk' expects a tensor of rank >= 1, got a scalar}}
  %v, %i = relay.topk %x {k = 1 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  func.return
}

// -----

func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.cumsum' axis 2 is out of range for rank 2}}
  %y = relay.cumsum %x {axis = 2 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @einsum_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'relay.einsum' label 'j' has sizes 3 and 4 (operand shapes 2x3, 4x5)}}
  %y = relay.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @einsum_terms(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.einsum' equation 'ij,jk->ik' has 2 operand terms, but 1 operands are given}}
  %y = relay.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @einsum_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.einsum' term 'ijk' does not fit an operand of rank 2}}
  %y = relay.einsum %a {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @einsum_output(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.einsum' output label 'k' is not an operand label}}
  %y = relay.einsum %a {equation = "ij->k"} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}
