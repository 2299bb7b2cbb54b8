"""ONNX models through the VM: the same outputs as the graph executor and
onnxruntime, via invoke and via set_input/run/get_output; the executable
saved and loaded again (in a fresh process too); bad inputs and damaged
executables are clear errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xtvm
from xtvm.runtime import XTVMError
from xtvm.runtime.vm import Executable, VirtualMachine

from vm_models import conv_model, mlp_model, onnxruntime_outputs


def graph_outputs(lib, x: np.ndarray) -> list[np.ndarray]:
    g = lib["default"](xtvm.cpu(0))
    g.set_input(0, x)
    g.run()
    return [g.get_output(i).numpy() for i in range(g.get_num_outputs())]


def test_mlp_equals_graph_executor_and_onnxruntime(mlp_exe):
    exe, lib = mlp_exe
    x = np.random.default_rng(2).standard_normal((2, 16)).astype(np.float32)
    vm = VirtualMachine(exe, xtvm.cpu(0))
    probs, logits = vm.invoke("main", x)
    ref = onnxruntime_outputs(mlp_model(), {"x": x})
    np.testing.assert_allclose(probs.numpy(), ref[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(logits.numpy(), ref[1], rtol=1e-5, atol=1e-5)
    for out, g in zip((probs, logits), graph_outputs(lib, x)):
        np.testing.assert_array_equal(out.numpy(), g)


def test_set_input_run_get_output(mlp_exe):
    exe, _ = mlp_exe
    vm = VirtualMachine(exe, xtvm.cpu(0))
    x = np.random.default_rng(3).standard_normal((2, 16)).astype(np.float32)
    vm.set_input("x", x)
    vm.run()
    first = vm.get_output("probs").numpy()
    np.testing.assert_allclose(first, onnxruntime_outputs(mlp_model(), {"x": x})[0], rtol=1e-5, atol=1e-6)
    assert vm.get_num_outputs() == 2 and vm.output_names == ["probs", "logits"]
    assert vm.get_input_info() == ({"x": (2, 16)}, {"x": "float32"})
    # As the graph executor's, get_output's array is rewritten by the next run.
    kept = vm.get_output(0)
    vm.run(x=x * 2)
    assert not np.array_equal(vm.get_output(0).numpy(), first)
    np.testing.assert_array_equal(kept.numpy(), vm.get_output(0).numpy())


def test_invoke_results_are_the_callers(mlp_exe):
    exe, _ = mlp_exe
    vm = VirtualMachine(exe, xtvm.cpu(0))
    x = np.random.default_rng(7).standard_normal((2, 16)).astype(np.float32)
    first = vm.invoke("main", x)
    copy = [a.numpy() for a in first]
    vm.set_input("x", x * 3)
    vm.run()
    second = vm.invoke("main", x * 2)
    for kept, value, other in zip(first, copy, second):
        np.testing.assert_array_equal(kept.numpy(), value)
        assert not np.array_equal(other.numpy(), value)


def test_conv_net_equals_onnxruntime(conv_exe):
    exe, lib = conv_exe
    x = np.random.default_rng(4).standard_normal((1, 3, 16, 16)).astype(np.float32)
    out = VirtualMachine(exe, xtvm.cpu(0)).invoke("main", x).numpy()
    (ref,) = onnxruntime_outputs(conv_model(), {"x": x})
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(out, graph_outputs(lib, x)[0])


def test_wrong_inputs_name_the_input(mlp_exe):
    exe, _ = mlp_exe
    vm = VirtualMachine(exe, xtvm.cpu(0))
    with pytest.raises(XTVMError, match=r"input 'x' expects \(2, 16\) float32, got \(2, 15\) float32"):
        vm.invoke("main", np.zeros((2, 15), np.float32))
    with pytest.raises(XTVMError, match=r"input 'x' expects \(2, 16\) float32, got \(2, 16\) float64"):
        vm.set_input("x", np.zeros((2, 16)))
    with pytest.raises(XTVMError, match="no input named 'y'; inputs: x"):
        vm.set_input("y", np.zeros((2, 16), np.float32))
    with pytest.raises(XTVMError, match=r"@main takes 1 argument\(s\) \(x\), got 2"):
        vm.invoke("main", np.zeros((2, 16), np.float32), np.zeros((2, 16), np.float32))
    with pytest.raises(XTVMError, match="no function 'mian'; functions: main"):
        vm.invoke("mian")
    with pytest.raises(XTVMError, match=r"input\(s\) x not set"):
        VirtualMachine(exe, xtvm.cpu(0)).run()


def test_save_and_load_exec(mlp_exe):
    exe, _ = mlp_exe
    x = np.random.default_rng(5).standard_normal((2, 16)).astype(np.float32)
    expected = VirtualMachine(exe, xtvm.cpu(0)).invoke("main", x)[0].numpy()
    blob = exe.save()
    assert blob[:8] == b"XTVMVMEX"
    again = Executable.load_exec(blob, exe.lib)
    np.testing.assert_array_equal(VirtualMachine(again, xtvm.cpu(0)).invoke("main", x)[0].numpy(), expected)


def test_damaged_executables_are_clear_errors(mlp_exe):
    exe, _ = mlp_exe
    blob = exe.save()
    with pytest.raises(XTVMError, match="truncated"):
        Executable.load_exec(blob[:-7], exe.lib)
    with pytest.raises(XTVMError, match="shorter than the 64-byte prefix"):
        Executable.load_exec(blob[:20], exe.lib)
    with pytest.raises(XTVMError, match="not an xtvm VM executable"):
        Executable.load_exec(b"\x7fELF" + bytes(100), exe.lib)
    with pytest.raises(XTVMError, match="format version 7, this runtime reads version 1"):
        Executable.load_exec(blob[:8] + (7).to_bytes(4, "little") + blob[12:], exe.lib)
    flipped = bytearray(blob)
    flipped[100] ^= 0x20  # inside the JSON header
    with pytest.raises(XTVMError, match="header is damaged"):
        Executable.load_exec(bytes(flipped), exe.lib)


def test_executable_with_another_library_is_an_error(mlp_exe, conv_exe):
    exe, _ = mlp_exe
    other, _ = conv_exe
    with pytest.raises(XTVMError, match="the kernel library does not define fused_"):
        Executable.load_exec(exe.save(), other.lib)


def test_exported_library_runs_in_a_fresh_process(mlp_exe, tmp_path):
    exe, _ = mlp_exe
    x = np.random.default_rng(6).standard_normal((2, 16)).astype(np.float32)
    expected = VirtualMachine(exe, xtvm.cpu(0)).invoke("main", x)
    so, exe_file = tmp_path / "mlp_vm.so", tmp_path / "mlp.vmexe"
    exe.export_library(str(so))
    exe_file.write_bytes(exe.save())
    np.save(tmp_path / "x.npy", x)
    script = textwrap.dedent(
        f"""
        import numpy as np
        from xtvm.runtime import cpu, load_module
        from xtvm.runtime.vm import Executable, VirtualMachine
        x = np.load({str(tmp_path / "x.npy")!r})
        lib = load_module({str(so)!r})
        a = VirtualMachine(lib, cpu(0)).invoke("main", x)            # the executable inside the .so
        exe = Executable.load_exec(open({str(exe_file)!r}, "rb").read(), lib)  # saved bytes + library
        b = VirtualMachine(exe, cpu(0)).invoke("main", x)
        np.savez({str(tmp_path / "out.npz")!r}, a0=a[0].numpy(), a1=a[1].numpy(), b0=b[0].numpy())
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    out = np.load(tmp_path / "out.npz")
    np.testing.assert_array_equal(out["a0"], expected[0].numpy())
    np.testing.assert_array_equal(out["a1"], expected[1].numpy())
    np.testing.assert_array_equal(out["b0"], expected[0].numpy())


