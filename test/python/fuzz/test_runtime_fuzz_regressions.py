"""Regressions the runtime fuzzer found (``python -m xtvm.testing.fuzz runtime``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xtvm.runtime import XTVMError, cpu, load_module
from xtvm.runtime.ndarray import array as nd_array
from xtvm.testing.fuzz.runtime import prepare


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    return Path(prepare(tmp_path_factory.mktemp("fuzz-runtime"))["dir"])


@pytest.mark.parametrize("out", ["out", 3, np.zeros((2, 4), "float32")])
def test_get_output_and_get_input_refuse_an_out_that_is_not_an_ndarray(
    artifacts: Path, out
) -> None:
    # runtime-002 of seed 1: get_output(0, "out") raised AttributeError ('str' has no copyfrom)
    gmod = load_module(artifacts / "model.so")["default"](cpu(0))
    with pytest.raises(XTVMError, match="get_output: 'out' must be an NDArray"):
        gmod.get_output(0, out)
    with pytest.raises(XTVMError, match="get_input: 'out' must be an NDArray"):
        gmod.get_input(0, out)
    copy = nd_array(np.zeros((2, 4), "float32"))
    assert gmod.get_output(0, copy) is copy


def _phdr(index: int, field: int) -> int:
    """The file offset of program header ``index``'s field at byte ``field``
    (0 type, 4 flags, 8 offset, 16 vaddr, 32 filesz, 40 memsz, 48 align)."""
    return 64 + 56 * index + field


def _load_indices(data: bytes) -> list[int]:
    import struct

    phnum = struct.unpack_from("<H", data, 56)[0]
    return [i for i in range(phnum) if struct.unpack_from("<I", data, _phdr(i, 0))[0] == 1]


def _metadata_size_offset(data: bytes) -> int:
    import struct

    from xtvm.runtime.elf import _dynamic_symbols

    shoff = struct.unpack_from("<Q", data, 40)[0]
    shnum = struct.unpack_from("<H", data, 60)[0]
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
    address = _dynamic_symbols(data, sections)[b"__xtvm_metadata_size"][0]
    for i in _load_indices(data):
        offset, vaddr, _, filesz = struct.unpack_from("<QQQQ", data, _phdr(i, 8))
        if vaddr <= address < vaddr + filesz:
            return offset + address - vaddr
    raise AssertionError("no segment holds __xtvm_metadata_size")


def _damage(data: bytearray, kind: str) -> None:
    loads = _load_indices(bytes(data))
    if kind == "a-load-segment-becomes-null":  # runtime fuzzer, seed 49: SIGSEGV in dlopen
        data[_phdr(loads[1], 0)] = 0
    elif kind == "unknown-segment-type":  # seed 1080542040: byte 66 (type of phdr 0) set to 87
        data[_phdr(0, 2)] = 87
    elif kind == "a-segment-moved":  # seed 33: a byte of a segment's vaddr
        data[_phdr(loads[-1], 16) + 5] = 0xA6
    elif kind == "a-segment-grown":  # seed 111: a byte of a segment's memsz
        data[_phdr(loads[1], 40) + 3] = 0xFF
    elif kind == "code-not-executable":
        import struct

        executable = next(i for i in loads if struct.unpack_from("<I", data, _phdr(i, 4))[0] & 1)
        data[_phdr(executable, 4)] &= ~1
    elif kind == "headers-not-readable":  # seed 14: byte 68 (flags of phdr 0) 4 -> 0, SIGSEGV
        data[_phdr(loads[0], 4)] &= ~4  # the segment of .dynsym/.dynstr loses PF_R
    elif kind == "metadata-size-too-large":  # seeds 34, 76: MemoryError, or a read past the blob
        data[_metadata_size_offset(bytes(data)) + 4] = 0x10
    elif kind == "metadata-size-a-little-too-large":
        at = _metadata_size_offset(bytes(data))
        data[at + 2] = (data[at + 2] + 1) & 0xFF


@pytest.mark.parametrize(
    "kind",
    [
        "a-load-segment-becomes-null",
        "unknown-segment-type",
        "a-segment-moved",
        "a-segment-grown",
        "code-not-executable",
        "headers-not-readable",
        "metadata-size-too-large",
        "metadata-size-a-little-too-large",
    ],
)
def test_a_library_with_damaged_headers_is_an_error_not_a_crash(
    artifacts: Path, tmp_path: Path, kind
) -> None:
    import subprocess
    import sys

    data = bytearray((artifacts / "model.so").read_bytes())
    _damage(data, kind)
    damaged = tmp_path / "damaged.so"
    damaged.write_bytes(bytes(data))
    script = (
        "import sys\nfrom xtvm.runtime import load_module, XTVMError\n"
        "try:\n    load_module(sys.argv[1])\nexcept XTVMError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", script, damaged], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "cannot load module" in result.stdout and "damaged" in result.stdout, result.stdout
