"""Hand-written vm IR with control flow, ADTs, calls and shapes, compiled
(kernels and all) and run on the VM: the control flow works in the VM
before any relay lowering produces it."""

from __future__ import annotations

import numpy as np
import pytest

import xtvm
from xtvm.driver.pipeline import mlir_context
from xtvm.ir.parse import parse_module
from xtvm.runtime import XTVMError
from xtvm.runtime.vm import VirtualMachine

KERNELS = """
tir.prim_func @add_one(%x: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  tir.for %i = %c0 to %c4 kind "serial" {
    %v = tir.load %x[%i] : memref<4xf32>
    %s = arith.addf %v, %one : f32
    tir.store %s, %out[%i] : memref<4xf32>
  }
  tir.return
}
tir.prim_func @double(%x: memref<4xf32>, %out: memref<4xf32>) attributes {arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    %v = tir.load %x[%i] : memref<4xf32>
    %s = arith.addf %v, %v : f32
    tir.store %s, %out[%i] : memref<4xf32>
  }
  tir.return
}
tir.prim_func @lt_limit(%x: memref<4xf32>, %limit: memref<1xf32>, %out: memref<1xi32>) attributes {arg_names = ["x", "limit", "out"]} {
  %c0 = arith.constant 0 : index
  %v = tir.load %x[%c0] : memref<4xf32>
  %l = tir.load %limit[%c0] : memref<1xf32>
  %lt = arith.cmpf olt, %v, %l : f32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %r = arith.select %lt, %one, %zero : i32
  tir.store %r, %out[%c0] : memref<1xi32>
  tir.return
}
"""

# while x[0] < limit: x = x + 1; then double it when the loop ran an odd
# number of times (a counter in a register, parity decided by a vm.if on a
# swapped pair of block arguments).
LOOP = """
vm.func @main(%x: tensor<4xf32> {relay.name = "x"}, %limit: tensor<1xf32> {relay.name = "limit"}) -> (tensor<4xf32> {relay.name = "y"}) {
  %zero = vm.load_consti 0 : i64
  %one = vm.load_consti 1 : i64
  vm.goto ^loop(%x, %zero, %one : tensor<4xf32>, i64, i64)
^loop(%v: tensor<4xf32>, %even: i64, %odd: i64):
  %s = vm.alloc_storage {size = 4 : i64, alignment = 64 : i64} : !vm.storage
  %c = vm.alloc_tensor %s {offset = 0 : i64} : tensor<1xi32>
  vm.invoke_packed @lt_limit ins(%v, %limit : tensor<4xf32>, tensor<1xf32>) outs(%c : tensor<1xi32>)
  vm.if %c : tensor<1xi32>, ^body, ^done
^body:
  %n = vm.invoke @step(%v) : (tensor<4xf32>) -> tensor<4xf32>
  vm.goto ^loop(%n, %odd, %even : tensor<4xf32>, i64, i64)
^done:
  vm.if %even : i64, ^twice, ^once
^twice:
  %t = vm.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !vm.storage
  %d = vm.alloc_tensor %t {offset = 0 : i64} : tensor<4xf32>
  vm.invoke_packed @double ins(%v : tensor<4xf32>) outs(%d : tensor<4xf32>)
  vm.ret %d : tensor<4xf32>
^once:
  vm.ret %v : tensor<4xf32>
}
vm.func @step(%v: tensor<4xf32>) -> tensor<4xf32> {
  %s = vm.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !vm.storage
  %n = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  vm.invoke_packed @add_one ins(%v : tensor<4xf32>) outs(%n : tensor<4xf32>)
  vm.ret %n : tensor<4xf32>
}
"""

# ADTs, shapes and a run-time shape: the tuple (x, x + 1) is built, its
# fields read back; shape_of and reshape_tensor view x as 2x2; a storage
# of run-time size holds a tensor whose shape is a shape register.
ADT_AND_SHAPES = """
vm.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, i64, tensor<1xi64>, tensor<?xf32>) {
  %s = vm.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !vm.storage
  %y = vm.alloc_tensor %s {offset = 0 : i64} : tensor<4xf32>
  vm.invoke_packed @add_one ins(%x : tensor<4xf32>) outs(%y : tensor<4xf32>)
  %t = vm.alloc_adt 3 (%x, %y : tensor<4xf32>, tensor<4xf32>) : !vm.adt
  %f = vm.get_field %t, 1 : tensor<4xf32>
  %tag = vm.get_tag %t : i64
  %r = vm.reshape_tensor %f : tensor<4xf32> -> tensor<2x2xf32>
  %shape = vm.shape_of %x : tensor<4xf32> -> tensor<1xi64>
  %n = vm.load_consti 16 : i64
  %d = vm.alloc_storage %n : i64 {alignment = 64 : i64} : !vm.storage
  %z = vm.alloc_tensor %d shape(%shape : tensor<1xi64>) {offset = 0 : i64} : tensor<?xf32>
  %zz = vm.reshape_tensor %z shape(%shape : tensor<1xi64>) : tensor<?xf32> -> tensor<?xf32>
  vm.kill %y : tensor<4xf32>
  vm.ret %f, %r, %tag, %shape, %zz : tensor<4xf32>, tensor<2x2xf32>, i64, tensor<1xi64>, tensor<?xf32>
}
"""

