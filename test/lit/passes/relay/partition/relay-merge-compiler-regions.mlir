// RUN: xtvm-opt %s -p relay-merge-compiler-regions | filecheck %s
// Merging again changes nothing:
// RUN: xtvm-opt %s -p relay-merge-compiler-regions,relay-merge-compiler-regions | filecheck %s

// A chain of ops of one target is one region.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %a = relay.nn.relu %x {relay.target = "dnnl", relay.region = 0 : i64}
// CHECK-NEXT: %b = relay.nn.relu %a {relay.target = "dnnl", relay.region = 0 : i64}
// CHECK-NEXT: %c = relay.add %b, %x {relay.target = "dnnl", relay.region = 0 : i64}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {relay.target = "dnnl"} : tensor<4xf32>
  %b = relay.nn.relu %a {relay.target = "dnnl"} : tensor<4xf32>
  %c = relay.add %b, %x {relay.target = "dnnl"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// A cycle if merged: %c reads %a directly and through %s, which xtvm
// computes. One region {a, c} would have to run before %s (which reads %a)
// and after it (%c reads %s), so %c gets a region of its own.
// CHECK-LABEL: func.func @would_create_cycle
// CHECK-NEXT: %a = relay.nn.relu %x {relay.target = "dnnl", relay.region = 1 : i64}
// CHECK-NEXT: %s = relay.nn.softmax %a : tensor<4xf32>
// CHECK-NEXT: %c = relay.add %a, %s {relay.target = "dnnl", relay.region = 2 : i64}
func.func @would_create_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {relay.target = "dnnl"} : tensor<4xf32>
  %s = relay.nn.softmax %a {axis = -1 : i64} : tensor<4xf32>
  %c = relay.add %a, %s {relay.target = "dnnl"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// A diamond of one target merges whole, even though %d joins two regions:
// no path leaves the region and comes back.
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT: %a = relay.nn.relu %x {relay.target = "dnnl", relay.region = 3 : i64}
// CHECK-NEXT: %b = relay.nn.relu %a {relay.target = "dnnl", relay.region = 3 : i64}
// CHECK-NEXT: %c = relay.nn.relu %a {relay.target = "dnnl", relay.region = 3 : i64}
// CHECK-NEXT: %d = relay.add %b, %c {relay.target = "dnnl", relay.region = 3 : i64}
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {relay.target = "dnnl"} : tensor<4xf32>
  %b = relay.nn.relu %a {relay.target = "dnnl"} : tensor<4xf32>
  %c = relay.nn.relu %a {relay.target = "dnnl"} : tensor<4xf32>
  %d = relay.add %b, %c {relay.target = "dnnl"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// The join of two regions is refused when a path between them goes
// through xtvm: %e joins {a, d}, but not {b} too, as %d reads %b through %s.
// Regions of two targets never merge; an unmarked op gets no region.
// CHECK-LABEL: func.func @targets_and_paths
// CHECK-NEXT: %a = relay.nn.relu %x {relay.target = "dnnl", relay.region = 4 : i64}
// CHECK-NEXT: %b = relay.nn.relu %y {relay.target = "dnnl", relay.region = 5 : i64}
// CHECK-NEXT: %s = relay.nn.softmax %b : tensor<4xf32>
// CHECK-NEXT: %d = relay.add %a, %s {relay.target = "dnnl", relay.region = 4 : i64}
// CHECK-NEXT: %e = relay.add %d, %b {relay.target = "dnnl", relay.region = 4 : i64}
// CHECK-NEXT: %f = relay.nn.relu %e {relay.target = "ccompiler", relay.region = 6 : i64}
func.func @targets_and_paths(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {relay.target = "dnnl"} : tensor<4xf32>
  %b = relay.nn.relu %y {relay.target = "dnnl"} : tensor<4xf32>
  %s = relay.nn.softmax %b {axis = -1 : i64} : tensor<4xf32>
  %d = relay.add %a, %s {relay.target = "dnnl"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = relay.add %d, %b {relay.target = "dnnl"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = relay.nn.relu %e {relay.target = "ccompiler"} : tensor<4xf32>
  func.return %f : tensor<4xf32>
}
