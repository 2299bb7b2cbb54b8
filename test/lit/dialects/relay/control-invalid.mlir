// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid relay.if, relay.while or terminator; the
// verifier names the op and the problem.

func.func @if_condition_type(%c: tensor<2xi1>, %x: tensor<5xf32>) {
  // expected-error @+1 {{'relay.if' condition must be an i1 tensor of one element, got tensor<2xi1>}}
  %r = relay.if %c : tensor<2xi1> -> (tensor<5xf32>) {
    relay.yield %x : tensor<5xf32>
  } else {
    relay.yield %x : tensor<5xf32>
  }
  func.return
}

// -----

func.func @if_branch_types(%c: tensor<i1>, %x: tensor<5xf32>, %y: tensor<5xi32>) {
  // expected-error @+1 {{'relay.if' branch results #0 have incompatible types tensor<5xf32> and tensor<5xi32>}}
  %r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
    relay.yield %x : tensor<5xf32>
  } else {
    relay.yield %y : tensor<5xi32>
  }
  func.return
}

// -----

func.func @if_branch_counts(%c: tensor<i1>, %x: tensor<5xf32>) {
  // expected-error @+1 {{'relay.if' branches yield 1 and 2 values}}
  %r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
    relay.yield %x : tensor<5xf32>
  } else {
    relay.yield %x, %x : tensor<5xf32>, tensor<5xf32>
  }
  func.return
}

// -----

func.func @if_result_type(%c: tensor<i1>, %x: tensor<5xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'relay.if' result types (tensor<5xf32>) do not match the inferred types (tensor<?xf32>)}}
  %r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
    relay.yield %x : tensor<5xf32>
  } else {
    relay.yield %y : tensor<3xf32>
  }
  func.return
}

// -----

func.func @if_terminator(%c: tensor<i1>, %x: tensor<5xf32>) {
  %r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
    relay.yield %x : tensor<5xf32>
  } else {
    // expected-error @+1 {{Operation relay.add terminates block in single-block region but is not a terminator}}
    %a = relay.add %x, %x : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  }
  func.return
}

// -----

func.func @while_carried_types(%x: tensor<2xf32>, %c: tensor<i1>) {
  // expected-error @+1 {{'relay.while' the body yields (tensor<3xf32>), but the carried values have types (tensor<2xf32>), which a loop keeps}}
  %r = relay.while %x : (tensor<2xf32>) -> (tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    relay.condition %c : tensor<i1>
  } do {
  ^bb0(%b: tensor<2xf32>):
    %b1 = relay.concatenate %b, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    %b2 = relay.strided_slice %b1 {begin = array<i64: 0>, end = array<i64: 3>} : (tensor<4xf32>) -> tensor<3xf32>
    relay.yield %b2 : tensor<3xf32>
  }
  func.return
}

// -----

func.func @while_block_args(%x: tensor<2xf32>, %c: tensor<i1>) {
  // expected-error @+1 {{'relay.while' the cond region's arguments () must have the types of the carried values (tensor<2xf32>)}}
  %r = relay.while %x : (tensor<2xf32>) -> (tensor<2xf32>) cond {
    relay.condition %c : tensor<i1>
  } do {
  ^bb0(%b: tensor<2xf32>):
    relay.yield %b : tensor<2xf32>
  }
  func.return
}

// -----

func.func @while_cond_terminator(%x: tensor<2xf32>, %c: tensor<i1>) {
  // expected-error @+1 {{'relay.while' the cond region must end with 'relay.condition'}}
  %r = relay.while %x : (tensor<2xf32>) -> (tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    relay.yield %a : tensor<2xf32>
  } do {
  ^bb0(%b: tensor<2xf32>):
    relay.yield %b : tensor<2xf32>
  }
  func.return
}

// -----

func.func @condition_type(%x: tensor<2xf32>, %c: tensor<f32>) {
  %r = relay.while %x : (tensor<2xf32>) -> (tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{'relay.condition' condition must be an i1 tensor of one element, got tensor<f32>}}
    relay.condition %c : tensor<f32>
  } do {
  ^bb0(%b: tensor<2xf32>):
    relay.yield %b : tensor<2xf32>
  }
  func.return
}

// -----

func.func @yield_outside(%x: tensor<2xf32>) {
  // expected-error @+1 {{'relay.yield' must end a region of 'relay.if' or 'relay.while', not of 'func.func'}}
  relay.yield %x : tensor<2xf32>
}

// -----

func.func @while_inits(%x: tensor<3xf32>, %c: tensor<i1>) {
  // expected-error @+1 {{'relay.while' the initial values (tensor<3xf32>) do not fit the carried values (tensor<2xf32>)}}
  %r = relay.while %x : (tensor<3xf32>) -> (tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    relay.condition %c : tensor<i1>
  } do {
  ^bb0(%b: tensor<2xf32>):
    relay.yield %b : tensor<2xf32>
  }
  func.return
}
