// RUN: xtvm-opt %s -p memory-manifest-alloc,memory-concat-in-place | filecheck %s
// RUN: xtvm-opt %s -p memory-manifest-alloc,memory-concat-in-place,memory-plan | filecheck %s --check-prefix=PLAN
// RUN: xtvm-opt %s -p memory-manifest-alloc,memory-concat-in-place,memory-plan,memory-plan | filecheck %s --check-prefix=PLAN
// A concatenation kernel (xtvm.concatenate_axis, set by convert-relay-to-tir
// on a primitive function that only concatenates its arguments) whose inputs
// are kernel results read by it alone: the inputs are placed back to back in
// its output's storage and the call is marked memory.in_place (not made).
// memory-plan keeps the three tensors as one block (planning again, too).

tir.prim_func @cat(%p0: memref<1x16xf32>, %p1: memref<1x32xf32>, %o: memref<1x48xf32>) attributes {xtvm.concatenate_axis = 1 : i64} {
  tir.return
}
tir.prim_func @cat0(%p0: memref<1x16xf32>, %p1: memref<1x16xf32>, %o: memref<2x16xf32>) attributes {xtvm.concatenate_axis = 0 : i64} {
  tir.return
}
tir.prim_func @cat_rows(%p0: memref<2x16xf32>, %p1: memref<2x16xf32>, %o: memref<2x32xf32>) attributes {xtvm.concatenate_axis = 1 : i64} {
  tir.return
}
tir.prim_func @cat_odd(%p0: memref<1x3xf32>, %p1: memref<1x16xf32>, %o: memref<1x19xf32>) attributes {xtvm.concatenate_axis = 1 : i64} {
  tir.return
}

// CHECK-LABEL: func.func @match(%x: tensor<1x16xf32>) -> tensor<1x48xf32> {
// CHECK-NEXT:    %c_storage = memory.alloc_storage {size = 192 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %a = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<1x16xf32>
// CHECK-NEXT:    memory.invoke_kernel @k ins(%x : tensor<1x16xf32>) outs(%a : tensor<1x16xf32>)
// CHECK-NEXT:    %b = memory.alloc_tensor %c_storage {offset = 64 : i64} : tensor<1x32xf32>
// CHECK-NEXT:    memory.invoke_kernel @k2 ins(%x : tensor<1x16xf32>) outs(%b : tensor<1x32xf32>)
// CHECK-NEXT:    %c = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<1x48xf32>
// CHECK-NEXT:    memory.invoke_kernel @cat ins(%a, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>) {memory.in_place}
// CHECK-NOT:     memory.alloc_storage
// CHECK:         func.return %c : tensor<1x48xf32>
// PLAN-LABEL: func.func @match(%x: tensor<1x16xf32>) -> tensor<1x48xf32> attributes {memory.planned_bytes = 192 : i64, memory.naive_bytes = 192 : i64} {
// PLAN-NEXT:     %arena = memory.alloc_storage {size = 192 : i64, alignment = 64 : i64} : !memory.storage
// PLAN-NEXT:     %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x16xf32>
// PLAN:          %b = memory.alloc_tensor %arena {offset = 64 : i64} : tensor<1x32xf32>
// PLAN:          %c = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x48xf32>
func.func @match(%x: tensor<1x16xf32>) -> tensor<1x48xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @cat(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  func.return %c : tensor<1x48xf32>
}

