// RUN: xtvm-opt %s -p tir-apply-schedule | filecheck %s

// Dense + relu as te.create_prim_func emits it (the reduction D attached to
// the relu's loop nest), tiled 2x4 and register-blocked at j.0: inside j.0 a
// 2x4 accumulator, its init nest, the reduction loop k with i.1, j.1
// innermost, and the write-back nest that applies the relu. The copies keep
// the kind set before (i.1 unrolled); the update's and write-back's j.1 are
// vectorized afterwards.
// CHECK-LABEL: tir.prim_func @dense_relu(
// CHECK:         tir.for %i.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      %[[I0:.*]] = arith.muli %i.0, %c2 : index
// CHECK-NEXT:      tir.for %j.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:        %D_acc = tir.allocate "local" : memref<2x4xf32>
// CHECK-NEXT:        tir.for %i.1_init = %c0 to %c2 kind "unrolled" {
// CHECK-NEXT:          tir.for %j.1_init = %c0 to %c4 kind "serial" {
// CHECK-NEXT:            tir.store %cst, %D_acc[%i.1_init, %j.1_init] : memref<2x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        tir.for %k = %c0 to %c16 kind "serial" {
// CHECK-NEXT:          %[[J0:.*]] = arith.muli %j.0, %c4 : index
// CHECK-NEXT:          tir.for %i.1 = %c0 to %c2 kind "unrolled" {
// CHECK-NEXT:            %i = arith.addi %[[I0]], %i.1 : index
// CHECK-NEXT:            tir.for %j.1 = %c0 to %c4 kind "vectorized" {
// CHECK-NEXT:              %j = arith.addi %[[J0]], %j.1 : index
// CHECK-NEXT:              %[[ACC:.*]] = tir.load %D_acc[%i.1, %j.1] : memref<2x4xf32>
// CHECK-NEXT:              %[[A:.*]] = tir.load %A[%i, %k] : memref<4x16xf32>
// CHECK-NEXT:              %[[W:.*]] = tir.load %W[%j, %k] : memref<8x16xf32>
// CHECK-NEXT:              %[[P:.*]] = arith.mulf %[[A]], %[[W]] : f32
// CHECK-NEXT:              %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:              tir.store %[[S]], %D_acc[%i.1, %j.1] : memref<2x4xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        tir.for %i.1_wb = %c0 to %c2 kind "unrolled" {
// CHECK-NEXT:          %[[J0WB:.*]] = arith.muli %j.0, %c4 : index
// CHECK-NEXT:          %[[IWB:.*]] = arith.addi %[[I0]], %i.1_wb : index
// CHECK-NEXT:          tir.for %j.1_wb = %c0 to %c4 kind "vectorized" {
// CHECK-NEXT:            %[[JWB:.*]] = arith.addi %[[J0WB]], %j.1_wb : index
// CHECK-NEXT:            %[[V:.*]] = tir.load %D_acc[%i.1_wb, %j.1_wb] : memref<2x4xf32>
// CHECK-NEXT:            %[[R:.*]] = arith.maximumf %[[V]], %cst : f32
// CHECK-NEXT:            tir.store %[[R]], %R[%[[IWB]], %[[JWB]]] : memref<4x8xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
tir.prim_func @dense_relu(%A: memref<4x16xf32>, %W: memref<8x16xf32>, %R: memref<4x8xf32>) attributes {
    schedule = ["tile R.i R.j [2, 4]", "unroll R.i.1", "cache_write R R.j.0",
                "vectorize D_acc.j.1", "vectorize R.j.1_wb"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.000000e+00 : f32
  %c16 = arith.constant 16 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %D_acc = tir.allocate "local" : memref<1xf32>
      tir.store %cst, %D_acc[%c0] : memref<1xf32>
      tir.for %k = %c0 to %c16 kind "serial" {
        %0 = tir.load %D_acc[%c0] : memref<1xf32>
        %1 = tir.load %A[%i, %k] : memref<4x16xf32>
        %2 = tir.load %W[%j, %k] : memref<8x16xf32>
        %3 = arith.mulf %1, %2 : f32
        %4 = arith.addf %0, %3 : f32
        tir.store %4, %D_acc[%c0] : memref<1xf32>
      }
      %5 = tir.load %D_acc[%c0] : memref<1xf32>
      %6 = arith.maximumf %5, %cst : f32
      tir.store %6, %R[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// A reduction over two loops with a guard inside (conv2d's padding
// predicate) and a split, non-dividing spatial loop: the spatial loop goes
// innermost under both reduction loops, the split guard follows it into the
// update and write-back nests, the padding guard stays in the body.
// CHECK-LABEL: tir.prim_func @guarded(
// CHECK:         tir.for %x.0 = %c0 to %c2 kind "serial" {
// CHECK-NEXT:      %S_acc = tir.allocate "local" : memref<4xf32>
// CHECK-NEXT:      tir.for %x.1_init = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        tir.store %cst, %S_acc[%x.1_init] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for %ry = %c0 to %c3 kind "serial" {
// CHECK-NEXT:        %[[X0:.*]] = arith.muli %x.0, %c4 : index
// CHECK-NEXT:        tir.for %rx = %c0 to %c3 kind "serial" {
// CHECK-NEXT:          tir.for %x.1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:            %x = arith.addi %[[X0]], %x.1 : index
// CHECK-NEXT:            %[[IN:.*]] = arith.cmpi slt, %x, %c6 : index
// CHECK-NEXT:            tir.if %[[IN]] {
// CHECK-NEXT:              %ix = arith.addi %x, %rx : index
// CHECK-NEXT:              %pad = arith.cmpi slt, %ix, %c6 : index
// CHECK-NEXT:              tir.if %pad {
// CHECK-NEXT:                %a = tir.load %S_acc[%x.1] : memref<4xf32>
// CHECK:                     tir.store %s, %S_acc[%x.1] : memref<4xf32>
// CHECK:         tir.for %x.1_wb = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %[[X0WB:.*]] = arith.muli %x.0, %c4 : index
// CHECK-NEXT:        %[[XWB:.*]] = arith.addi %[[X0WB]], %x.1_wb : index
// CHECK-NEXT:        %[[INWB:.*]] = arith.cmpi slt, %[[XWB]], %c6 : index
// CHECK-NEXT:        tir.if %[[INWB]] {
// CHECK-NEXT:          %[[V:.*]] = tir.load %S_acc[%x.1_wb] : memref<4xf32>
// CHECK-NEXT:          tir.store %[[V]], %S[%[[XWB]]] : memref<6xf32>
tir.prim_func @guarded(%X: memref<3x6xf32>, %S: memref<6xf32>) attributes {
    schedule = ["split S.x [None, 4]", "cache_write S S.x.0"]} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %cst = arith.constant 0.0 : f32
  tir.for %x = %c0 to %c6 kind "serial" {
    %S_acc = tir.allocate "local" : memref<1xf32>
    tir.store %cst, %S_acc[%c0] : memref<1xf32>
    tir.for %ry = %c0 to %c3 kind "serial" {
      tir.for %rx = %c0 to %c3 kind "serial" {
        %ix = arith.addi %x, %rx : index
        %pad = arith.cmpi slt, %ix, %c6 : index
        tir.if %pad {
          %a = tir.load %S_acc[%c0] : memref<1xf32>
          %v = tir.load %X[%ry, %ix] : memref<3x6xf32>
          %s = arith.addf %a, %v : f32
          tir.store %s, %S_acc[%c0] : memref<1xf32>
        }
      }
    }
    %r = tir.load %S_acc[%c0] : memref<1xf32>
    tir.store %r, %S[%x] : memref<6xf32>
  }
  tir.return
}
