"""Modules: lookup, loading errors, JIT-style modules, export, time evaluator, threads."""

import ctypes
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from native_kernels import FUNCTIONS, P0, build_library

from xtvm import runtime
from xtvm.runtime import Module, XTVMError, cpu, load_module
from xtvm.runtime.ndarray import array, empty


def test_library_module(kernels, kernel_lib_path):
    assert kernels.type_key == "library"
    assert sorted(kernels.function_names()) == ["add", "addone", "positive"]
    assert kernels.get_function("add") is kernels["add"]
    assert kernels.implements_function("addone")
    assert kernels.graph_json is None and kernels.params == {}
    assert Module.from_library(kernel_lib_path).type_key == "library"


def test_missing_function(kernels):
    assert not kernels.implements_function("missing")
    with pytest.raises(
        XTVMError, match=r"has no function 'missing'; available: add, addone, positive"
    ):
        kernels["missing"]
    # Only functions described by the metadata are exposed, not every symbol.
    with pytest.raises(XTVMError, match="no function 'xtvm_set_num_threads'"):
        kernels["xtvm_set_num_threads"]


def test_imports(kernels):
    holder = runtime.graph_executor.create(
        '{"nodes": [], "arg_nodes": [], "heads": [], "node_row_ptr": [0], '
        '"attrs": {"shape": ["list_shape", []], "dltype": ["list_str", []], '
        '"storage_id": ["list_int", []]}}',
        kernels,
        cpu(0),
    )
    holder.import_module(kernels)
    assert holder.imported_modules == [kernels]
    with pytest.raises(XTVMError, match="no function 'add'"):
        holder.get_function("add")
    assert holder.get_function("add", query_imports=True) is kernels["add"]
    with pytest.raises(XTVMError, match="expected a Module"):
        holder.import_module("add")


def test_load_errors(tmp_path, has_cc):
    with pytest.raises(XTVMError, match=r"cannot load module '.*nope.so': no such file"):
        load_module(tmp_path / "nope.so")
    text = tmp_path / "text.so"
    text.write_text("hello")
    with pytest.raises(XTVMError, match="not an ELF shared library"):
        load_module(text)
    (tmp_path / "plain.c").write_text("int f(void) { return 0; }\n")
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", "plain.so", "plain.c"], cwd=tmp_path, check=True
    )
    with pytest.raises(XTVMError, match="not an xtvm library: it does not define __xtvm_metadata"):
        load_module(tmp_path / "plain.so")


def test_jit_style_module_and_export(tmp_path, kernel_lib_path):
    lib = ctypes.CDLL(str(kernel_lib_path))
    addresses = {name: ctypes.cast(lib[name], ctypes.c_void_p).value for name in FUNCTIONS}
    exported = []

    def exporter(path):
        exported.append(path)
        shutil.copyfile(kernel_lib_path, path)

    header = {"functions": FUNCTIONS, "graph_json": None}
    mod = Module.from_addresses(addresses, header, {}, lib, exporter)
    assert mod.type_key == "llvm"
    out = empty(4)
    mod["addone"](array(np.ones(4, "float32")), out)
    assert (out.numpy() == 2).all()
    mod.export_library(tmp_path / "jit.so")
    assert exported == [str(tmp_path / "jit.so")]
    assert sorted(load_module(tmp_path / "jit.so").function_names()) == sorted(FUNCTIONS)
    with pytest.raises(XTVMError, match="no address for function"):
        Module.from_addresses({}, header, {}, lib)
    no_exporter = Module.from_addresses(addresses, header, {}, lib)
    with pytest.raises(XTVMError, match="has no way to be exported"):
        no_exporter.export_library(tmp_path / "x.so")


def test_export_and_load_in_fresh_process(tmp_path, factory_lib_path):
    factory = load_module(factory_lib_path)
    assert factory.type_key == "GraphExecutorFactory"
    target = tmp_path / "model.so"
    factory.export_library(target)
    script = (
        "import numpy as np\n"
        "from xtvm.runtime import load_module, cpu\n"
        f"gmod = load_module({str(target)!r})['default'](cpu(0))\n"
        "gmod['set_input'](0, np.arange(4, dtype='float32'))\n"
        "gmod['run']()\n"
        "print(gmod['get_output'](1).numpy().tolist())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    expected = 2 * (np.arange(4) + P0 + 1)
    assert result.stdout.strip() == str(expected.tolist())


def test_time_evaluator(kernels):
    a, b = array(np.ones(4, "float32")), empty(4)
    timer = kernels.time_evaluator("addone", cpu(0), number=5, repeat=3)
    result = timer(a, b)
    assert len(result.results) == 3 and all(t > 0 for t in result.results)
    assert result.mean > 0 and result.min <= result.median <= result.max
    start = time.perf_counter()
    kernels.time_evaluator("addone", cpu(0), number=1, repeat=2, min_repeat_ms=5)(a, b)
    assert time.perf_counter() - start >= 0.01  # `number` grew until each repeat took 5 ms
    with pytest.raises(XTVMError, match="must be >= 1"):
        kernels.time_evaluator("addone", cpu(0), number=0)


def test_num_threads_reaches_the_library(tmp_path, has_cc, monkeypatch):
    header = {"functions": FUNCTIONS, "graph_json": None}
    path = build_library(tmp_path, header, {"p0": P0}, name="threads.so")
    mod = load_module(path)
    seen = ctypes.c_int32.in_dll(ctypes.CDLL(str(path)), "xtvm_test_num_threads")
    old = runtime.threads._explicit
    try:
        runtime.set_num_threads(3)
        assert runtime.get_num_threads() == 3 and seen.value == 3
        runtime.threads._explicit = None
        monkeypatch.setenv("XTVM_NUM_THREADS", "5")
        assert runtime.get_num_threads() == 5
        runtime.threads.apply(mod)
        assert seen.value == 5
        monkeypatch.setenv("XTVM_NUM_THREADS", "many")
        with pytest.raises(XTVMError, match="XTVM_NUM_THREADS must be a positive integer"):
            runtime.get_num_threads()
        with pytest.raises(XTVMError, match="positive integer"):
            runtime.set_num_threads(0)
    finally:
        runtime.threads._explicit = old


def test_runtime_imports_nothing_else_of_xtvm():
    script = (
        "import sys, xtvm.runtime, xtvm.nd\n"
        "bad = [m for m in sys.modules if m.startswith('xtvm.') and not "
        "m.startswith(('xtvm.runtime', 'xtvm.nd'))]\n"
        "assert not bad, bad\n"
        "assert 'xdsl' not in sys.modules and 'llvmlite' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_xtvm_package_imports_runtime_lazily():
    script = (
        "import sys, xtvm\n"
        "assert 'xtvm.runtime' not in sys.modules\n"
        "assert xtvm.nd.array([1.0]).dtype == 'float64'\n"
        "assert str(xtvm.cpu(0)) == str(xtvm.device('cpu')) == 'cpu(0)'\n"
        "assert xtvm.runtime.XTVMError is xtvm.runtime.base.XTVMError\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
