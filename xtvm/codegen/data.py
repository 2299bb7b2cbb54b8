"""The data of an llvm-dialect module — constant weights, zeroed workspaces and
the metadata — and how it reaches native code without passing through LLVM IR
text.

A ResNet-50's 100 MB of weights as LLVM IR constants would cost seconds to
print, parse and assemble. So before translation every ``llvm.mlir.global``
holding a dense array (a constant) or a ``llvm.mlir.zero`` initializer (a
workspace) becomes an external declaration, and its bytes travel beside the
code: the JIT places them in aligned memory and tells LLVM their addresses;
an exported library gets them from an assembler file (``.incbin`` into
``.rodata``, ``.zero`` into ``.bss``). The metadata global is small and stays
in the IR.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import platform
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)

from xtvm.constants import dense_from_numpy


@dataclass(frozen=True)
class DataGlobal:
    """One global's bytes: ``data`` (None: ``size`` zero bytes), its alignment,
    and whether it is read-only."""

    name: str
    data: bytes | memoryview | None
    size: int
    alignment: int
    constant: bool


def _is_zero_initialized(op: llvm.GlobalOp) -> bool:
    block = op.body.blocks[0] if op.body.blocks else None
    return block is not None and any(isinstance(o, llvm.ZeroOp) for o in block.ops)


def is_data_global(op: llvm.GlobalOp) -> bool:
    """Whether the global is data (a dense constant or a zeroed workspace)."""
    return isinstance(op.value, DenseIntOrFPElementsAttr) or (
        op.value is None and _is_zero_initialized(op)
    )


def data_global(op: llvm.GlobalOp) -> DataGlobal | None:
    """The global's bytes if it is data (see :func:`is_data_global`), else None."""
    align = op.alignment.value.data if op.alignment is not None else 1
    if isinstance(op.value, DenseIntOrFPElementsAttr):
        raw = op.value.data.data
        return DataGlobal(op.sym_name.data, raw, len(raw), align, op.constant is not None)
    if op.value is None and _is_zero_initialized(op):
        ty = op.global_type
        assert isinstance(ty, llvm.LLVMArrayType) and ty.type == IntegerType(8)
        return DataGlobal(op.sym_name.data, None, ty.size.data, align, False)
    return None


def data_globals(module: ModuleOp) -> list[DataGlobal]:
    """The data of ``module``'s data globals (the module is left as it is)."""
    found = (data_global(op) for op in module.ops if isinstance(op, llvm.GlobalOp))
    return [item for item in found if item is not None]


def split_data(module: ModuleOp) -> tuple[ModuleOp, list[DataGlobal]]:
    """A copy of ``module`` whose data globals are external declarations, and
    the data itself."""
    module = module.clone()
    data: list[DataGlobal] = []
    for op in list(module.ops):
        if not isinstance(op, llvm.GlobalOp) or (item := data_global(op)) is None:
            continue
        data.append(item)
        decl = llvm.GlobalOp(op.global_type, op.sym_name, "external")
        module.body.block.insert_op_before(decl, op)
        op.detach()
        op.erase()
    return module, data


def read_metadata(module: ModuleOp) -> dict[str, Any] | None:
    """The JSON header of ``@__xtvm_metadata``, if the module has one."""
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp) and op.sym_name.data == "__xtvm_metadata":
            assert isinstance(op.value, StringAttr)
            return json.loads(op.value.data)
    return None


def embed_header(
    module: ModuleOp, header: Mapping[str, Any], params: Mapping[str, np.ndarray]
) -> ModuleOp:
    """A copy of a kernels-only module with ``header`` (``functions``,
    ``graph_json``) and ``params`` embedded as ``llvm-embed-metadata`` and
    ``convert-memory-to-llvm`` would have: for callers that build the
    metadata by hand (tests, hand-written kernels)."""
    from xtvm.lowering.memory_to_llvm.convert_memory_to_llvm import const_symbol
    from xtvm.lowering.memory_to_llvm.embed_metadata import metadata_globals
    from xtvm.runtime.metadata import pack_header

    module = module.clone()
    table: dict[str, dict] = {}
    for name, value in params.items():
        array = np.ascontiguousarray(np.asarray(value))
        symbol = const_symbol(name)
        flat = dense_from_numpy(array.reshape(-1) if array.size else np.zeros(1, array.dtype))
        element = flat.get_element_type()
        module.body.block.add_op(
            llvm.GlobalOp(
                llvm.LLVMArrayType(max(array.size, 1), element),
                symbol,
                "external",
                constant=True,
                value=flat,
                alignment=64,
            )
        )
        table[name] = {
            "shape": list(array.shape),
            "dtype": array.dtype.name,
            "symbol": symbol,
        }
    module.body.block.add_ops(metadata_globals(pack_header({**header, "params": table})))
    return module


