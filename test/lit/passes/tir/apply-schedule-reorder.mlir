// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// Interchange: j becomes the outer loop; the body is unchanged.
// CHECK-LABEL: tir.prim_func @interchange(
// CHECK:         tir.for %j = %c0 to %c8 kind "serial" {
// CHECK-NEXT:      tir.for %i = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %v = tir.load %A[%i, %j] : memref<4x8xf32>
// CHECK-NEXT:        tir.store %v, %B[%j, %i] : memref<8x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tir.prim_func @interchange(%A: memref<4x8xf32>, %B: memref<8x4xf32>) attributes {schedule = ["reorder B.j B.i"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%j, %i] : memref<8x4xf32>
    }
  }
  tir.return
}

// Only the named loops move (i.0 and j swap places, i.1 stays in the
// middle); the split's index arithmetic and guard follow their operands:
// both need i.0, now the innermost loop.
// CHECK-LABEL: tir.prim_func @guard_moves(
// CHECK:         tir.for %j = %c0 to %c8 kind "serial" {
// CHECK-NEXT:      tir.for %i.1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        tir.for %i.0 = %c0 to %c3 kind "serial" {
// CHECK-NEXT:          %[[O:.*]] = arith.muli %i.0, %c4 : index
// CHECK-NEXT:          %i = arith.addi %[[O]], %i.1 : index
// CHECK-NEXT:          %[[IN:.*]] = arith.cmpi slt, %i, %c10 : index
// CHECK-NEXT:          tir.if %[[IN]] {
// CHECK-NEXT:            %v = tir.load %A[%i, %j] : memref<10x8xf32>
// CHECK-NEXT:            tir.store %v, %B[%i, %j] : memref<10x8xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tir.prim_func @guard_moves(%A: memref<10x8xf32>, %B: memref<10x8xf32>) attributes {schedule = ["split B.i [None, 4]", "reorder B.j B.i.0"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  tir.for %i = %c0 to %c10 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<10x8xf32>
      tir.store %v, %B[%i, %j] : memref<10x8xf32>
    }
  }
  tir.return
}

// Reduction loops of an accumulator reorder like any other nest; a loop
// keeps its kind when it moves.
// CHECK-LABEL: tir.prim_func @reduction(
// CHECK:         tir.for %ry = %c0 to %c3 kind "unrolled" {
// CHECK-NEXT:      tir.for %rx = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %a = tir.load %S_acc[%c0] : memref<1xf32>
tir.prim_func @reduction(%X: memref<3x3xf32>, %S: memref<1xf32>) attributes {schedule = ["unroll S_acc.ry", "reorder S_acc.ry S_acc.rx"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %S_acc = tir.allocate "local" : memref<1xf32>
  tir.store %zero, %S_acc[%c0] : memref<1xf32>
  tir.for %rx = %c0 to %c3 kind "serial" {
    tir.for %ry = %c0 to %c3 kind "serial" {
      %a = tir.load %S_acc[%c0] : memref<1xf32>
      %x = tir.load %X[%ry, %rx] : memref<3x3xf32>
      %s = arith.addf %a, %x : f32
      tir.store %s, %S_acc[%c0] : memref<1xf32>
    }
  }
  %r = tir.load %S_acc[%c0] : memref<1xf32>
  tir.store %r, %S[%c0] : memref<1xf32>
  tir.return
}
