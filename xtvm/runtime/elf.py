"""A shared library checked before it is loaded.

`dlopen` maps a file and runs its code: a truncated library crashes the
process with SIGBUS when the loader touches a page past the end of the file,
and a foreign one may run anything. Before xtvm loads a library it reads the
ELF headers and checks that every segment the loader maps and every section
lies within the file, that it is a 64-bit little-endian x86-64 shared object,
and that its dynamic symbol table defines `__xtvm_metadata`. This catches
truncation and files that are not xtvm libraries; it cannot make a
malicious library safe: load only libraries you trust.
"""

from __future__ import annotations

import struct

from xtvm.runtime.base import XTVMError

_ELF_MAGIC = b"\x7fELF"
_ET_DYN = 3
_EM_X86_64 = 62
_SHT_DYNSYM = 11
_SHT_NOBITS = 8


def check_shared_library(path: str, required_symbol: str = "__xtvm_metadata") -> None:
    """Raise `XTVMError` naming what is wrong unless `path` is a complete
    x86-64 ELF shared object whose dynamic symbols define `required_symbol`."""
    with open(path, "rb") as f:
        data = f.read()

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
    for i in range(e_phnum):
        _, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, e_phoff + i * e_phentsize)
        if p_offset + p_filesz > size:
            raise fail(f"truncated ({size} bytes; a segment ends at byte {p_offset + p_filesz})")
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)
    ]
    for _, sh_type, _, _, sh_offset, sh_size, *_ in sections:
        if sh_type != _SHT_NOBITS and sh_offset + sh_size > size:
            raise fail(f"truncated ({size} bytes; a section ends at byte {sh_offset + sh_size})")
    if not _defines(data, sections, required_symbol.encode()):
        raise fail(f"not an xtvm library: it does not define {required_symbol}")


def _defines(data: bytes, sections: list[tuple], name: bytes) -> bool:
    """Whether the dynamic symbol table defines `name` (a nonzero section index)."""
    for _, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize in sections:
        if sh_type != _SHT_DYNSYM or not sh_entsize or sh_link >= len(sections):
            continue
        strtab_offset, strtab_size = sections[sh_link][4], sections[sh_link][5]
        for k in range(sh_size // sh_entsize):
            st_name, _, _, st_shndx = struct.unpack_from("<IBBH", data, sh_offset + k * sh_entsize)
            if st_shndx == 0 or st_name >= strtab_size:
                continue
            start = strtab_offset + st_name
            end = data.find(b"\0", start, strtab_offset + strtab_size)
            if end >= 0 and data[start:end] == name:
                return True
    return False
