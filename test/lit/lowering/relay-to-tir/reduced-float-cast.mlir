// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s

// Casts to and from the storage-only floats (docs/element-types.md) are
// integer operations on their bits, between loads and stores of the element
// type itself: arith.bitcast makes the bits of a bf16/f8 value and back.

// bfloat16 → float32: the 16 bits, shifted into the high half of a float32.
// CHECK-LABEL: tir.prim_func @fused_cast(%p0: memref<4xbf16>, %T_cast: memref<4xf32>)
// CHECK:         %[[L:.*]] = tir.load %p0[%i0] : memref<4xbf16>
// CHECK-NEXT:    %[[B:.*]] = arith.bitcast %[[L]] : bf16 to ui16
// CHECK-NEXT:    %[[W:.*]] = arith.extui %[[B]] : ui16 to ui32
// CHECK-NEXT:    %[[S:.*]] = arith.shli %[[W]], %c16_ui32 : ui32
// CHECK-NEXT:    %[[F:.*]] = arith.bitcast %[[S]] : ui32 to f32
// CHECK-NEXT:    tir.store %[[F]], %T_cast[%i0] : memref<4xf32>

// float32 → float8_e5m2fnuz, saturating: clamp to ±57344 (NaN stays), then
// the float32 bits are rounded to nearest even; the 8 bits are the result.
// CHECK-LABEL: tir.prim_func @fused_cast_1(%p0: memref<4xf32>, %T_cast: memref<4xf8E5M2FNUZ>)
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 5.734400e+04 : f32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -5.734400e+04 : f32
// CHECK:         %[[X:.*]] = tir.load %p0[%i0] : memref<4xf32>
// CHECK-NEXT:    %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[MAX]] : f32
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[MIN]] : f32
// CHECK:         arith.bitcast %{{.*}} : f32 to ui32
// CHECK:         arith.shrui
// CHECK:         %[[T:.*]] = arith.trunci %{{.*}} : ui32 to ui8
// CHECK-NEXT:    %[[R:.*]] = arith.bitcast %[[T]] : ui8 to f8E5M2FNUZ
// CHECK-NEXT:    tir.store %[[R]], %T_cast[%i0] : memref<4xf8E5M2FNUZ>
func.func @main(%x: tensor<4xbf16>, %y: tensor<4xf32>) -> tensor<4xf8E5M2FNUZ> {
  %a = relay.cast %x {dtype = "float32"} : (tensor<4xbf16>) -> tensor<4xf32>
  %b = relay.cast %y {dtype = "float8_e5m2fnuz", saturate = true} : (tensor<4xf32>) -> tensor<4xf8E5M2FNUZ>
  func.return %b : tensor<4xf8E5M2FNUZ>
}
