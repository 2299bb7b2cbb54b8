// RUN: xtvm-opt %s -p memory-manifest-alloc,memory-plan | filecheck %s --check-prefix=ARENA
// RUN: xtvm-opt %s -p memory-manifest-alloc,memory-plan,memory-plan | filecheck %s --check-prefix=ARENA
// RUN: xtvm-opt %s -p 'memory-manifest-alloc,memory-plan{arena=false}' | filecheck %s --check-prefix=SID
// RUN: xtvm-opt %s -p 'memory-manifest-alloc,memory-plan{alignment=4096}' | filecheck %s --check-prefix=PAGE
// Planning again (second RUN) gives the same plan.

// A chain of 5 equal kernels: a kernel's input and output are live together,
// but a tensor is dead once the next-but-one kernel runs, so two slots
// alternate. The returned tensor (%e) keeps its slot to the end.
// ARENA-LABEL: func.func @chain5(%x: tensor<1x256xf32>) -> tensor<1x256xf32> attributes {memory.planned_bytes = 2048 : i64, memory.naive_bytes = 5120 : i64} {
// ARENA-NEXT:    %arena = memory.alloc_storage {size = 2048 : i64, alignment = 64 : i64} : !memory.storage
// ARENA-NEXT:    %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x256xf32>
// ARENA-NEXT:    memory.invoke_kernel @k ins(%x : tensor<1x256xf32>) outs(%a : tensor<1x256xf32>)
// ARENA-NEXT:    %b = memory.alloc_tensor %arena {offset = 1024 : i64} : tensor<1x256xf32>
// ARENA-NEXT:    memory.invoke_kernel @k ins(%a : tensor<1x256xf32>) outs(%b : tensor<1x256xf32>)
// ARENA-NEXT:    memory.kill %a : tensor<1x256xf32>
// ARENA-NEXT:    %c = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x256xf32>
// ARENA:         %d = memory.alloc_tensor %arena {offset = 1024 : i64} : tensor<1x256xf32>
// ARENA:         %e = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1x256xf32>
// ARENA-NOT:     memory.alloc_storage
// ARENA:         func.return %e : tensor<1x256xf32>
// SID-LABEL: func.func @chain5(%x: tensor<1x256xf32>) -> tensor<1x256xf32> attributes {memory.planned_bytes = 2048 : i64, memory.naive_bytes = 5120 : i64} {
// SID-NEXT:    %storage0 = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
// SID-NEXT:    %storage1 = memory.alloc_storage {size = 1024 : i64, alignment = 64 : i64} : !memory.storage
// SID-NEXT:    %a = memory.alloc_tensor %storage0 {offset = 0 : i64} : tensor<1x256xf32>
// SID:         %b = memory.alloc_tensor %storage1 {offset = 0 : i64} : tensor<1x256xf32>
// SID:         %c = memory.alloc_tensor %storage0 {offset = 0 : i64} : tensor<1x256xf32>
// SID:         %d = memory.alloc_tensor %storage1 {offset = 0 : i64} : tensor<1x256xf32>
// SID:         %e = memory.alloc_tensor %storage0 {offset = 0 : i64} : tensor<1x256xf32>
// SID-NOT:     memory.alloc_storage
// SID:         func.return %e : tensor<1x256xf32>
// PAGE-LABEL: func.func @chain5
// PAGE-SAME:     memory.planned_bytes = 8192 : i64, memory.naive_bytes = 20480 : i64
// PAGE:          %b = memory.alloc_tensor %arena {offset = 4096 : i64} : tensor<1x256xf32>
func.func @chain5(%x: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %a = relay.call_lowered @k(%x) : (tensor<1x256xf32>) -> tensor<1x256xf32>
  %b = relay.call_lowered @k(%a) : (tensor<1x256xf32>) -> tensor<1x256xf32>
  %c = relay.call_lowered @k(%b) : (tensor<1x256xf32>) -> tensor<1x256xf32>
  %d = relay.call_lowered @k(%c) : (tensor<1x256xf32>) -> tensor<1x256xf32>
  %e = relay.call_lowered @k(%d) : (tensor<1x256xf32>) -> tensor<1x256xf32>
  func.return %e : tensor<1x256xf32>
}

