// RUN: xtvm-opt %s -p relay-partition-graph | filecheck %s
// Partitioning again changes nothing:
// RUN: xtvm-opt %s -p relay-partition-graph,relay-partition-graph | filecheck %s
// The whole chain from marking on:
// RUN: xtvm-opt %s -p 'relay-merge-composite{targets=dnnl},relay-annotate-target{targets=dnnl},relay-merge-compiler-regions,relay-partition-graph' | filecheck %s --check-prefix=CHAIN

// A region of two ops with two results used outside: one function
// returning both, called where the region's last op was; the weight
// constant stays in the graph and is passed in. Marks are dropped inside.
// CHECK-LABEL: func.func @two_outputs
// CHECK-NEXT: %w = relay.const
// CHECK-NEXT: %c, %r = func.call @tvmgen_default_dnnl_main_0(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>)
// CHECK-NEXT: %s = relay.nn.softmax %c
// CHECK-NEXT: %t = relay.add %s, %r
// CHECK-LABEL: func.func private @tvmgen_default_dnnl_main_0(%p0: tensor<1x3x8x8xf32>, %p1: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) attributes {relay.compiler = "dnnl", relay.global_symbol = "tvmgen_default_dnnl_main_0"} {
// CHECK-NEXT: %c = relay.nn.conv2d %p0, %p1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT: %r = relay.nn.relu %c : tensor<1x4x6x6xf32>
// CHECK-NEXT: func.return %c, %r
func.func @two_outputs(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = relay.const dense<0.5> : tensor<4x3x3x3xf32>
  %c = relay.nn.conv2d %x, %w {relay.target = "dnnl", relay.region = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %s = relay.nn.softmax %c {axis = -1 : i64} : tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c {relay.target = "dnnl", relay.region = 0 : i64} : tensor<1x4x6x6xf32>
  %t = relay.add %s, %r : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %t : tensor<1x4x6x6xf32>
}

// An op marked but in no region is a region of its own; regions of two
// targets become two functions, numbered across the module.
// CHECK-LABEL: func.func @unmerged_and_two_targets
// CHECK-NEXT: %a = func.call @tvmgen_default_dnnl_main_1(%x)
// CHECK-NEXT: %b = func.call @tvmgen_default_ccompiler_main_2(%a)
// CHECK-NEXT: func.return %b
// CHECK-LABEL: func.func private @tvmgen_default_dnnl_main_1
// CHECK-SAME: relay.compiler = "dnnl"
// CHECK-LABEL: func.func private @tvmgen_default_ccompiler_main_2
// CHECK-SAME: relay.compiler = "ccompiler"
func.func @unmerged_and_two_targets(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {relay.target = "dnnl"} : tensor<4xf32>
  %b = relay.nn.relu %a {relay.target = "ccompiler"} : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// A composite call left outside every region (dnnl rejected it, or it was
// never marked) is inlined, and its function erased.
// CHECK-LABEL: func.func @unoffloaded_composite
// CHECK-NEXT: %c = relay.nn.conv2d %x, %w
// CHECK-NEXT: %r = relay.nn.relu %c
// CHECK-NEXT: func.return %r
// CHECK-NOT: @composite_dnnl_conv2d_relu
func.func @unoffloaded_composite(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %r = func.call @composite_dnnl_conv2d_relu(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}
func.func private @composite_dnnl_conv2d_relu(%p0: tensor<1x3x8x8xf32>, %p1: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> attributes {relay.composite = "dnnl.conv2d_relu"} {
  %c = relay.nn.conv2d %p0, %p1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %c : tensor<1x4x6x6xf32>
  func.return %r : tensor<1x4x6x6xf32>
}

// With the whole chain, a composite offloaded in a region stays a call
// inside the partitioned function; the region merged around it takes the
// pool after it; softmax stays with xtvm.
// CHAIN-LABEL: func.func @two_outputs
// CHAIN: func.call @tvmgen_default_dnnl_main_0(%x, %w)
// CHAIN-LABEL: func.func @unoffloaded_composite
// CHAIN-NEXT: %r = func.call @tvmgen_default_dnnl_main_{{[0-9]+}}(%x, %w)
// CHAIN-LABEL: func.func private @tvmgen_default_dnnl_main_{{[0-9]+}}
// CHAIN-NEXT: func.call @composite_dnnl_conv2d_relu(%p0, %p1)
