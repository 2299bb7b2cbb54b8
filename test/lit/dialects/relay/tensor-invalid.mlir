// RUN: xtvm-opt %s --split-input-file --verify-diagnostics

// Each chunk holds one invalid elementwise, cast or reduction op; the verifier
// names the op and the problem.

func.func @exp_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'relay.exp' expects a floating-point tensor, got i32}}
  %y = relay.exp %x : tensor<4xi32>
  func.return
}

// -----

func.func @sqrt_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{'relay.sqrt' expects a floating-point tensor, got i64}}
  %y = relay.sqrt %x : tensor<4xi64>
  func.return
}

// -----

func.func @maximum_broadcast(%x: tensor<4x3xf32>, %y: tensor<2xf32>) {
  // expected-error @+1 {{'relay.maximum' cannot broadcast shapes 4x3 and 2}}
  %z = relay.maximum %x, %y : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @power_dtypes(%x: tensor<3xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{'relay.power' operands must have one element type, got f32 and i32}}
  %z = relay.power %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @clip_nan(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.clip' bounds must not be NaN}}
  %y = relay.clip %x {a_min = 0x7FF8000000000000 : f64, a_max = 1.0 : f64} : tensor<3xf32>
  func.return
}

// -----

func.func @cast_dtype(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.cast' has unsupported dtype 'float8'}}
  %y = relay.cast %x {dtype = "float8"} : (tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @cast_result(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.cast' result type tensor<3xi64> does not match the inferred type tensor<3xi32>}}
  %y = relay.cast %x {dtype = "int32"} : (tensor<3xf32>) -> tensor<3xi64>
  func.return
}

// -----

func.func @shape_of_dtype(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relay.shape_of' dtype must be int32 or int64, got 'float32'}}
  %y = relay.shape_of %x {dtype = "float32"} : (tensor<3xf32>) -> tensor<1xf32>
  func.return
}

// -----

func.func @sum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.sum' axis 2 is out of range for rank 2}}
  %y = relay.sum %x {axis = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @mean_repeat(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.mean' axis [1, -1] repeats an axis}}
  %y = relay.mean %x {axis = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @max_keepdims(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.max' result type tensor<2xf32> does not match the inferred type tensor<2x1xf32>}}
  %y = relay.max %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @sigmoid_int(%x: tensor<4xi8>) {
  // expected-error @+1 {{'relay.sigmoid' expects a floating-point tensor, got i8}}
  %y = relay.sigmoid %x : tensor<4xi8>
  func.return
}

// -----

func.func @tanh_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'relay.tanh' expects a floating-point tensor, got i32}}
  %y = relay.tanh %x : tensor<4xi32>
  func.return
}

// -----

func.func @log_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'relay.log' expects a floating-point tensor, got i32}}
  %y = relay.log %x : tensor<4xi32>
  func.return
}

// -----

// negative and abs accept every element type; a result type that differs
// from the input's is the one thing they reject.
func.func @negative_result(%x: tensor<4xi32>) {
  // expected-error @+1 {{attribute tensor<4xi32> expected from variable 'T', but got tensor<4xi64>}}
  %y = "relay.negative"(%x) : (tensor<4xi32>) -> tensor<4xi64>
  func.return
}

// -----

func.func @abs_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute tensor<4xf32> expected from variable 'T', but got tensor<5xf32>}}
  %y = "relay.abs"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @minimum_dtypes(%x: tensor<3xf32>, %y: tensor<3xf16>) {
  // expected-error @+1 {{'relay.minimum' operands must have one element type, got f32 and f16}}
  %z = relay.minimum %x, %y : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  func.return
}

// -----

func.func @min_exclude(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'relay.min' result type tensor<3xf32> does not match the inferred type tensor<2xf32>}}
  %y = relay.min %x {axis = array<i64: 0>, exclude = true} : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return
}