# A kernel called on a tensor of the wrong shape: the kernel's own check
# fails, and the VM names the instruction.
BAD_KERNEL_CALL = """
vm.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = vm.alloc_storage {size = 32 : i64, alignment = 64 : i64} : !vm.storage
  %y = vm.alloc_tensor %s {offset = 0 : i64} : tensor<8xf32>
  %x4 = vm.reshape_tensor %x : tensor<8xf32> -> tensor<2x4xf32>
  %y4 = vm.reshape_tensor %y : tensor<8xf32> -> tensor<2x4xf32>
  vm.invoke_packed @add_one ins(%x4 : tensor<2x4xf32>) outs(%y4 : tensor<2x4xf32>)
  vm.ret %y : tensor<8xf32>
}
"""

# A shape register that does not fit the storage.
BAD_SHAPE = """
vm.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = vm.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !vm.storage
  %shape = vm.shape_of %x : tensor<?xf32> -> tensor<1xi64>
  %y = vm.alloc_tensor %s shape(%shape : tensor<1xi64>) {offset = 0 : i64} : tensor<?xf32>
  vm.ret %y : tensor<?xf32>
}
"""


def compile_vm(text: str) -> VirtualMachine:
    module = parse_module(KERNELS + text, "<test>", mlir_context())
    exe = xtvm.build(module)  # a vm-stage module selects the VM
    return VirtualMachine(exe, xtvm.cpu(0))


@pytest.fixture(scope="module")
def loop_vm():
    return compile_vm(LOOP)


@pytest.mark.parametrize("start, limit", [(0.0, 5.0), (0.0, 4.0), (10.0, 3.0), (-2.5, 1.0)])
def test_loop_with_branches(loop_vm, start, limit):
    x = np.array([start, 1.0, 2.0, 3.0], np.float32)
    y = loop_vm.invoke("main", x, np.array([limit], np.float32)).numpy()
    v, steps = x.copy(), 0
    while v[0] < limit:
        v, steps = v + 1, steps + 1
    expected = v * 2 if steps % 2 else v
    np.testing.assert_array_equal(y, expected)


def test_adts_shapes_and_runtime_sizes():
    vm = compile_vm(ADT_AND_SHAPES)
    x = np.arange(4, dtype=np.float32)
    f, r, tag, shape, z = vm.invoke("main", x)
    np.testing.assert_array_equal(f.numpy(), x + 1)
    np.testing.assert_array_equal(r.numpy(), (x + 1).reshape(2, 2))
    assert tag == 3
    np.testing.assert_array_equal(shape.numpy(), [4])
    assert z.shape == (4,)


def test_kernel_error_names_the_instruction():
    vm = compile_vm(BAD_KERNEL_CALL)
    with pytest.raises(XTVMError, match=r"VM @main instruction #4 \(vm.invoke_packed @add_one\): add_one: argument 'x'"):
        vm.invoke("main", np.zeros(8, np.float32))


def test_bad_runtime_shape_names_the_instruction():
    vm = compile_vm(BAD_SHAPE)
    np.testing.assert_array_equal(vm.invoke("main", np.zeros(4, np.float32)).shape, (4,))
    with pytest.raises(
        XTVMError,
        match=r"VM @main instruction #2 \(vm.alloc_tensor\): alloc_tensor: \(5,\) float32 at offset 0 needs 20 bytes, the storage has 16",
    ):
        vm.invoke("main", np.zeros(5, np.float32))
    with pytest.raises(XTVMError, match=r"input 'x' expects \(\?,\) float32, got \(2, 2\) float32"):
        vm.invoke("main", np.zeros((2, 2), np.float32))


RECURSION = """
vm.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = vm.invoke @main(%x) : (tensor<4xf32>) -> tensor<4xf32>
  vm.ret %y : tensor<4xf32>
}
"""


def test_unbounded_recursion_is_an_error():
    vm = compile_vm(RECURSION)
    with pytest.raises(XTVMError, match=r"instruction #0 \(vm.invoke @main\): .*nest too deeply"):
        vm.invoke("main", np.zeros(4, np.float32))


def test_a_vm_belongs_to_one_thread(loop_vm):
    import threading

    args = (np.zeros(4, np.float32), np.array([1.0], np.float32))
    loop_vm.invoke("main", *args)
    errors = []

    def other() -> None:
        try:
            loop_vm.invoke("main", *args)
        except XTVMError as err:
            errors.append(str(err))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert errors and "belongs to another thread" in errors[0]


TUPLE_INPUT = """
vm.func @main(%t: !vm.adt) -> (tensor<4xf32>, i64) {
  %a = vm.get_field %t, 1 : tensor<4xf32>
  %k = vm.get_tag %t : i64
  vm.ret %a, %k : tensor<4xf32>, i64
}
"""


def test_tuple_input_and_scalar_result():
    vm = compile_vm(TUPLE_INPUT)
    a, tag = vm.invoke("main", (np.zeros(2, np.float32), np.arange(4, dtype=np.float32)))
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    assert tag == 0
    with pytest.raises(XTVMError, match="input 't' expects a tuple"):
        vm.invoke("main", np.zeros(4, np.float32))
