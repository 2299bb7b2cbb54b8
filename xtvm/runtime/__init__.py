"""xtvm's runtime: NDArrays, PackedFuncs, Modules, the graph executor and the VM (TVM's `tvm.runtime`).

It imports nothing else of xtvm (only NumPy, ctypes and the standard
library), so loading and running an exported artifact needs no compiler:

    from xtvm import runtime
    factory = runtime.load_module("model.so")
    gmod = factory["default"](runtime.cpu(0))
    gmod["set_input"](0, data); gmod["run"](); out = gmod["get_output"](0).numpy()

The binary interface it relies on is docs/abi.md.
"""

from xtvm.runtime import graph_executor, ndarray
from xtvm.runtime.base import XTVMError
from xtvm.runtime.metadata import (
    load_param_dict,
    pack_metadata,
    save_param_dict,
    unpack_metadata,
)
from xtvm.runtime.module import Module, NativeModule, load_module
from xtvm.runtime import vm  # the VM executor (after module: it builds on it)
from xtvm.runtime.ndarray import Device, NDArray, cpu, device
from xtvm.runtime.packed_func import (
    KernelFunc,
    PackedFunc,
    PyFunc,
    get_global_func,
    list_global_func_names,
    register_func,
    remove_global_func,
)
from xtvm.runtime.profiling import BenchmarkResult
from xtvm.runtime.threads import get_num_threads, set_num_threads

__all__ = [
    "BenchmarkResult",
    "Device",
    "KernelFunc",
    "Module",
    "NDArray",
    "NativeModule",
    "PackedFunc",
    "PyFunc",
    "XTVMError",
    "cpu",
    "device",
    "get_global_func",
    "get_num_threads",
    "graph_executor",
    "list_global_func_names",
    "load_module",
    "load_param_dict",
    "ndarray",
    "pack_metadata",
    "register_func",
    "remove_global_func",
    "save_param_dict",
    "set_num_threads",
    "unpack_metadata",
    "vm",
]