def test_inconsistent_bytecode_is_refused(mlp_exe):
    """An executable whose header is intact (digest and all) but whose code
    contradicts itself is refused when loaded, before anything runs."""
    from xtvm.runtime.vm.executable import Function

    exe, _ = mlp_exe
    main = exe.functions[0]
    bad_ret = [*main.code[:-1], ["ret", []]]
    with pytest.raises(XTVMError, match=r"instruction #\d+ \('ret'\): returns 0 value\(s\), @main returns 2"):
        Executable([Function("main", main.params, main.results, main.num_registers, bad_ret, [])], exe.constants, exe.kernels, exe.lib)
    bad_reg = [["move", 0, main.num_registers], *main.code]
    with pytest.raises(XTVMError, match=r"instruction #0 \('move'\): bad reg operand"):
        Executable([Function("main", main.params, main.results, main.num_registers, bad_reg, [])], exe.constants, exe.kernels, exe.lib)
    with pytest.raises(XTVMError, match="unknown opcode"):
        Executable([Function("main", main.params, main.results, main.num_registers, [["jump", 0]], [])], [], [], exe.lib)


def test_bytecode_text(mlp_exe):
    exe, _ = mlp_exe
    text = exe.bytecode
    assert text.splitlines()[0] == f"VM function @main(r0:x) registers={exe.functions[0].num_registers}"
    calls = [line for line in text.splitlines() if ": invoke_packed " in line]
    assert len(calls) == len(exe.kernels) and all("; vm.invoke_packed @fused_" in c for c in calls)
    assert text.splitlines()[-2] == "kernels: " + ", ".join(exe.kernels)


def test_flipped_bytes_never_crash(mlp_exe):
    """Any one damaged byte of a saved executable is a load error, or (in the
    constants, which no digest covers, as a library's weights) a run with
    other numbers: never a crash or another exception."""
    exe, _ = mlp_exe
    blob = exe.save()
    x = np.zeros((2, 16), np.float32)
    rng = np.random.default_rng(0)
    loaded = 0
    for pos in rng.integers(0, len(blob), 200):
        damaged = bytearray(blob)
        damaged[pos] ^= 1 << int(rng.integers(0, 8))
        try:
            again = Executable.load_exec(bytes(damaged), exe.lib)
        except XTVMError:
            continue
        loaded += 1
        try:
            VirtualMachine(again, xtvm.cpu(0)).invoke("main", x)
        except XTVMError:
            pass
    assert loaded < 200  # most flips land in the checked prefix, header or padding
