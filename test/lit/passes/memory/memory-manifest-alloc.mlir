// RUN: xtvm-opt %s -p memory-manifest-alloc | filecheck %s
// RUN: xtvm-opt %s -p 'memory-manifest-alloc{alignment=128}' | filecheck %s --check-prefix=ALIGN

// A chain: each kernel result gets its own storage and tensor just before the
// call, which now writes into it; an intermediate is killed right after the
// kernel that reads it last; the returned tensor is never killed. Inputs and
// constants are left alone.
// CHECK-LABEL: func.func @chain(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
// CHECK-NEXT:    %w = relay.const dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT:    %a_storage = memory.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %a = memory.alloc_tensor %a_storage {offset = 0 : i64} : tensor<1x4xf32>
// CHECK-NEXT:    memory.invoke_kernel @dense ins(%x, %w : tensor<1x8xf32>, tensor<4x8xf32>) outs(%a : tensor<1x4xf32>)
// CHECK-NEXT:    %b_storage = memory.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %b = memory.alloc_tensor %b_storage {offset = 0 : i64} : tensor<1x4xf32>
// CHECK-NEXT:    memory.invoke_kernel @relu ins(%a : tensor<1x4xf32>) outs(%b : tensor<1x4xf32>)
// CHECK-NEXT:    memory.kill %a : tensor<1x4xf32>
// CHECK-NEXT:    %c_storage = memory.alloc_storage {size = 8 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %c = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<1x2xf32>
// CHECK-NEXT:    memory.invoke_kernel @head ins(%b : tensor<1x4xf32>) outs(%c : tensor<1x2xf32>)
// CHECK-NEXT:    memory.kill %b : tensor<1x4xf32>
// CHECK-NEXT:    func.return %c : tensor<1x2xf32>
// CHECK-NEXT:  }
// ALIGN-LABEL: func.func @chain
// ALIGN:         %a_storage = memory.alloc_storage {size = 16 : i64, alignment = 128 : i64} : !memory.storage
func.func @chain(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %w = relay.const dense<1.0> : tensor<4x8xf32>
  %a = relay.call_lowered @dense(%x, %w) : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  %b = relay.call_lowered @relu(%a) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %c = relay.call_lowered @head(%b) : (tensor<1x4xf32>) -> tensor<1x2xf32>
  func.return %c : tensor<1x2xf32>
}

// A diamond: %a feeds two kernels and dies after the second; %b and %c die
// after the join, in definition order.
// CHECK-LABEL: func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
// CHECK:         memory.invoke_kernel @k1 ins(%x : tensor<16xf32>) outs(%a : tensor<16xf32>)
// CHECK-NEXT:    %b_storage = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %b = memory.alloc_tensor %b_storage {offset = 0 : i64} : tensor<16xf32>
// CHECK-NEXT:    memory.invoke_kernel @k2 ins(%a : tensor<16xf32>) outs(%b : tensor<16xf32>)
// CHECK-NEXT:    %c_storage = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %c = memory.alloc_tensor %c_storage {offset = 0 : i64} : tensor<16xf32>
// CHECK-NEXT:    memory.invoke_kernel @k3 ins(%a : tensor<16xf32>) outs(%c : tensor<16xf32>)
// CHECK-NEXT:    memory.kill %a : tensor<16xf32>
// CHECK-NEXT:    %d_storage = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %d = memory.alloc_tensor %d_storage {offset = 0 : i64} : tensor<16xf32>
// CHECK-NEXT:    memory.invoke_kernel @k4 ins(%b, %c : tensor<16xf32>, tensor<16xf32>) outs(%d : tensor<16xf32>)
// CHECK-NEXT:    memory.kill %b : tensor<16xf32>
// CHECK-NEXT:    memory.kill %c : tensor<16xf32>
// CHECK-NEXT:    func.return %d : tensor<16xf32>
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = relay.call_lowered @k1(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %b = relay.call_lowered @k2(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %c = relay.call_lowered @k3(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %d = relay.call_lowered @k4(%b, %c) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %d : tensor<16xf32>
}

// A kernel with two results (a bool tensor takes one byte an element) whose
// second result nobody reads: it is killed right after the kernel.
// CHECK-LABEL: func.func @unused_result(%x: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    %v_storage = memory.alloc_storage {size = 32 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %v = memory.alloc_tensor %v_storage {offset = 0 : i64} : tensor<8xf32>
// CHECK-NEXT:    %m_storage = memory.alloc_storage {size = 8 : i64, alignment = 64 : i64} : !memory.storage
// CHECK-NEXT:    %m = memory.alloc_tensor %m_storage {offset = 0 : i64} : tensor<8xi1>
// CHECK-NEXT:    memory.invoke_kernel @split ins(%x : tensor<8xf32>) outs(%v, %m : tensor<8xf32>, tensor<8xi1>)
// CHECK-NEXT:    memory.kill %m : tensor<8xi1>
// CHECK-NEXT:    func.return %v : tensor<8xf32>
func.func @unused_result(%x: tensor<8xf32>) -> tensor<8xf32> {
  %v, %m = relay.call_lowered @split(%x) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi1>)
  func.return %v : tensor<8xf32>
}

// Tuples only group tensors: reading a field through relay.tuple_get keeps
// that field alive (%a dies after @k3), the other field dies after the tuple
// (%b), and the fields of a returned tuple are never killed.
// CHECK-LABEL: func.func @tuples(%x: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> {
// CHECK:         %t = relay.tuple %a, %b
// CHECK-NEXT:    memory.kill %b : tensor<4xf32>
// CHECK-NEXT:    %g = relay.tuple_get %t
// CHECK:         memory.invoke_kernel @k3 ins(%g : tensor<4xf32>) outs(%c : tensor<4xf32>)
// CHECK-NEXT:    memory.kill %a : tensor<4xf32>
// CHECK:         memory.invoke_kernel @k4 ins(%c : tensor<4xf32>) outs(%d : tensor<4xf32>)
// CHECK-NEXT:    %r = relay.tuple %c, %d
// CHECK-NOT:     memory.kill
// CHECK:         func.return %r
func.func @tuples(%x: tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>> {
  %a = relay.call_lowered @k1(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = relay.call_lowered @k2(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %t = relay.tuple %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %g = relay.tuple_get %t {index = 0 : i64} : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %c = relay.call_lowered @k3(%g) : (tensor<4xf32>) -> tensor<4xf32>
  %d = relay.call_lowered @k4(%c) : (tensor<4xf32>) -> tensor<4xf32>
  %r = relay.tuple %c, %d : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  func.return %r : tuple<tensor<4xf32>, tensor<4xf32>>
}

// A function without kernel calls is left alone.
// CHECK-LABEL: func.func @no_kernels(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    func.return %x : tensor<4xf32>
func.func @no_kernels(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
