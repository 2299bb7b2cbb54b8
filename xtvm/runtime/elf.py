"""A shared library checked before it is loaded.

`dlopen` maps a file and runs its code: a truncated library crashes the
process with SIGBUS when the loader touches a page past the end of the file,
and a foreign one may run anything. Before xtvm loads a library it reads the
ELF headers and checks that every segment the loader maps and every section
lies within the file, that it is a 64-bit little-endian x86-64 shared object,
that its program headers are consistent (known types, aligned loadable
segments in order, every allocated section inside a loadable segment with
its file bytes and permissions: a damaged header made the loader crash),
and that its dynamic symbol table defines `__xtvm_metadata`, whose length
(`__xtvm_metadata_size`) stays inside the file. This catches truncation,
damaged headers and files that are not xtvm libraries; it cannot make a
malicious library safe: load only libraries you trust.
"""

from __future__ import annotations

import mmap
import os
import struct

from xtvm.runtime.base import XTVMError

_ELF_MAGIC = b"\x7fELF"
_ET_DYN = 3
_EM_X86_64 = 62
_SHT_DYNSYM = 11
_SHT_NOBITS = 8
_PT_LOAD = 1
_PT_PHDR = 6
_PT_GNU_STACK = 0x6474E551
_SEGMENT_TYPES = {0, 1, 2, 3, 4, 5, 6, 7, 0x6474E550, _PT_GNU_STACK, 0x6474E552, 0x6474E553}
"""PT_NULL ... PT_TLS, and GNU_EH_FRAME, GNU_STACK, GNU_RELRO, GNU_PROPERTY."""
_SHF_WRITE, _SHF_ALLOC, _SHF_EXECINSTR = 1, 2, 4
_PF_X, _PF_W, _PF_R = 1, 2, 4


def check_shared_library(path: str, required_symbol: str = "__xtvm_metadata") -> None:
    """Raise `XTVMError` naming what is wrong unless `path` is a complete
    x86-64 ELF shared object whose dynamic symbols define `required_symbol`."""
    with open(path, "rb") as f:
        # mapped, not read: a model's library is mostly weights, which the
        # checks never touch
        size = os.fstat(f.fileno()).st_size
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    try:
        _check(path, data, required_symbol)
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def _check(path: str, data: bytes | mmap.mmap, required_symbol: str) -> None:
    def fail(why: str) -> XTVMError:
        return XTVMError(f"cannot load module '{path}': {why}")

    if len(data) < 64 or data[:4] != _ELF_MAGIC:
        raise fail("not an ELF shared library")
    if data[4] != 2 or data[5] != 1:
        raise fail("not a 64-bit little-endian ELF file")
    (e_type, e_machine) = struct.unpack_from("<HH", data, 16)
    if e_type != _ET_DYN:
        raise fail("an ELF file, but not a shared library")
    if e_machine != _EM_X86_64:
        raise fail(f"built for another machine (ELF machine {e_machine}, expected x86-64)")
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 32)
    e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHHHH", data, 54)
    size = len(data)
    if e_phoff + e_phnum * e_phentsize > size or e_shoff + e_shnum * e_shentsize > size:
        raise fail(f"truncated ({size} bytes: its headers point past the end)")
    if e_phentsize != 56 or (e_shnum and e_shentsize != 64):
        raise fail("damaged ELF header (program or section header entry size)")
    segments = [
        struct.unpack_from("<IIQQQQQQ", data, e_phoff + i * e_phentsize) for i in range(e_phnum)
    ]
    for _, _, p_offset, _, _, p_filesz, _, _ in segments:
        if p_offset + p_filesz > size:
            raise fail(f"truncated ({size} bytes; a segment ends at byte {p_offset + p_filesz})")
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)
    ]
    for _, sh_type, _, _, sh_offset, sh_size, *_ in sections:
        if sh_type != _SHT_NOBITS and sh_offset + sh_size > size:
            raise fail(f"truncated ({size} bytes; a section ends at byte {sh_offset + sh_size})")
    problem = _segment_problem(segments, sections)
    if problem is not None:
        raise fail(f"damaged program headers: {problem}")
    symbols = _dynamic_symbols(data, sections)
    if required_symbol.encode() not in symbols:
        raise fail(f"not an xtvm library: it does not define {required_symbol}")
    if required_symbol == "__xtvm_metadata":
        problem = _metadata_problem(data, segments, symbols)
        if problem is not None:
            raise fail(f"damaged metadata: {problem}")


