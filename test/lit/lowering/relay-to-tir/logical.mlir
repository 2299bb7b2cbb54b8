// RUN: xtvm-opt %s -p convert-relay-to-tir | filecheck %s
// Comparisons, where, shifts, remainders and unsigned tensors lowered to
// kernels: branch-free selects, unsigned buffers and libm's fmod.

// where reads both values (in bounds) and selects without branching.
// CHECK-LABEL: tir.prim_func @fused_where(%p0: memref<4xi1>, %p1: memref<4xf32>, %p2: memref<4xf32>, %T_where: memref<4xf32>)
// CHECK:         %[[C:.*]] = tir.load %p0[%i0] : memref<4xi1>
// CHECK-NEXT:    %[[X:.*]] = tir.load %p1[%i0] : memref<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tir.load %p2[%i0] : memref<4xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : f32
// CHECK-NEXT:    tir.store %[[R]], %T_where[%i0] : memref<4xf32>
// CHECK-NOT:     tir.if

// Unsigned buffers keep their type; an unsigned constant is a bitcast of a
// signless one; the remainder is unsigned, its divisor guarded against 0.
// CHECK-LABEL: tir.prim_func @fused_trunc_mod(%p0: memref<4xui8>, %p1: memref<4xui8>, %T_trunc_mod: memref<4xui8>)
// CHECK:         %[[Z8:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[ZERO:.*]] = arith.bitcast %[[Z8]] : i8 to ui8
// CHECK:         %[[D:.*]] = tir.load %p1[%i0] : memref<4xui8>
// CHECK-NEXT:    %[[IS0:.*]] = arith.cmpi eq, %[[D]], %[[ZERO]] : ui8
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[IS0]], %{{.*}}, %[[D]] : ui8
// CHECK-NEXT:    arith.remui %{{.*}}, %[[SAFE]] : ui8

// A shift amount out of [0, 16) (one unsigned comparison) gives 0; the shift
// itself runs on a clamped amount.
// CHECK-LABEL: tir.prim_func @fused_left_shift(%p0: memref<4xi16>, %p1: memref<4xi16>, %T_left_shift: memref<4xi16>)
// CHECK:         %[[B:.*]] = tir.load %p1[%i0] : memref<4xi16>
// CHECK-NEXT:    %[[U:.*]] = arith.bitcast %[[B]] : i16 to ui16
// CHECK-NEXT:    %[[OUT:.*]] = arith.cmpi uge, %[[U]], %c16_ui16 : ui16
// CHECK-NEXT:    %[[A:.*]] = tir.load %p0[%i0] : memref<4xi16>
// CHECK-NEXT:    %[[AMT:.*]] = arith.select %[[OUT]], %c0_i16, %[[B]] : i16
// CHECK-NEXT:    %[[S:.*]] = arith.shli %[[A]], %[[AMT]] : i16
// CHECK-NEXT:    arith.select %[[OUT]], %c0_i16, %[[S]] : i16

// NumPy's mod on floats: fmod, moved into the divisor's sign.
// CHECK-LABEL: tir.prim_func @fused_floor_mod(%p0: memref<4xf64>, %p1: memref<4xf64>, %T_floor_mod: memref<4xf64>)
// CHECK:         %[[R:.*]] = tir.call_extern "fmod"(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
// CHECK:         math.copysign %cst, %{{.*}} : f64

// A comparison gives a bool buffer.
// CHECK-LABEL: tir.prim_func @fused_less(%p0: memref<4xui8>, %p1: memref<4xui8>, %T_less: memref<4xi1>)
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : ui8

// CHECK-LABEL: func.func @main
func.func @main(%c: tensor<4xi1>, %x: tensor<4xf32>, %u: tensor<4xui8>, %s: tensor<4xi16>, %f: tensor<4xf64>) -> tensor<4xf32> {
  %0 = relay.where %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.trunc_mod %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = relay.left_shift %s, %s : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  %3 = relay.floor_mod %f, %f : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %4 = relay.less %u, %1 : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  func.return %0 : tensor<4xf32>
}
