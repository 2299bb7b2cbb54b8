// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Layout and data-movement ops round-trip through their custom and generic forms.

// CHECK-LABEL: func.func @broadcast_tile
func.func @broadcast_tile(%x: tensor<3x1xf32>, %e: tensor<0x3xf32>) -> tensor<2x3x4xf32> {
  // CHECK: relay.broadcast_to %{{.*}} {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %a = relay.broadcast_to %x {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: relay.tile %{{.*}} {reps = array<i64: 2, 3>} : (tensor<3x1xf32>) -> tensor<6x3xf32>
  %b = relay.tile %x {reps = array<i64: 2, 3>} : (tensor<3x1xf32>) -> tensor<6x3xf32>
  // A longer reps prepends axes.
  // CHECK-NEXT: relay.tile %{{.*}} {reps = array<i64: 2, 1, 1>} : (tensor<3x1xf32>) -> tensor<2x3x1xf32>
  %c = relay.tile %x {reps = array<i64: 2, 1, 1>} : (tensor<3x1xf32>) -> tensor<2x3x1xf32>
  // With allowzero, a 0 is a zero-size axis.
  // CHECK-NEXT: relay.reshape %{{.*}} {newshape = array<i64: 3, 0>, allowzero = true} : (tensor<0x3xf32>) -> tensor<3x0xf32>
  %d = relay.reshape %e {newshape = array<i64: 3, 0>, allowzero = true} : (tensor<0x3xf32>) -> tensor<3x0xf32>
  func.return %a : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @pads
func.func @pads(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x6xf32> {
  // CHECK: relay.nn.pad %{{.*}}, %{{.*}} {pad_width = array<i64: 0, 0, 1, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x6xf32>
  %a = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 1, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x6xf32>
  // Negative widths crop.
  // CHECK-NEXT: relay.nn.pad %{{.*}}, %{{.*}} {pad_width = array<i64: -1, 0, 2, -1>, pad_mode = "reflect"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x4xf32>
  %b = relay.nn.pad %x, %v {pad_width = array<i64: -1, 0, 2, -1>, pad_mode = "reflect"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x4xf32>
  // CHECK-NEXT: relay.nn.pad %{{.*}}, %{{.*}} {pad_width = array<i64: 4, 4, 0, 0>, pad_mode = "wrap"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<10x3xf32>
  %c = relay.nn.pad %x, %v {pad_width = array<i64: 4, 4, 0, 0>, pad_mode = "wrap"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<10x3xf32>
  func.return %a : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @blocks_sequences
func.func @blocks_sequences(%x: tensor<1x8x2x3xf32>, %s: tensor<4x3xi32>, %l: tensor<3xi64>) -> tensor<1x2x4x6xf32> {
  // CHECK: relay.nn.depth_to_space %{{.*}} {block_size = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %a = relay.nn.depth_to_space %x {block_size = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  // CHECK-NEXT: relay.nn.space_to_depth %{{.*}} {block_size = 2 : i64, mode = "CRD"} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %b = relay.nn.space_to_depth %a {block_size = 2 : i64, mode = "CRD"} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  // CHECK-NEXT: relay.reverse_sequence %{{.*}}, %{{.*}} {seq_axis = 0 : i64, batch_axis = 1 : i64} : (tensor<4x3xi32>, tensor<3xi64>) -> tensor<4x3xi32>
  %c = relay.reverse_sequence %s, %l {seq_axis = 0 : i64, batch_axis = 1 : i64} : (tensor<4x3xi32>, tensor<3xi64>) -> tensor<4x3xi32>
  func.return %a : tensor<1x2x4x6xf32>
}
