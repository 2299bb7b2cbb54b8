// RUN: xtvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Each chunk holds one invalid elementwise, cast or reduction op; the verifier
// names the op and the problem.

func.func @exp_int(%x: tensor<4xi32>) {
  %y = relay.exp %x : tensor<4xi32>
  func.return
}
// CHECK: 'relay.exp' expects a floating-point tensor, got i32

// -----

func.func @sqrt_int(%x: tensor<4xi64>) {
  %y = relay.sqrt %x : tensor<4xi64>
  func.return
}
// CHECK: 'relay.sqrt' expects a floating-point tensor, got i64

// -----

func.func @maximum_broadcast(%x: tensor<4x3xf32>, %y: tensor<2xf32>) {
  %z = relay.maximum %x, %y : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  func.return
}
// CHECK: 'relay.maximum' cannot broadcast shapes 4x3 and 2

// -----

func.func @power_dtypes(%x: tensor<3xf32>, %y: tensor<3xi32>) {
  %z = relay.power %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  func.return
}
// CHECK: 'relay.power' operands must have one element type, got f32 and i32

// -----

func.func @clip_nan(%x: tensor<3xf32>) {
  %y = relay.clip %x {a_min = 0x7FF8000000000000 : f64, a_max = 1.0 : f64} : tensor<3xf32>
  func.return
}
// CHECK: 'relay.clip' bounds must not be NaN

// -----

func.func @cast_dtype(%x: tensor<3xf32>) {
  %y = relay.cast %x {dtype = "float8"} : (tensor<3xf32>) -> tensor<3xf32>
  func.return
}
// CHECK: 'relay.cast' has unsupported dtype 'float8'

// -----

func.func @cast_result(%x: tensor<3xf32>) {
  %y = relay.cast %x {dtype = "int32"} : (tensor<3xf32>) -> tensor<3xi64>
  func.return
}
// CHECK: 'relay.cast' result type tensor<3xi64> does not match the inferred type tensor<3xi32>

// -----

func.func @shape_of_dtype(%x: tensor<3xf32>) {
  %y = relay.shape_of %x {dtype = "float32"} : (tensor<3xf32>) -> tensor<1xf32>
  func.return
}
// CHECK: 'relay.shape_of' dtype must be int32 or int64, got 'float32'

// -----

func.func @sum_axis(%x: tensor<2x3xf32>) {
  %y = relay.sum %x {axis = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: 'relay.sum' axis 2 is out of range for rank 2

// -----

func.func @mean_repeat(%x: tensor<2x3xf32>) {
  %y = relay.mean %x {axis = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: 'relay.mean' axis [1, -1] repeats an axis

// -----

func.func @max_keepdims(%x: tensor<2x3xf32>) {
  %y = relay.max %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: 'relay.max' result type tensor<2xf32> does not match the inferred type tensor<2x1xf32>

// -----

func.func @sigmoid_int(%x: tensor<4xi8>) {
  %y = relay.sigmoid %x : tensor<4xi8>
  func.return
}
// CHECK: 'relay.sigmoid' expects a floating-point tensor, got i8

// -----

func.func @tanh_int(%x: tensor<4xi32>) {
  %y = relay.tanh %x : tensor<4xi32>
  func.return
}
// CHECK: 'relay.tanh' expects a floating-point tensor, got i32

// -----

func.func @log_int(%x: tensor<4xi32>) {
  %y = relay.log %x : tensor<4xi32>
  func.return
}
// CHECK: 'relay.log' expects a floating-point tensor, got i32

// -----

// negative and abs accept every element type; a result type that differs
// from the input's is the one thing they reject.
func.func @negative_result(%x: tensor<4xi32>) {
  %y = "relay.negative"(%x) : (tensor<4xi32>) -> tensor<4xi64>
  func.return
}
// CHECK: attribute tensor<4xi32> expected from variable 'T', but got tensor<4xi64>
// CHECK: "relay.negative"

// -----

func.func @abs_result(%x: tensor<4xf32>) {
  %y = "relay.abs"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return
}
// CHECK: attribute tensor<4xf32> expected from variable 'T', but got tensor<5xf32>
// CHECK: "relay.abs"

// -----

func.func @minimum_dtypes(%x: tensor<3xf32>, %y: tensor<3xf16>) {
  %z = relay.minimum %x, %y : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  func.return
}
// CHECK: 'relay.minimum' operands must have one element type, got f32 and f16

// -----

func.func @min_exclude(%x: tensor<2x3xf32>) {
  %y = relay.min %x {axis = array<i64: 0>, exclude = true} : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return
}
// CHECK: 'relay.min' result type tensor<3xf32> does not match the inferred type tensor<2xf32>
