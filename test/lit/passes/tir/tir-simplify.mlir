// RUN: xtvm-opt %s -p tir-simplify | filecheck %s

// Constant folding with two's complement wrapping, identities, and no
// folding of a division by zero.
// CHECK-LABEL: tir.prim_func @fold(%A: memref<64xi8>, %x: index) {
// CHECK-DAG:     %[[W:.*]] = arith.constant -56 : i8
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : i8
// CHECK:         tir.store %[[W]], %A[%x] : memref<64xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = arith.divsi %[[W]], %[[Z]] : i8
// CHECK-NEXT:    tir.store %[[D]], %A[%[[C0]]] : memref<64xi8>
// CHECK-NEXT:    tir.return
tir.prim_func @fold(%A: memref<64xi8>, %x: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = arith.constant 100 : i8
  %z = arith.constant 0 : i8
  %w = arith.addi %h, %h : i8
  %a = arith.addi %x, %c0 : index
  %b = arith.muli %c1, %a : index
  %d = arith.divsi %b, %c1 : index
  tir.store %w, %A[%d] : memref<64xi8>
  %e = arith.subi %x, %x : index
  %m = arith.muli %x, %c0 : index
  %n = arith.addi %e, %m : index
  %q = arith.divsi %w, %z : i8
  tir.store %q, %A[%n] : memref<64xi8>
  %unused = arith.muli %x, %x : index
  tir.return
}

// Constants move right and are reassociated: ((x*4)*2), ((x+1)+2), (x-3)+5,
// and (x+1)*8 -> x*8 + 8.
// CHECK-LABEL: tir.prim_func @reassociate(%A: memref<64xf32>, %x: index) {
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %x, %[[C8]] : index
// CHECK-NEXT:    %[[V:.*]] = tir.load %A[%[[M]]] : memref<64xf32>
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[P:.*]] = arith.addi %x, %[[C3]] : index
// CHECK-NEXT:    tir.store %[[V]], %A[%[[P]]] : memref<64xf32>
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.addi %x, %[[C2]] : index
// CHECK-NEXT:    tir.store %[[V]], %A[%[[Q]]] : memref<64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[M]], %[[C8]] : index
// CHECK-NEXT:    tir.store %[[V]], %A[%[[R]]] : memref<64xf32>
// CHECK-NEXT:    tir.return
tir.prim_func @reassociate(%A: memref<64xf32>, %x: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %a = arith.muli %c4, %x : index
  %b = arith.muli %a, %c2 : index
  %v = tir.load %A[%b] : memref<64xf32>
  %p1 = arith.addi %x, %c1 : index
  %p = arith.addi %p1, %c2 : index
  tir.store %v, %A[%p] : memref<64xf32>
  %s = arith.subi %x, %c3 : index
  %q = arith.addi %s, %c5 : index
  tir.store %v, %A[%q] : memref<64xf32>
  %r1 = arith.addi %x, %c1 : index
  %r = arith.muli %r1, %c8 : index
  tir.store %v, %A[%r] : memref<64xf32>
  tir.return
}

// Loop ranges decide comparisons, min/max and fused-index div/mod:
// with i in [0, 4) and j in [0, 4), (i*4 + j) / 4 == i, (i*4 + j) % 4 == j,
// i*4 + j < 16 always holds, and min(j, 8) == j.
// CHECK-LABEL: tir.prim_func @bounds(%A: memref<16xf32>, %B: memref<4x4xf32>) {
// CHECK:         tir.for %i = %c0 to %c4 kind "serial" {
// CHECK-NEXT:      tir.for %j = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        %[[F:.*]] = arith.muli %i, %c4 : index
// CHECK-NEXT:        %[[G:.*]] = arith.addi %[[F]], %j : index
// CHECK-NEXT:        %[[V:.*]] = tir.load %A[%[[G]]] : memref<16xf32>
// CHECK-NEXT:        tir.store %[[V]], %B[%i, %j] : memref<4x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
tir.prim_func @bounds(%A: memref<16xf32>, %B: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c4 kind "serial" {
      %f = arith.muli %i, %c4 : index
      %g = arith.addi %f, %j : index
      %inb = arith.cmpi slt, %g, %c16 : index
      tir.if %inb {
        %v = tir.load %A[%g] : memref<16xf32>
        %io = arith.floordivsi %g, %c4 : index
        %ii = arith.remsi %g, %c4 : index
        %jj = arith.minsi %ii, %c8 : index
        tir.store %v, %B[%io, %jj] : memref<4x4xf32>
      } else {
        tir.assert %inb, "out of bounds"
      }
    }
  }
  tir.return
}