class PlacedData:
    """The data globals of a JIT module in aligned, process-owned memory, or
    read from the file they were written to (:meth:`mapped`)."""

    def __init__(self, data: list[DataGlobal], consume: bool = False, mirror: bool = False):
        """Copy each global's bytes into aligned memory; with ``consume``, each
        item of ``data`` gives its bytes up once placed (``data`` then names
        the globals only), so the weights are never held twice in full.

        ``mirror=True`` places the constants in one anonymous mapping at
        their offsets in the data file (:func:`data_file_offsets`), so that
        once that file is written :meth:`remap` can swap the memory for the
        file's pages at the same addresses (code compiled against them
        keeps running)."""
        self.arrays: dict[str, np.ndarray] = {}
        self._map: mmap.mmap | None = None
        self._offsets = data_file_offsets(data) if mirror else {}
        end = max((self._offsets[d.name] + d.size for d in data if d.name in self._offsets), default=0)
        if end and _LIBC is not None and max(item.alignment for item in data) <= mmap.PAGESIZE:
            self._map = mmap.mmap(-1, -(-end // mmap.PAGESIZE) * mmap.PAGESIZE, flags=mmap.MAP_PRIVATE)
        region = np.frombuffer(self._map, np.uint8) if self._map is not None else None
        for i, item in enumerate(data):
            view = None
            if region is not None and item.data is not None:
                offset = self._offsets[item.name]
                view = region[offset : offset + item.size]
            self._place(item, consume and item.data is not None and _given_up(item.data), view)
            if consume and item.data is not None:
                data[i] = replace(item, data=b"")

    @classmethod
    def mapped(cls, data: list[DataGlobal], files: DataFiles) -> PlacedData:
        """The data globals with each constant read from ``files`` (written by
        :func:`write_data_files`) through one private mapping of the file:
        a page is read when the code first touches it and, untouched, costs
        the process nothing (file-backed pages not mapped in are not in its
        resident set); a write copies the page (``ACCESS_COPY``). Zeroed
        globals, and a constant aligned beyond a page, are placed in memory."""
        placed = cls([])
        with open(files.blob, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size:
                placed._map = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
        whole = np.frombuffer(placed._map if placed._map is not None else b"", np.uint8)
        for item in data:
            if item.data is None:
                placed._place(item)
                continue
            offset = files.offsets[item.name]
            view = whole[offset : offset + item.size]
            if item.alignment > mmap.PAGESIZE:  # the mapping aligns to a page only
                placed._place(replace(item, data=view.data))
            else:
                placed.arrays[item.name] = view
        return placed

    def _place(self, item: DataGlobal, move: bool = False, view: np.ndarray | None = None) -> None:
        """Put ``item`` in ``view``, else in aligned memory of its own:
        zeroed, copied, or moved (:func:`_move`: ``item.data`` must be given
        up)."""
        if view is None:
            align = max(item.alignment, 64)
            raw = np.empty(item.size + align, np.uint8)
            start = (-raw.ctypes.data) % align
            view = raw[start : start + item.size]
        if item.data is None:
            view[:] = 0
        elif move:
            _move(item.data, view)  # type: ignore[arg-type]
        else:
            view[:] = np.frombuffer(item.data, np.uint8)
        self.arrays[item.name] = view

    def remap(self, files: DataFiles) -> bool:
        """Replace a mirrored placement's pages by a private mapping of
        ``files``' blob at the same addresses (``mmap(MAP_FIXED)``): the
        same bytes, now file-backed, so the placed copy no longer costs
        memory until touched again (a module that ran, then is exported:
        the process does not hold its weights while ``ld`` does). Whether
        it was done (not for a placement that does not mirror the file)."""
        if self._map is None or not self._offsets or files.offsets != self._offsets:
            return False
        region = np.frombuffer(self._map, np.uint8)
        base, size = region.ctypes.data, region.size
        with open(files.blob, "rb") as f:
            if os.fstat(f.fileno()).st_size < size - mmap.PAGESIZE:
                return False
            got = _LIBC.mmap(base, size, _PROT_RW, _MAP_PRIVATE_FIXED, f.fileno(), 0)
        if got != base:
            raise OSError(ctypes.get_errno(), f"remapping the placed data to {files.blob} failed")
        return True

    def address(self, name: str) -> int:
        return self.arrays[name].ctypes.data

    def views(self, data: list[DataGlobal]) -> list[DataGlobal]:
        """``data`` with each constant's bytes read from the placed copy, so
        an exporter holds no second copy of the weights."""
        return [
            item if item.data is None else replace(item, data=memoryview(self.arrays[item.name]))
            for item in data
        ]


MOVE_MIN_BYTES = 1 << 26
"""Constants this large are moved, not copied, into place (:func:`_move`)."""

_MOVE_CHUNK = 1 << 25


def _given_up(raw: bytes | memoryview) -> bool:
    """Whether ``raw`` is a large ``bytes`` object that only the data list
    still holds (the IR that held it is gone, and no caller shares it — a
    weight ``from_onnx`` shares with its parameters has more references), so
    its pages may be released as they are copied."""
    # The references: the DataGlobal's field and this call's argument.
    return isinstance(raw, bytes) and len(raw) >= MOVE_MIN_BYTES and sys.getrefcount(raw) <= 3


def _move(raw: bytes, view: np.ndarray) -> None:
    """Copy ``raw`` into ``view`` a chunk at a time, giving each chunk's whole
    pages back to the system (``madvise(MADV_DONTNEED)``) once copied, so a
    400 MB weight is not held twice while it is placed (VGG-19's first dense
    layer). ``raw`` must be given up (:func:`_given_up`): its contents are
    zeros afterwards, and it is freed when the data list drops it."""
    source = np.frombuffer(raw, np.uint8)
    start, size = source.ctypes.data, len(raw)
    page = mmap.PAGESIZE
    released = -(-start // page) * page  # the first whole page of `raw`
    for offset in range(0, size, _MOVE_CHUNK):
        view[offset : offset + _MOVE_CHUNK] = source[offset : offset + _MOVE_CHUNK]
        end = (start + min(offset + _MOVE_CHUNK, size)) // page * page
        if end > released and _LIBC is not None:
            _LIBC.madvise(ctypes.c_void_p(released), ctypes.c_size_t(end - released), _MADV_DONTNEED)
            released = end


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    libc.mmap.argtypes = (
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long
    )
    libc.mmap.restype = ctypes.c_void_p
    return libc


_LIBC = _libc()
_MADV_DONTNEED = 4
_PROT_RW = mmap.PROT_READ | mmap.PROT_WRITE
_MAP_PRIVATE_FIXED = mmap.MAP_PRIVATE | 0x10  # MAP_FIXED (Linux)


def drop_data_globals(module: ModuleOp) -> None:
    """Erase ``module``'s data globals (their bytes go with them): for a module
    compiled already whose data is placed elsewhere (``jit(consume=True)``)."""
    for op in list(module.ops):
        if isinstance(op, llvm.GlobalOp) and is_data_global(op):
            op.detach()
            op.erase()
            op.properties.clear()  # the bytes go now, not when the collector finds the op


def _layout(data: list[DataGlobal]) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int, int]:
    """Where each global goes: ``(constants, zeroed, constants' size,
    zeroed size)``, each list of ``(index in data, offset)`` (indices, so
    that no reference to the bytes is kept), every offset a multiple of its
    global's alignment and of 64."""
    rodata: list[tuple[int, int]] = []
    bss: list[tuple[int, int]] = []
    ro_size = bss_size = 0
    for i, item in enumerate(data):
        align = max(item.alignment, 64)
        if item.data is None:
            bss_size += (-bss_size) % align
            bss.append((i, bss_size))
            bss_size += item.size
        else:
            ro_size += (-ro_size) % align
            rodata.append((i, ro_size))
            ro_size += item.size
    return rodata, bss, ro_size, bss_size


def _elf_data_offset(data: list[DataGlobal]) -> int:
    """Where the constants start in :func:`write_data_object`'s file."""
    max_align = max([64] + [item.alignment for item in data])
    return (64 + max_align - 1) // max_align * max_align  # after the ELF header


def _elf_platform() -> bool:
    return sys.platform.startswith("linux") and platform.machine() == "x86_64"


def data_file_offsets(data: list[DataGlobal]) -> dict[str, int]:
    """Each constant's offset in the file :func:`write_data_files` writes
    (the same for the same globals): a placement that mirrors them can be
    replaced by a mapping of the file (:meth:`PlacedData.remap`)."""
    base = _elf_data_offset(data) if _elf_platform() else 0
    return {data[i].name: base + offset for i, offset in _layout(data)[0]}


def write_assembly(
    data: list[DataGlobal], asm_path: str, blob_path: str, give_up: bool = False
) -> dict[str, int]:
    """Write the assembler file defining every data global (exported,
    aligned) at ``asm_path`` and the one binary file its ``.incbin``s read at
    ``blob_path``, streaming each constant (no copy of all the data). Returns
    each constant's offset in the binary file (a multiple of its alignment
    and of 64); ``give_up`` as in :func:`write_data_object`."""
    quoted = blob_path.replace('"', '\\"')
    rodata, _, _, _ = _layout(data)
    lines = [line for item in data if item.data is None for line in _bss_lines(item)]
    with open(blob_path, "wb") as blob:
        _write_constants(blob, data, rodata, give_up)
        for i, offset in rodata:
            item = data[i]
            lines += [
                f'    .section .rodata.{item.name},"a",@progbits',
                f"    .globl {item.name}",
                f"    .type {item.name},@object",
                f"    .balign {max(item.alignment, 1)}",
                f"{item.name}:",
                f'    .incbin "{quoted}", {offset}, {item.size}',
                f"    .size {item.name}, {item.size}",
            ]
    lines.append('    .section .note.GNU-stack,"",@progbits')
    with open(asm_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return {data[i].name: offset for i, offset in rodata}


def write_data_object(data: list[DataGlobal], path: str, give_up: bool = False) -> dict[str, int]:
    """Write an x86-64 ELF relocatable object defining every data global
    (exported, aligned): constants in ``.rodata.xtvm``, zeroed ones in
    ``.bss.xtvm``, each constant's bytes written once, straight from memory
    (what :func:`write_assembly` + ``as`` do, without the assembler's copy).
    Returns each constant's offset in the file (a multiple of its alignment
    and of 64, so a page-aligned mapping of the file aligns it).

    ``give_up=True`` replaces each constant of ``data`` by one without its
    bytes (``data=b""``) as soon as they are written, so bytes only the list
    holds are freed while the file grows: the weights are then in the file,
    not in the process (a lazily loaded JIT module's export)."""
    import struct

    rodata, bss, ro_size, bss_size = _layout(data)
    shstrtab = b"\0.rodata.xtvm\0.bss.xtvm\0.symtab\0.strtab\0.shstrtab\0.note.GNU-stack\0"
    strtab = bytearray(b"\0")
    symbols = [bytes(24)]  # the null symbol
    for section, items in ((1, rodata), (2, bss)):
        for i, offset in items:
            item = data[i]
            name = len(strtab)
            strtab += item.name.encode() + b"\0"
            # st_name, st_info (GLOBAL << 4 | OBJECT), st_other, st_shndx, st_value, st_size
            symbols.append(struct.pack("<IBBHQQ", name, 0x11, 0, section, offset, item.size))
    symtab = b"".join(symbols)
    header_size = 64
    max_align = max([64] + [item.alignment for item in data])
    ro_offset = _elf_data_offset(data)
    sym_offset = (ro_offset + ro_size + 7) // 8 * 8
    str_offset = sym_offset + len(symtab)
    shstr_offset = str_offset + len(strtab)
    sh_offset = (shstr_offset + len(shstrtab) + 7) // 8 * 8

    def section(name, kind, flags, offset, size, link=0, info=0, align=1, entsize=0):
        return struct.pack(
            "<IIQQQQIIQQ", name, kind, flags, 0, offset, size, link, info, align, entsize
        )

    names = {n: shstrtab.index(b"\0" + n.encode() + b"\0") + 1 for n in
             (".rodata.xtvm", ".bss.xtvm", ".symtab", ".strtab", ".shstrtab", ".note.GNU-stack")}
    sections = [
        bytes(64),
        section(names[".rodata.xtvm"], 1, 0x2, ro_offset, ro_size, align=max_align),  # A
        section(names[".bss.xtvm"], 8, 0x3, ro_offset, bss_size, align=max_align),  # WA
        # SYMTAB: link to .strtab, info = index of the first global symbol
        section(names[".symtab"], 2, 0, sym_offset, len(symtab), link=4, info=1, align=8,
                entsize=24),
        section(names[".strtab"], 3, 0, str_offset, len(strtab)),
        section(names[".shstrtab"], 3, 0, shstr_offset, len(shstrtab)),
        section(names[".note.GNU-stack"], 1, 0, sh_offset, 0),
    ]
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # 64-bit, little-endian, SysV
    header = ident + struct.pack(
        "<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, sh_offset, 0, 64, 0, 0, 64, len(sections), 5
    )  # ET_REL, EM_X86_64
    item = None  # no reference to the last bytes
    with open(path, "wb") as f:
        f.write(header)
        f.write(bytes(ro_offset - header_size))
        _write_constants(f, data, rodata, give_up)
        f.write(bytes(sym_offset - ro_offset - ro_size))
        f.write(symtab)
        f.write(strtab)
        f.write(shstrtab)
        f.write(bytes(sh_offset - shstr_offset - len(shstrtab)))
        f.write(b"".join(sections))
    return {data[i].name: ro_offset + offset for i, offset in rodata}


def _write_constants(
    f: BinaryIO, data: list[DataGlobal], rodata: list[tuple[int, int]], give_up: bool
) -> None:
    """Write the constants ``rodata`` places (:func:`_layout`) from where
    ``f`` stands, zero-padded to their offsets; with ``give_up``, each
    item of ``data`` gives its bytes up once written."""
    position = 0
    for i, offset in rodata:
        f.write(bytes(offset - position))
        f.write(data[i].data)  # type: ignore[arg-type]
        if give_up:
            data[i] = replace(data[i], data=b"")
        position = offset + data[i].size


@dataclass(frozen=True)
class DataFiles:
    """The data globals written to files once: ``inputs`` are what the link
    takes (an ELF object, or an assembler file), ``blob`` the file holding
    every constant's bytes at ``offsets`` (the object itself, or the binary
    file the assembler file's ``.incbin``s read)."""

    inputs: list[str]
    blob: str
    offsets: dict[str, int]


def write_data_files(data: list[DataGlobal], directory: str, give_up: bool = False) -> DataFiles:
    """Write the data globals into ``directory`` as the link takes them: an
    ELF object on x86-64 Linux (:func:`write_data_object`), else an
    assembler file and its binary file (:func:`write_assembly`);
    ``give_up`` as in :func:`write_data_object`."""
    if _elf_platform():
        path = os.path.join(directory, "data.o")
        return DataFiles([path], path, write_data_object(data, path, give_up))
    asm, blob = os.path.join(directory, "data.s"), os.path.join(directory, "data.bin")
    return DataFiles([asm], blob, write_assembly(data, asm, blob, give_up))


def _bss_lines(item: DataGlobal) -> list[str]:
    return [
        f'    .section .bss.{item.name},"aw",@nobits',
        f"    .globl {item.name}",
        f"    .type {item.name},@object",
        f"    .balign {max(item.alignment, 1)}",
        f"{item.name}:",
        f"    .zero {item.size}",
        f"    .size {item.name}, {item.size}",
    ]


def assembly(data: list[DataGlobal], blob_path: str) -> tuple[str, bytes]:
    """An assembler file defining every data global (exported, aligned), and
    the one binary file its ``.incbin``s read: ``(asm text, blob bytes)``."""
    lines = []
    blob = bytearray()
    for item in data:
        if item.data is None:
            lines += [
                f'    .section .bss.{item.name},"aw",@nobits',
                f"    .globl {item.name}",
                f"    .type {item.name},@object",
                f"    .balign {max(item.alignment, 1)}",
                f"{item.name}:",
                f"    .zero {item.size}",
                f"    .size {item.name}, {item.size}",
            ]
            continue
        blob += bytes((-len(blob)) % 64)
        offset = len(blob)
        blob += item.data
        lines += [
            f'    .section .rodata.{item.name},"a",@progbits',
            f"    .globl {item.name}",
            f"    .type {item.name},@object",
            f"    .balign {max(item.alignment, 1)}",
            f"{item.name}:",
            f'    .incbin "{blob_path}", {offset}, {item.size}',
            f"    .size {item.name}, {item.size}",
        ]
    lines.append('    .section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n", bytes(blob)


__all__ = [
    "DataFiles",
    "DataGlobal",
    "PlacedData",
    "assembly",
    "data_global",
    "data_globals",
    "embed_header",
    "is_data_global",
    "read_metadata",
    "split_data",
    "write_assembly",
    "write_data_files",
    "write_data_object",
]
