// RUN: xtvm-opt %s -p relay-infer-type | filecheck %s

// `?` dimensions are refined in program order, through every use, up to the
// function's result type.
// CHECK-LABEL: func.func @refine_dynamic(%x: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32>
func.func @refine_dynamic(%x: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<?x?xf32> {
  // CHECK-NEXT: %a = relay.add %x, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %a = relay.add %x, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK-NEXT: %m = relay.multiply %a, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = relay.multiply %a, %a : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: %r = relay.nn.relu %m : tensor<4x3xf32>
  %r = relay.nn.relu %m : tensor<?x?xf32>
  // CHECK-NEXT: func.return %r : tensor<4x3xf32>
  func.return %r : tensor<?x?xf32>
}

// An unranked result becomes ranked.
// CHECK-LABEL: func.func @unranked(%x: tensor<2x5xf32>) -> tensor<2x5xf32>
func.func @unranked(%x: tensor<2x5xf32>) -> tensor<*xf32> {
  // CHECK-NEXT: %s = relay.subtract %x, %x : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %s = relay.subtract %x, %x : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<*xf32>
  // CHECK-NEXT: func.return %s : tensor<2x5xf32>
  func.return %s : tensor<*xf32>
}

// Shape ops and nn ops refine through each other; already precise types stay.
// CHECK-LABEL: func.func @nn_and_shapes
// CHECK-SAME: -> tensor<6x4xf32>
func.func @nn_and_shapes(%x: tensor<2x3x8xf32>, %w: tensor<4x8xf32>) -> tensor<?x4xf32> {
  // CHECK-NEXT: relay.reshape %x {newshape = array<i64: -1, 8>} : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  %r = relay.reshape %x {newshape = array<i64: -1, 8>} : (tensor<2x3x8xf32>) -> tensor<?x8xf32>
  // CHECK-NEXT: relay.nn.dense %{{.*}}, %w : (tensor<6x8xf32>, tensor<4x8xf32>) -> tensor<6x4xf32>
  %d = relay.nn.dense %r, %w : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  // CHECK-NEXT: relay.transpose %{{.*}} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %t = relay.transpose %d : (tensor<?x4xf32>) -> tensor<4x?xf32>
  // CHECK-NEXT: func.return %d : tensor<6x4xf32>
  func.return %d : tensor<?x4xf32>
}

// Tuple types follow their fields.
// CHECK-LABEL: func.func @tuples
// CHECK-SAME: -> tensor<3xf32>
func.func @tuples(%x: tensor<3xf32>) -> tensor<?xf32> {
  %a = relay.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<?xf32>
  // CHECK: relay.tuple %a, %x : (tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>
  %t = relay.tuple %a, %x : (tensor<?xf32>, tensor<3xf32>) -> tuple<tensor<?xf32>, tensor<3xf32>>
  // CHECK-NEXT: relay.tuple_get %t {index = 0 : i64} : (tuple<tensor<3xf32>, tensor<3xf32>>) -> tensor<3xf32>
  %g = relay.tuple_get %t {index = 0 : i64} : (tuple<tensor<?xf32>, tensor<3xf32>>) -> tensor<?xf32>
  func.return %g : tensor<?xf32>
}

// A private function takes the argument types its call sites agree on; its
// refined result type flows back to the caller.
// CHECK-LABEL: func.func @caller
// CHECK-SAME: -> tensor<5xf32>
func.func @caller(%x: tensor<5xf32>) -> tensor<?xf32> {
  %a = relay.add %x, %x : (tensor<5xf32>, tensor<5xf32>) -> tensor<?xf32>
  // CHECK: func.call @callee(%a) : (tensor<5xf32>) -> tensor<5xf32>
  %b = func.call @callee(%a) : (tensor<?xf32>) -> tensor<?xf32>
  // CHECK-NEXT: relay.nn.relu %b : tensor<5xf32>
  %c = relay.nn.relu %b : tensor<?xf32>
  func.return %c : tensor<?xf32>
}
// CHECK-LABEL: func.func private @callee(%y: tensor<5xf32>) -> tensor<5xf32>
func.func private @callee(%y: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK-NEXT: relay.multiply %y, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %m = relay.multiply %y, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %m : tensor<?xf32>
}
