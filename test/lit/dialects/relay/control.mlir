// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// relay.if, relay.while and their terminators print as they parse, in the
// custom form and through the generic form.

// CHECK-LABEL: func.func @select
// CHECK:         %[[R:.*]] = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
// CHECK-NEXT:      %[[A:.*]] = relay.add %x, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT:      relay.yield %[[A]] : tensor<5xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      relay.yield %x : tensor<5xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<5xf32>
func.func @select(%c: tensor<i1>, %x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {
  %r = relay.if %c : tensor<i1> -> (tensor<5xf32>) {
    %a = relay.add %x, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    relay.yield %a : tensor<5xf32>
  } else {
    relay.yield %x : tensor<5xf32>
  }
  func.return %r : tensor<5xf32>
}

// Branches of different sizes give a `?` size; a [1] condition is allowed.
// CHECK-LABEL: func.func @join
// CHECK:         relay.if %c : tensor<1xi1> -> (tensor<?xf32>, tensor<2xf32>) {
func.func @join(%c: tensor<1xi1>, %x: tensor<5xf32>, %y: tensor<3xf32>, %z: tensor<2xf32>) -> tensor<?xf32> {
  %r, %s = relay.if %c : tensor<1xi1> -> (tensor<?xf32>, tensor<2xf32>) {
    relay.yield %x, %z : tensor<5xf32>, tensor<2xf32>
  } else {
    relay.yield %y, %z : tensor<3xf32>, tensor<2xf32>
  }
  func.return %r : tensor<?xf32>
}

// A counting loop with a carried accumulator.
// CHECK-LABEL: func.func @power
// CHECK:         %{{.*}}, %[[ACC:.*]] = relay.while %zero, %x : (tensor<i64>, tensor<2xf32>) -> (tensor<i64>, tensor<2xf32>) cond {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: tensor<i64>, %{{.*}}: tensor<2xf32>):
// CHECK-NEXT:      %[[MORE:.*]] = relay.less %[[I]], %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT:      relay.condition %[[MORE]] : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[J:.*]]: tensor<i64>, %[[A:.*]]: tensor<2xf32>):
// CHECK:           relay.yield %{{.*}}, %{{.*}} : tensor<i64>, tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[ACC]] : tensor<2xf32>
func.func @power(%x: tensor<2xf32>, %n: tensor<i64>) -> tensor<2xf32> {
  %zero = relay.const dense<0> : tensor<i64>
  %one = relay.const dense<1> : tensor<i64>
  %i, %acc = relay.while %zero, %x : (tensor<i64>, tensor<2xf32>) -> (tensor<i64>, tensor<2xf32>) cond {
  ^bb0(%i0: tensor<i64>, %a0: tensor<2xf32>):
    %more = relay.less %i0, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    relay.condition %more : tensor<i1>
  } do {
  ^bb0(%i1: tensor<i64>, %a1: tensor<2xf32>):
    %next = relay.add %i1, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %a2 = relay.multiply %a1, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    relay.yield %next, %a2 : tensor<i64>, tensor<2xf32>
  }
  func.return %acc : tensor<2xf32>
}

// A loop without carried values, and an if without results.
// CHECK-LABEL: func.func @empty
// CHECK:         relay.while : () -> () cond {
// CHECK:         relay.if %c : tensor<i1> -> () {
// CHECK-NEXT:      relay.yield
// CHECK-NEXT:    } else {
func.func @empty(%c: tensor<i1>) {
  relay.while : () -> () cond {
    relay.condition %c : tensor<i1>
  } do {
    relay.yield
  }
  relay.if %c : tensor<i1> -> () {
    relay.yield
  } else {
    relay.yield
  }
  func.return
}

// A carried value may be less precise than its initial value (a tensor
// that grows: ?), and the body yields a more precise one.
// CHECK-LABEL: func.func @grow
// CHECK:         relay.while %x : (tensor<2xf32>) -> tensor<?xf32> cond {
func.func @grow(%x: tensor<2xf32>, %c: tensor<i1>) -> tensor<?xf32> {
  %r = relay.while %x : (tensor<2xf32>) -> (tensor<?xf32>) cond {
  ^bb0(%a: tensor<?xf32>):
    relay.condition %c : tensor<i1>
  } do {
  ^bb0(%b: tensor<?xf32>):
    %b1 = relay.concatenate %b, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    relay.yield %b1 : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}
