// RUN: xtvm-opt %s -p tir-apply-schedule --split-input-file --verify-diagnostics
// Traces tir-apply-schedule rejects; each expected-error, at the function, is the
// diagnostic: the instruction's position and text, and what is wrong.
// An unknown instruction.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'interchange B.i B.j': unknown instruction 'interchange' (known: split, split_tail, fuse, reorder, tile, vectorize, parallel, unroll, cache_write, compute_inline, compute_at, transform_layout)}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["interchange B.i B.j"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// A loop reference whose block is not a buffer.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'split C.i [2, 4]': 'C.i' does not name a loop: expected BLOCK.VAR with BLOCK a buffer name}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split C.i [2, 4]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// A loop that does not enclose the block's stores; the message lists those that do.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'split B.k [2, 4]': no loop 'B.k'; loops around those stores: B.i, B.j}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split B.k [2, 4]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// A loop replaced by an earlier split.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 1 'vectorize B.i': no loop 'B.i'; loops around those stores: B.i.0, B.i.1, B.j}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split B.i [2, 2]", "vectorize B.i"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// Factors that cover too few iterations.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'split B.j [2, 3]': split: factors [2, 3] cover 6 of the 8 iterations of loop 'j'}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split B.j [2, 3]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// Two inferred factors.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'split B.j [None, None]': split: at most one factor may be None, got [None, None]}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split B.j [None, None]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// A malformed factor list.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'split B.j [4, x]': factor 'x' is not an integer or None}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split B.j [4, x]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// Fusing loops that are not adjacent.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 1 'fuse B.i B.j.1': fuse: the loops must be adjacent in one nest, outermost first; the nest from loop 'i' to loop 'j.1' is (i, j.0, j.1)}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["split B.j [2, 4]", "fuse B.i B.j.1"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// Vectorizing a loop that contains another loop.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'vectorize B.i': vectorize: loop 'i' contains another loop; vectorize an innermost loop}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["vectorize B.i"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// Splitting a loop that already has a kind.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 1 'split B.i [2, 2]': split needs serial loops, loop 'i' is parallel; set vectorize/parallel/unroll after restructuring}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["parallel B.i", "split B.i [2, 2]"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// cache_write on a store that no reduction feeds.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'cache_write B B.i': cache_write: the value stored into B must come from exactly one reduction accumulator (a one-element local buffer updated in a loop) directly inside the spatial loops, found 0}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["cache_write B B.i"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// The trace must be an array of strings.
// expected-error @+1 {{tir-apply-schedule: @f: the 'schedule' attribute must be an array of strings}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = 3} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// compute_inline and compute_at move stages computed into allocated buffers.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'compute_inline A': compute_inline: A is a function argument, not a stage computed into an allocated buffer}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["compute_inline A"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// A stage with a reduction inside is not inlined.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'compute_inline S': compute_inline: S is not an elementwise stage: its body has 'tir.store'}}
tir.prim_func @f(%A: memref<4x8xf32>, %C: memref<4xf32>) attributes {schedule = ["compute_inline S"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %S = tir.allocate "global" : memref<4xf32>
  tir.for %i = %c0 to %c4 kind "serial" {
    %z = arith.constant 0.0 : f32
    tir.store %z, %C[%i] : memref<4xf32>
    tir.for %k = %c0 to %c8 kind "serial" {
      %a = tir.load %A[%i, %k] : memref<4x8xf32>
      tir.store %a, %C[%i] : memref<4xf32>
    }
    %c = tir.load %C[%i] : memref<4xf32>
    tir.store %c, %S[%i] : memref<4xf32>
  }
  tir.for %y = %c0 to %c4 kind "serial" {
    %s = tir.load %S[%y] : memref<4xf32>
    tir.store %s, %C[%y] : memref<4xf32>
  }
  tir.return
}

// -----

// compute_at needs an affine region: B is read at y * y.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'compute_at B C.y': compute_at: index 0 of a load of B is not an affine function of the loops}}
tir.prim_func @f(%A: memref<4xf32>, %C: memref<2xf32>) attributes {schedule = ["compute_at B C.y"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %B = tir.allocate "global" : memref<4xf32>
  tir.for %i = %c0 to %c4 kind "serial" {
    %a = tir.load %A[%i] : memref<4xf32>
    tir.store %a, %B[%i] : memref<4xf32>
  }
  tir.for %y = %c0 to %c2 kind "serial" {
    %sq = arith.muli %y, %y : index
    %b = tir.load %B[%sq] : memref<4xf32>
    tir.store %b, %C[%y] : memref<2xf32>
  }
  tir.return
}

// -----

// compute_at cannot move a stage that other loops read too.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'compute_at B C.y': compute_at: B is used outside loop 'y' (by 'tir.load')}}
tir.prim_func @f(%A: memref<4xf32>, %C: memref<4xf32>, %D: memref<4xf32>) attributes {schedule = ["compute_at B C.y"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %B = tir.allocate "global" : memref<4xf32>
  tir.for %i = %c0 to %c4 kind "serial" {
    %a = tir.load %A[%i] : memref<4xf32>
    tir.store %a, %B[%i] : memref<4xf32>
  }
  tir.for %y = %c0 to %c4 kind "serial" {
    %b = tir.load %B[%y] : memref<4xf32>
    tir.store %b, %C[%y] : memref<4xf32>
  }
  tir.for %x = %c0 to %c4 kind "serial" {
    %b = tir.load %B[%x] : memref<4xf32>
    tir.store %b, %D[%x] : memref<4xf32>
  }
  tir.return
}

// -----

// An index map must be injective, and outputs keep their layout.
// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'transform_layout A (d0, d1) -> (d0 + d1)': transform_layout: the index map '(d0, d1) -> ((d0 + d1))' sends two elements to the same place}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["transform_layout A (d0, d1) -> (d0 + d1)"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'transform_layout B (d0, d1) -> (d1, d0)': transform_layout: B is written by the function; only inputs and allocations change layout}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["transform_layout B (d0, d1) -> (d1, d0)"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}

// -----

// expected-error @+1 {{tir-apply-schedule: @f: instruction 0 'transform_layout A (d0, d1) -> (d1, d0 % 2)': '(d0, d1) -> (d1, d0 % 2)' is not an affine map like (d0, d1) -> (d0 floordiv 8, d1, d0 mod 8)}}
tir.prim_func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) attributes {schedule = ["transform_layout A (d0, d1) -> (d1, d0 % 2)"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c8 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x8xf32>
      tir.store %v, %B[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}
