// RUN: xtvm-opt %s | filecheck %s
// RUN: xtvm-opt %s --print-op-generic | xtvm-opt | filecheck %s

// Resizes round-trip through their custom and generic forms.

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x3x2x3xf32>, %w: tensor<2x3x5xf32>, %v: tensor<1x1x2x3x4xf32>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.resize2d %{{.*}} {size = array<i64: 4, 6>} : (tensor<1x3x2x3xf32>) -> tensor<1x3x4x6xf32>
  %a = relay.image.resize2d %x {size = array<i64: 4, 6>} : (tensor<1x3x2x3xf32>) -> tensor<1x3x4x6xf32>
  // Given scales drive the coordinate mapping.
  // CHECK-NEXT: relay.image.resize2d %{{.*}} {size = array<i64: 1, 1>, scales = array<f64: 6.000000e-01, 6.000000e-01>, method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x2x3xf32>) -> tensor<1x3x1x1xf32>
  %b = relay.image.resize2d %x {size = array<i64: 1, 1>, scales = array<f64: 0.6, 0.6>, method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x2x3xf32>) -> tensor<1x3x1x1xf32>
  // CHECK-NEXT: relay.image.resize2d %{{.*}} {size = array<i64: 3, 3>, roi = array<f64: 4.000000e-01, 6.000000e-01, 6.000000e-01, 8.000000e-01>, method = "cubic", coordinate_transformation_mode = "tf_crop_and_resize", cubic_alpha = -5.000000e-01 : f64, cubic_exclude = true, extrapolation_value = 1.000000e+01 : f64} : (tensor<1x3x2x3xf32>) -> tensor<1x3x3x3xf32>
  %c = relay.image.resize2d %x {size = array<i64: 3, 3>, roi = array<f64: 0.4, 0.6, 0.6, 0.8>, method = "cubic", coordinate_transformation_mode = "tf_crop_and_resize", cubic_alpha = -0.5 : f64, cubic_exclude = true, extrapolation_value = 10.0 : f64} : (tensor<1x3x2x3xf32>) -> tensor<1x3x3x3xf32>
  // CHECK-NEXT: relay.image.resize2d %{{.*}} {size = array<i64: 4, 6>, layout = "NHWC", rounding_method = "floor"} : (tensor<1x3x2x3xf32>) -> tensor<1x4x6x3xf32>
  %d = relay.image.resize2d %x {size = array<i64: 4, 6>, layout = "NHWC", rounding_method = "floor"} : (tensor<1x3x2x3xf32>) -> tensor<1x4x6x3xf32>
  // CHECK-NEXT: relay.image.resize1d %{{.*}} {size = array<i64: 9>, coordinate_transformation_mode = "asymmetric"} : (tensor<2x3x5xf32>) -> tensor<2x3x9xf32>
  %e = relay.image.resize1d %w {size = array<i64: 9>, coordinate_transformation_mode = "asymmetric"} : (tensor<2x3x5xf32>) -> tensor<2x3x9xf32>
  // CHECK-NEXT: relay.image.resize3d %{{.*}} {size = array<i64: 4, 6, 8>, method = "linear"} : (tensor<1x1x2x3x4xf32>) -> tensor<1x1x4x6x8xf32>
  %f = relay.image.resize3d %v {size = array<i64: 4, 6, 8>, method = "linear"} : (tensor<1x1x2x3x4xf32>) -> tensor<1x1x4x6x8xf32>
  func.return %a : tensor<1x3x4x6xf32>
}