// Loops of extent 1 become their body with the index substituted; loops of
// extent 0 disappear, also when ub = lb + 0.
// CHECK-LABEL: tir.prim_func @trivial_loops(%A: memref<8xf32>, %n: index) {
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[V:.*]] = tir.load %A[%[[C3]]] : memref<8xf32>
// CHECK-NEXT:    tir.store %[[V]], %A[%n] : memref<8xf32>
// CHECK-NEXT:    tir.return
tir.prim_func @trivial_loops(%A: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c3 to %c4 kind "serial" {
    %v = tir.load %A[%i] : memref<8xf32>
    %u = arith.addi %n, %c1 : index
    tir.for %k = %n to %u kind "serial" {
      tir.store %v, %A[%k] : memref<8xf32>
    }
  }
  tir.for %j = %c4 to %c3 kind "serial" {
    %v = tir.load %A[%j] : memref<8xf32>
    tir.store %v, %A[%c0] : memref<8xf32>
  }
  %e = arith.addi %n, %c0 : index
  tir.for %k = %n to %e kind "serial" {
    %v = tir.load %A[%k] : memref<8xf32>
    tir.store %v, %A[%c0] : memref<8xf32>
  }
  tir.return
}

// Constant conditions: the taken branch replaces the tir.if, a true assert
// disappears, a false assert stays.
// CHECK-LABEL: tir.prim_func @constant_if(%A: memref<8xf32>) {
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[F:.*]] = arith.constant false
// CHECK-NEXT:    %[[V:.*]] = tir.load %A[%[[C1]]] : memref<8xf32>
// CHECK-NEXT:    tir.store %[[V]], %A[%[[C1]]] : memref<8xf32>
// CHECK-NEXT:    tir.assert %[[F]], "always fails"
// CHECK-NEXT:    tir.return
tir.prim_func @constant_if(%A: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.cmpi slt, %c0, %c1 : index
  %f = arith.cmpi sgt, %c0, %c1 : index
  tir.if %f {
    %v = tir.load %A[%c0] : memref<8xf32>
    tir.store %v, %A[%c0] : memref<8xf32>
  } else {
    %v = tir.load %A[%c1] : memref<8xf32>
    tir.store %v, %A[%c1] : memref<8xf32>
  }
  tir.if %f {
    %v = tir.load %A[%c1] : memref<8xf32>
    tir.store %v, %A[%c0] : memref<8xf32>
  }
  tir.assert %t, "always holds"
  tir.assert %f, "always fails"
  tir.return
}

// The flattened index of two loops fused back into one: x + (q / c) * c + q % c
// is x + q, so that the fused loop addresses memory as a ramp.
// CHECK-LABEL: tir.prim_func @div_mod_recombine(%A: memref<128xf32>, %B: memref<64xf32>, %x: index) {
// (The remainder stays, unused: arith's division ops are not marked pure.)
// CHECK:         tir.for %q = %c0 to %c64 kind "serial" {
// CHECK-NOT:       arith.divui
// CHECK:           %[[I:.*]] = arith.addi %x, %q : index
// CHECK-NEXT:      %[[V:.*]] = tir.load %A[%[[I]]] : memref<128xf32>
// CHECK-NEXT:      tir.store %[[V]], %B[%q] : memref<64xf32>
tir.prim_func @div_mod_recombine(%A: memref<128xf32>, %B: memref<64xf32>, %x: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  tir.for %q = %c0 to %c64 kind "serial" {
    %row = arith.divui %q, %c8 : index
    %col = arith.remui %q, %c8 : index
    %r8 = arith.muli %row, %c8 : index
    %base = arith.addi %x, %r8 : index
    %i = arith.addi %base, %col : index
    %j0 = arith.muli %row, %c8 : index
    %j = arith.addi %j0, %col : index
    %v = tir.load %A[%i] : memref<128xf32>
    tir.store %v, %B[%j] : memref<64xf32>
  }
  tir.return
}