// A diamond: %a is read by @k2 and @k3, so %a, %b and %c are live together
// and need three slots; %d, written after %a died, reuses %a's.
// ARENA-LABEL: func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> attributes {memory.planned_bytes = 192 : i64, memory.naive_bytes = 256 : i64} {
// ARENA-NEXT:    %arena = memory.alloc_storage {size = 192 : i64, alignment = 64 : i64} : !memory.storage
// ARENA-NEXT:    %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<16xf32>
// ARENA:         %b = memory.alloc_tensor %arena {offset = 64 : i64} : tensor<16xf32>
// ARENA:         %c = memory.alloc_tensor %arena {offset = 128 : i64} : tensor<16xf32>
// ARENA:         %d = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<16xf32>
// SID-LABEL: func.func @diamond
// SID-COUNT-3:   memory.alloc_storage {size = 64 : i64, alignment = 64 : i64}
// SID-NEXT:      %a = memory.alloc_tensor %storage0
// SID:           %b = memory.alloc_tensor %storage1
// SID:           %c = memory.alloc_tensor %storage2
// SID:           %d = memory.alloc_tensor %storage0
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = relay.call_lowered @k1(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %b = relay.call_lowered @k2(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %c = relay.call_lowered @k3(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %d = relay.call_lowered @k4(%b, %c) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %d : tensor<16xf32>
}

// Mixed sizes. The arena places the two 4 KiB tensors first (both at 0: they
// do not overlap in time), then the 1 KiB ones above them. With storage ids,
// %c reuses %a's larger storage (best fit), and %d takes %b's 1 KiB storage
// and grows it to 4 KiB rather than making a third (TVM's rule).
// ARENA-LABEL: func.func @mixed(%x: tensor<1024xf32>) -> tensor<1024xf32> attributes {memory.planned_bytes = 6144 : i64, memory.naive_bytes = 10240 : i64} {
// ARENA:         %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1024xf32>
// ARENA:         %b = memory.alloc_tensor %arena {offset = 4096 : i64} : tensor<256xf32>
// ARENA:         %c = memory.alloc_tensor %arena {offset = 5120 : i64} : tensor<256xf32>
// ARENA:         %d = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<1024xf32>
// SID-LABEL: func.func @mixed(%x: tensor<1024xf32>) -> tensor<1024xf32> attributes {memory.planned_bytes = 8192 : i64, memory.naive_bytes = 10240 : i64} {
// SID-NEXT:    %storage0 = memory.alloc_storage {size = 4096 : i64, alignment = 64 : i64} : !memory.storage
// SID-NEXT:    %storage1 = memory.alloc_storage {size = 4096 : i64, alignment = 64 : i64} : !memory.storage
// SID:         %a = memory.alloc_tensor %storage0 {offset = 0 : i64} : tensor<1024xf32>
// SID:         %b = memory.alloc_tensor %storage1 {offset = 0 : i64} : tensor<256xf32>
// SID:         %c = memory.alloc_tensor %storage0 {offset = 0 : i64} : tensor<256xf32>
// SID:         %d = memory.alloc_tensor %storage1 {offset = 0 : i64} : tensor<1024xf32>
func.func @mixed(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = relay.call_lowered @k1(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  %b = relay.call_lowered @k2(%a) : (tensor<1024xf32>) -> tensor<256xf32>
  %c = relay.call_lowered @k3(%b) : (tensor<256xf32>) -> tensor<256xf32>
  %d = relay.call_lowered @k4(%c) : (tensor<256xf32>) -> tensor<1024xf32>
  func.return %d : tensor<1024xf32>
}

// Two returned tensors: %a is returned, so @k2's output cannot reuse it even
// though no kernel reads %a afterwards.
// ARENA-LABEL: func.func @outputs_live_to_the_end
// ARENA:         %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<16xf32>
// ARENA:         %b = memory.alloc_tensor %arena {offset = 64 : i64} : tensor<16xf32>
// ARENA:         %c = memory.alloc_tensor %arena {offset = 128 : i64} : tensor<16xf32>
func.func @outputs_live_to_the_end(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = relay.call_lowered @k1(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %b = relay.call_lowered @k2(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %c = relay.call_lowered @k3(%b) : (tensor<16xf32>) -> tensor<16xf32>
  func.return %a, %c : tensor<16xf32>, tensor<16xf32>
}
