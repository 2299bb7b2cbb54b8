// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// arange, one_hot and trilu round-trip through their custom and generic forms.

// CHECK-LABEL: func.func @creation
func.func @creation(%i: tensor<2x3xi64>, %on: tensor<f32>, %off: tensor<f32>, %x: tensor<2x4x5xf32>) -> tensor<3xi64> {
  // CHECK: relay.arange {start = 1.000000e+00 : f64, stop = 7.000000e+00 : f64, step = 2.000000e+00 : f64, dtype = "int64"} : tensor<3xi64>
  %a = relay.arange {start = 1.0 : f64, stop = 7.0 : f64, step = 2.0 : f64, dtype = "int64"} : tensor<3xi64>
  // A negative step counts down; an empty range has no element.
  // CHECK-NEXT: relay.arange {start = 5.000000e-01 : f64, stop = -1.000000e+00 : f64, step = -5.000000e-01 : f64, dtype = "float32"} : tensor<3xf32>
  %b = relay.arange {start = 0.5 : f64, stop = -1.0 : f64, step = -0.5 : f64, dtype = "float32"} : tensor<3xf32>
  // CHECK-NEXT: relay.arange {start = 3.000000e+00 : f64, stop = 1.000000e+00 : f64, step = 1.000000e+00 : f64, dtype = "int32"} : tensor<0xi32>
  %c = relay.arange {start = 3.0 : f64, stop = 1.0 : f64, step = 1.0 : f64, dtype = "int32"} : tensor<0xi32>
  // CHECK-NEXT: relay.one_hot %{{.*}}, %{{.*}}, %{{.*}} {depth = 5 : i64} : (tensor<2x3xi64>, tensor<f32>, tensor<f32>) -> tensor<2x3x5xf32>
  %d = relay.one_hot %i, %on, %off {depth = 5 : i64} : (tensor<2x3xi64>, tensor<f32>, tensor<f32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: relay.one_hot %{{.*}}, %{{.*}}, %{{.*}} {depth = 4 : i64, axis = 0 : i64} : (tensor<2x3xi64>, tensor<f32>, tensor<f32>) -> tensor<4x2x3xf32>
  %e = relay.one_hot %i, %on, %off {depth = 4 : i64, axis = 0 : i64} : (tensor<2x3xi64>, tensor<f32>, tensor<f32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: relay.trilu %{{.*}} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %f = relay.trilu %x : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  // CHECK-NEXT: relay.trilu %{{.*}} {upper = false, k = -1 : i64} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %g = relay.trilu %x {upper = false, k = -1 : i64} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  func.return %a : tensor<3xi64>
}