// DivModLinearSum: a linear sum over loop variables divided by a constant.
// With j, k in [0, 56): (i*3136 + j*56 + k) / 56 -> i*56 + j and % 56 -> k;
// / 12544 -> i / 4 (3136 divides 12544, j*56 + k < 3136); % 12544 ->
// (i % 4) * 3136 + j*56 + k; a negative offset is left alone. (An
// argument of unknown sign is left alone too: nothing proves it non-negative.)
// CHECK-LABEL: tir.prim_func @div_mod_linear_sum(%A: memref<4096xindex>) {
// CHECK:         tir.for %i = %c0 to %c8 kind "serial" {
// CHECK-NEXT:      tir.for %j = %c0 to %c56 kind "serial" {
// CHECK-NEXT:        tir.for %k = %c0 to %c56 kind "serial" {
// CHECK-NEXT:          %[[I56:.*]] = arith.muli %i, %c56 : index
// CHECK-NEXT:          %[[Q:.*]] = arith.addi %[[I56]], %j : index
// CHECK-NEXT:          tir.store %[[Q]], %A[%c0] : memref<4096xindex>
// CHECK-NEXT:          tir.store %k, %A[%c1] : memref<4096xindex>
// CHECK-NEXT:          %[[D:.*]] = arith.divui %i, %c4 : index
// CHECK-NEXT:          tir.store %[[D]], %A[%c2] : memref<4096xindex>
// CHECK-NEXT:          %[[R:.*]] = arith.remui %i, %c4 : index
// CHECK-NEXT:          %[[C3136:.*]] = arith.constant 3136 : index
// CHECK-NEXT:          %[[R1:.*]] = arith.muli %[[R]], %[[C3136]] : index
// CHECK-NEXT:          %[[J56:.*]] = arith.muli %j, %c56 : index
// CHECK-NEXT:          %[[S:.*]] = arith.addi %[[R1]], %[[J56]] : index
// CHECK-NEXT:          %[[S2:.*]] = arith.addi %[[S]], %k : index
// CHECK-NEXT:          tir.store %[[S2]], %A[%c3] : memref<4096xindex>
// CHECK-NEXT:          %[[T:.*]] = arith.addi %[[J56]], %cm1 : index
// CHECK-NEXT:          %{{.*}} = arith.divsi %[[T]], %c56 : index
tir.prim_func @div_mod_linear_sum(%A: memref<4096xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c56 = arith.constant 56 : index
  %c3136 = arith.constant 3136 : index
  %c12544 = arith.constant 12544 : index
  %c8 = arith.constant 8 : index
  %cm1 = arith.constant -1 : index
  tir.for %i = %c0 to %c8 kind "serial" {
  tir.for %j = %c0 to %c56 kind "serial" {
    tir.for %k = %c0 to %c56 kind "serial" {
      %ii = arith.muli %i, %c3136 : index
      %jj = arith.muli %j, %c56 : index
      %s0 = arith.addi %ii, %jj : index
      %s = arith.addi %s0, %k : index
      %q = arith.divsi %s, %c56 : index
      tir.store %q, %A[%c0] : memref<4096xindex>
      %r = arith.remsi %s, %c56 : index
      tir.store %r, %A[%c1] : memref<4096xindex>
      %d = arith.divui %s, %c12544 : index
      tir.store %d, %A[%c2] : memref<4096xindex>
      %m = arith.remui %s, %c12544 : index
      tir.store %m, %A[%c3] : memref<4096xindex>
      %t0 = arith.muli %j, %c56 : index
      %t = arith.addi %t0, %cm1 : index
      %n = arith.divsi %t, %c56 : index
      tir.store %n, %A[%c4] : memref<4096xindex>
    }
  }
  }
  tir.return
}
