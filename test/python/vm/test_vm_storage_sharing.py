"""Storage sharing for tensors of run-time shape (``vm-share-dynamic-storage``,
``xtvm/lowering/memory_to_vm/share_storage.py``): the dynamic transformer
allocates far fewer run-time storages than it has dynamic tensors, and gives
onnxruntime's outputs at lengths that grow and shrink from call to call (a
kept storage is reallocated for a new size, and the tensors sharing it must
still fit)."""

import sys
from pathlib import Path

import numpy as np
from vm_models import onnxruntime_outputs

import xtvm
from xtvm.frontend import from_onnx
from xtvm.runtime.vm import VirtualMachine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from make_transformer import make_transformer


def _build(model, disabled: list[str]):
    mod, params = from_onnx(model, shape={"ids": (1, None)})
    with xtvm.transform.PassContext(opt_level=3, disabled_pass=disabled):
        return xtvm.build(mod, params=params)


def _count(exe, opcode: str) -> int:
    return sum(1 for ins in exe.functions[0].code if ins[0] == opcode)


def test_transformer_shares_dynamic_storage():
    model = make_transformer()
    exe = _build(model, [])
    unshared = _build(model, ["vm-share-dynamic-storage"])
    tensors = _count(unshared, "alloc_storage_shape")
    assert _count(unshared, "alloc_tensor") == _count(exe, "alloc_tensor")
    assert _count(exe, "alloc_storage_shape") * 3 < tensors  # 10 storages for 47 tensors
    vm = VirtualMachine(exe, xtvm.cpu(0))
    for length in (64, 7, 128, 7, 1):
        ids = np.random.default_rng(length).integers(0, 1000, (1, length)).astype(np.int64)
        out = vm.invoke("main", ids).numpy()
        (ref,) = onnxruntime_outputs(model, {"ids": ids})
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