// The block is planned as one: %d, written after %c died, reuses its bytes,
// and a tensor live with the block (%e, read with %c) gets others.
// PLAN-LABEL: func.func @block_lifetime
// PLAN:          %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x16xf32>
// PLAN:          %b = memory.alloc_tensor %arena {offset = 64 : i64} : tensor<1x32xf32>
// PLAN:          %e = memory.alloc_tensor %arena {offset = 192 : i64} : tensor<1x16xf32>
// PLAN:          %c = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x48xf32>
// PLAN:          %d = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x16xf32>
func.func @block_lifetime(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %e = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %c = relay.call_lowered @cat(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  %f = relay.call_lowered @k3(%c, %e) : (tensor<1x48xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  %d = relay.call_lowered @k(%f) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  func.return %d : tensor<1x16xf32>
}

// An input other kernels read too: it lives inside the output (its bytes are
// its own while it lives, the block lives as long as its members).
// CHECK-LABEL: func.func @input_read_elsewhere
// CHECK:         %a = memory.alloc_tensor %c_storage {offset = 0 : i64}
// CHECK:         memory.invoke_kernel @cat ins(%a, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>) {memory.in_place}
// CHECK:         memory.invoke_kernel @k3 ins(%c, %a : tensor<1x48xf32>, tensor<1x16xf32>)
// PLAN-LABEL: func.func @input_read_elsewhere
// PLAN:          %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x16xf32>
// PLAN:          %c = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x48xf32>
// PLAN:          %d = memory.alloc_tensor %arena {offset = 192 : i64} : tensor<1x16xf32>
func.func @input_read_elsewhere(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @cat(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  %d = relay.call_lowered @k3(%c, %a) : (tensor<1x48xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  func.return %d : tensor<1x16xf32>
}

// Nested (DenseNet's blocks: each layer concatenates the previous
// concatenation and its new features): the inner concatenation's storage,
// with its inputs, moves into the outer one's.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %g_storage = memory.alloc_storage {size = 256 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %a = memory.alloc_tensor %g_storage {offset = 0 : i64} : tensor<1x16xf32>
// CHECK:         %b = memory.alloc_tensor %g_storage {offset = 64 : i64} : tensor<1x32xf32>
// CHECK:         %c = memory.alloc_tensor %g_storage {offset = 0 : i64} : tensor<1x48xf32>
// CHECK-NEXT:    memory.invoke_kernel @cat ins(%a, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>) {memory.in_place}
// CHECK:         %e = memory.alloc_tensor %g_storage {offset = 192 : i64} : tensor<1x16xf32>
// CHECK:         %g = memory.alloc_tensor %g_storage {offset = 0 : i64} : tensor<1x64xf32>
// CHECK-NEXT:    memory.invoke_kernel @cat_outer ins(%c, %e : tensor<1x48xf32>, tensor<1x16xf32>) outs(%g : tensor<1x64xf32>) {memory.in_place}
// PLAN-LABEL: func.func @nested
// PLAN-SAME:     memory.planned_bytes = 256 : i64
// PLAN:          %b = memory.alloc_tensor %arena {offset = 64 : i64} : tensor<1x32xf32>
// PLAN:          %e = memory.alloc_tensor %arena {offset = 192 : i64} : tensor<1x16xf32>
tir.prim_func @cat_outer(%p0: memref<1x48xf32>, %p1: memref<1x16xf32>, %o: memref<1x64xf32>) attributes {xtvm.concatenate_axis = 1 : i64} {
  tir.return
}
func.func @nested(%x: tensor<1x16xf32>) -> tensor<1x64xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @cat(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  %e = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %g = relay.call_lowered @cat_outer(%c, %e) : (tensor<1x48xf32>, tensor<1x16xf32>) -> tensor<1x64xf32>
  func.return %g : tensor<1x64xf32>
}

// Near misses, each left as a copy (no memory.in_place):
// an input of two concatenations (the first takes it);
// CHECK-LABEL: func.func @input_of_two
// CHECK:         memory.invoke_kernel @cat ins(%a, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>) {memory.in_place}
// CHECK:         memory.invoke_kernel @cat ins(%a, %e : tensor<1x16xf32>, tensor<1x32xf32>) outs(%f : tensor<1x48xf32>){{$}}
func.func @input_of_two(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @cat(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  %e = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %f = relay.call_lowered @cat(%a, %e) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  %d = relay.call_lowered @k3(%c, %f) : (tensor<1x48xf32>, tensor<1x48xf32>) -> tensor<1x16xf32>
  func.return %d : tensor<1x16xf32>
}

// a graph input (the caller owns it);
// CHECK-LABEL: func.func @graph_input
// CHECK:         memory.invoke_kernel @cat ins(%x, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>){{$}}
func.func @graph_input(%x: tensor<1x16xf32>) -> tensor<1x48xf32> {
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @cat(%x, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  func.return %c : tensor<1x48xf32>
}

// an input that is also returned;
// CHECK-LABEL: func.func @returned_input
// CHECK:         memory.invoke_kernel @cat ins(%a, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>){{$}}
func.func @returned_input(%x: tensor<1x16xf32>) -> (tensor<1x48xf32>, tensor<1x16xf32>) {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @cat(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  func.return %c, %a : tensor<1x48xf32>, tensor<1x16xf32>
}

// one tensor concatenated with itself;
// CHECK-LABEL: func.func @same_input_twice
// CHECK:         memory.invoke_kernel @cat0 ins(%a, %a : tensor<1x16xf32>, tensor<1x16xf32>) outs(%c : tensor<2x16xf32>){{$}}
func.func @same_input_twice(%x: tensor<1x16xf32>) -> tensor<2x16xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %c = relay.call_lowered @cat0(%a, %a) : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<2x16xf32>
  func.return %c : tensor<2x16xf32>
}

// a dim before the axis over 1 (each input is two ranges of the output);
// CHECK-LABEL: func.func @not_contiguous
// CHECK:         memory.invoke_kernel @cat_rows ins(%a, %b : tensor<2x16xf32>, tensor<2x16xf32>) outs(%c : tensor<2x32xf32>){{$}}
func.func @not_contiguous(%x: tensor<1x16xf32>) -> tensor<2x32xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<2x16xf32>
  %b = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<2x16xf32>
  %c = relay.call_lowered @cat_rows(%a, %b) : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x32xf32>
  func.return %c : tensor<2x32xf32>
}

// an input that would start at an unaligned byte (12 of 64);
// CHECK-LABEL: func.func @unaligned
// CHECK:         memory.invoke_kernel @cat_odd ins(%a, %b : tensor<1x3xf32>, tensor<1x16xf32>) outs(%c : tensor<1x19xf32>){{$}}
func.func @unaligned(%x: tensor<1x16xf32>) -> tensor<1x19xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x3xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %c = relay.call_lowered @cat_odd(%a, %b) : (tensor<1x3xf32>, tensor<1x16xf32>) -> tensor<1x19xf32>
  func.return %c : tensor<1x19xf32>
}

// a kernel not marked as a concatenation.
// CHECK-LABEL: func.func @not_a_concat
// CHECK:         memory.invoke_kernel @k3 ins(%a, %b : tensor<1x16xf32>, tensor<1x32xf32>) outs(%c : tensor<1x48xf32>){{$}}
func.func @not_a_concat(%x: tensor<1x16xf32>) -> tensor<1x48xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<1x16xf32>) -> tensor<1x32xf32>
  %c = relay.call_lowered @k3(%a, %b) : (tensor<1x16xf32>, tensor<1x32xf32>) -> tensor<1x48xf32>
  func.return %c : tensor<1x48xf32>
}
