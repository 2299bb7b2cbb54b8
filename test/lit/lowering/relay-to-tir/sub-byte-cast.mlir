// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | filecheck %s
// RUN: xtvm-opt %s -p 'convert-relay-to-tir{schedules=false}' | xtvm-opt | filecheck %s

// Casts to and from the sub-byte integers (docs/sub-byte-types.md): loads
// and stores of i4/ui2 elements (packed only when lowered to llvm), values
// widened or narrowed with arith. The kernels print and parse again.

// float32 → int4: truncated in int32; NaN and values outside [-8, 7] give
// 0 (as ml_dtypes and ONNX's Cast tests; the spec leaves them undefined).
// CHECK-LABEL: tir.prim_func @fused_cast(%p0: memref<5xf32>, %T_cast: memref<5xi4>)
// CHECK-DAG:     %[[LO:.*]] = arith.constant -8 : i32
// CHECK-DAG:     %[[HI:.*]] = arith.constant 7 : i32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[X:.*]] = tir.load %p0[%i0] : memref<5xf32>
// CHECK-NEXT:    %[[W:.*]] = arith.fptosi %[[X]] : f32 to i32
// CHECK-NEXT:    %[[GE:.*]] = arith.cmpi sge, %[[W]], %[[LO]] : i32
// CHECK-NEXT:    %[[LE:.*]] = arith.cmpi sle, %[[W]], %[[HI]] : i32
// CHECK-NEXT:    %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK-NEXT:    %[[K:.*]] = arith.select %[[IN]], %[[W]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[N:.*]] = arith.trunci %[[K]] : i32 to i4
// CHECK-NEXT:    tir.store %[[N]], %T_cast[%i0] : memref<5xi4>

// int4 → float32: a signed conversion of the 4-bit value.
// CHECK-LABEL: tir.prim_func @fused_cast_1(%p0: memref<5xi4>, %T_cast: memref<5xf32>)
// CHECK:         %[[Q:.*]] = tir.load %p0[%i0] : memref<5xi4>
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[Q]] : i4 to f32
// CHECK-NEXT:    tir.store %[[F]], %T_cast[%i0] : memref<5xf32>

// uint2 → uint8: zero-extended.
// CHECK-LABEL: tir.prim_func @fused_cast_2(%p0: memref<7xui2>, %T_cast: memref<7xui8>)
// CHECK:         %[[U:.*]] = tir.load %p0[%i0] : memref<7xui2>
// CHECK-NEXT:    %[[E:.*]] = arith.extui %[[U]] : ui2 to ui8
// CHECK-NEXT:    tir.store %[[E]], %T_cast[%i0] : memref<7xui8>
func.func @main(%x: tensor<5xf32>, %q: tensor<5xi4>, %u: tensor<7xui2>) -> (tensor<5xi4>, tensor<5xf32>, tensor<7xui8>) {
  %a = relay.cast %x {dtype = "int4"} : (tensor<5xf32>) -> tensor<5xi4>
  %b = relay.cast %q {dtype = "float32"} : (tensor<5xi4>) -> tensor<5xf32>
  %c = relay.cast %u {dtype = "uint8"} : (tensor<7xui2>) -> tensor<7xui8>
  func.return %a, %b, %c : tensor<5xi4>, tensor<5xf32>, tensor<7xui8>
}