def _segment_problem(segments: list[tuple], sections: list[tuple]) -> str | None:
    """What makes the program headers inconsistent (they are what the loader
    follows), else None."""
    loads = []
    for p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, p_align in segments:
        if p_type not in _SEGMENT_TYPES:
            return f"unknown segment type {p_type:#x}"
        if p_type != _PT_LOAD:
            continue
        if p_filesz > p_memsz or p_memsz >= 1 << 40 or p_vaddr >= 1 << 46:
            return f"a loadable segment at {p_vaddr:#x} has sizes {p_filesz:#x} in the file, {p_memsz:#x} in memory"
        if p_align & (p_align - 1) or (p_align > 1 and (p_vaddr - p_offset) % p_align):
            return f"the loadable segment at {p_vaddr:#x} is misaligned"
        loads.append((p_vaddr, p_memsz, p_offset, p_filesz, p_flags))
    if not loads:
        return "no loadable segment"
    if not any(offset == 0 for _, _, offset, _, _ in loads):
        return "no loadable segment maps the ELF header"
    for (v0, m0, *_), (v1, *_) in zip(loads, loads[1:]):
        if v1 < v0 + m0:
            return f"loadable segments at {v0:#x} and {v1:#x} overlap or are out of order"
    for p_type, _, p_offset, p_vaddr, _, p_filesz, p_memsz, p_align in segments:
        if p_type in (0, _PT_LOAD, _PT_GNU_STACK) or not p_memsz:
            continue
        if not any(v <= p_vaddr and p_vaddr + p_memsz <= v + m for v, m, *_ in loads):
            return f"a segment of type {p_type:#x} at {p_vaddr:#x} lies outside the loaded memory"
        if p_align > 1 and p_vaddr % p_align:
            return f"the segment of type {p_type:#x} at {p_vaddr:#x} is misaligned"
        # what the loader reads at p_vaddr (the dynamic table, notes, ...) must be
        # the bytes the header says are at p_offset
        if p_filesz and not any(
            v <= p_vaddr and p_vaddr + p_filesz <= v + filesz and p_vaddr - v == p_offset - offset
            for v, _, offset, filesz, _ in loads
        ):
            return f"the segment of type {p_type:#x} at {p_vaddr:#x} is not loaded from its file bytes"
    for _, sh_type, sh_flags, sh_addr, sh_offset, sh_size, *_ in sections:
        if not sh_flags & _SHF_ALLOC or not sh_size:
            continue
        need = (_PF_X if sh_flags & _SHF_EXECINSTR else 0) | (_PF_W if sh_flags & _SHF_WRITE else 0)
        need |= _PF_R  # every allocated section is read (the loader reads .dynsym, ...)
        for v, m, offset, filesz, flags in loads:
            if v <= sh_addr and sh_addr + sh_size <= v + m and flags & need == need:
                in_file = sh_type == _SHT_NOBITS or (
                    sh_offset - offset == sh_addr - v and sh_addr + sh_size <= v + filesz
                )
                if in_file:
                    break
        else:
            return f"the section at {sh_addr:#x} is not loaded with its bytes and permissions"
    return None


def _metadata_problem(data: bytes, segments: list[tuple], symbols: dict[bytes, tuple[int, int]]) -> str | None:
    """Whether `__xtvm_metadata_size` bytes of `__xtvm_metadata` lie in the file."""
    if b"__xtvm_metadata_size" not in symbols:
        return "no __xtvm_metadata_size symbol"

    def file_offset(address: int, length: int) -> int | None:
        for p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ in segments:
            if p_type == _PT_LOAD and p_vaddr <= address and address + length <= p_vaddr + p_filesz:
                return p_offset + address - p_vaddr
        return None

    size_at = file_offset(symbols[b"__xtvm_metadata_size"][0], 8)
    if size_at is None:
        return "__xtvm_metadata_size is not in the file"
    (length,) = struct.unpack_from("<Q", data, size_at)
    address, declared = symbols[b"__xtvm_metadata"]
    if file_offset(address, length) is None or (declared and length > declared):
        return f"__xtvm_metadata_size says {length} bytes, more than the library holds"
    return None


def _dynamic_symbols(data: bytes, sections: list[tuple]) -> dict[bytes, tuple[int, int]]:
    """The defined dynamic symbols (a nonzero section index): name -> (value, size)."""
    found: dict[bytes, tuple[int, int]] = {}
    for _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize in sections:
        if sh_type != _SHT_DYNSYM or sh_entsize < 24 or sh_link >= len(sections):
            continue
        strtab_offset, strtab_size = sections[sh_link][4], sections[sh_link][5]
        for k in range(sh_size // sh_entsize):
            st_name, _, _, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", data, sh_offset + k * sh_entsize
            )
            if st_shndx == 0 or st_name >= strtab_size:
                continue
            start = strtab_offset + st_name
            end = data.find(b"\0", start, strtab_offset + strtab_size)
            if end >= 0:
                found.setdefault(data[start:end], (st_value, st_size))
    return found
