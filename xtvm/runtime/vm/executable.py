"""The VM executable: bytecode, constant pool, function table and kernel
names, bound to the kernel library that defines the kernels (TVM's
``vm::Executable``).

Binary format (version 1, little-endian; docs/vm.md):

    0   8 bytes   magic b"XTVMVMEX"
    8   u32       format version
    12  u32       reserved (0)
    16  u64       header_len: bytes of JSON header
    24  u64       data_len: bytes of the constant region
    32  32 bytes  SHA-256 of the JSON header
    64  header_len bytes of UTF-8 JSON, padded with spaces to a multiple of 64
    ... data_len bytes: each constant's raw bytes (C order) at its offset,
        a multiple of 64 from the start of the region

The JSON header: ``{"functions": [{"name", "params": [type], "results":
[type], "num_registers", "code": [instruction, ...]}], "constants":
[{"shape", "dtype", "offset", "nbytes"}], "kernels": [name, ...]}``. A
type is ``{"kind": "tensor", "shape": [d or null], "dtype", "name"}``
(``null`` is a ``?`` dimension) or ``{"kind": "int" | "adt" | "storage"}``.
An instruction is a list, its opcode first (see :data:`OPCODES`).

Everything is checked when loaded (magic, version, lengths, digest, every
register, jump target, function, constant and kernel index, and that the
library defines every kernel), so a truncated or foreign file is an
``XTVMError``, never a crash or a wrong run. No pickle: JSON and raw bytes.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xtvm.runtime.base import XTVMError
from xtvm.runtime.ndarray import ALIGNMENT, NDArray, dtype_name

MAGIC = b"XTVMVMEX"
VERSION = 1
PREFIX = struct.Struct("<8sIIQQ32s")
"""magic, version, reserved, header_len, data_len, sha256(header)."""
PREFIX_SIZE = 64
assert PREFIX.size <= PREFIX_SIZE

EXECUTABLE_SYMBOL = "__xtvm_vm_executable"
"""The data global of a library holding its executable (docs/vm.md)."""

OPCODES: dict[str, tuple[str, ...]] = {
    # opcode: the kinds of its operands after the opcode
    # reg: a register; regs: a list of registers; pc: a jump target;
    # func/const/kernel: an index into the tables; int/shape/dtype/str: literals
    "move": ("reg", "reg"),  # dst, src
    "ret": ("regs",),
    "invoke": ("func", "regs", "regs"),  # callee, args, results
    "invoke_packed": ("kernel", "regs", "int"),  # kernel, ins + outs, number of outs
    "alloc_storage": ("reg", "opt_int", "opt_reg", "int", "str"),  # dst, size, size reg, align, dtype hint
    "alloc_storage_shape": ("reg", "reg", "int", "dtype"),  # dst, shape reg, align, dtype: one tensor's bytes
    "alloc_tensor": ("reg", "reg", "int", "shape", "opt_reg", "dtype"),  # dst, storage, offset, shape, shape reg, dtype
    "kill": ("reg",),
    "load_const": ("reg", "const"),
    "load_consti": ("reg", "int"),
    "shape_of": ("reg", "reg"),
    "shape_from": ("reg", "regs", "dims"),  # dst, tensors, (source, axis) pairs (source -1: a constant)
    "reshape_tensor": ("reg", "reg", "shape", "opt_reg"),  # dst, src, shape, shape reg
    "alloc_adt": ("reg", "int", "regs"),  # dst, tag, fields
    "get_field": ("reg", "reg", "int"),  # dst, adt, index
    "get_tag": ("reg", "reg"),
    "if": ("reg", "pc", "pc"),  # cond, then, else
    "goto": ("pc",),
}


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


@dataclass(frozen=True)
class Function:
    """One VM function: its parameter and result types, register count,
    instructions and (optionally) each instruction's source op text."""

    name: str
    params: list[dict[str, Any]]
    results: list[dict[str, Any]]
    num_registers: int
    code: list[list[Any]]
    source: list[str]

    def param_names(self) -> list[str]:
        return [p.get("name") or f"input{i}" for i, p in enumerate(self.params)]


class Executable:
    """Bytecode + constants + kernel names, bound to ``lib`` (the kernel
    library, a runtime ``Module``) once loaded or built.

    ``save()`` gives bytes; ``Executable.load_exec(bytes, lib)`` reads them
    back; ``export_library(path)`` writes ``lib`` (which embeds the
    executable when the compiler built it)."""

    def __init__(
        self,
        functions: Sequence[Function],
        constants: Sequence[np.ndarray],
        kernels: Sequence[str],
        lib: Any = None,
    ):
        self.functions = list(functions)
        self.constants = list(constants)
        self.kernels = list(kernels)
        self.lib = lib
        self.func_index = {f.name: i for i, f in enumerate(self.functions)}
        _validate(self)
        if lib is not None:
            self._check_kernels(lib)

    # -- serialisation -------------------------------------------------------

    def save(self) -> bytes:
        """The executable as bytes in the versioned binary format."""
        table = []
        offset = 0
        for c in self.constants:
            arr = np.ascontiguousarray(c).reshape(np.shape(c))  # a 0-d constant stays 0-d
            table.append(
                {"shape": list(arr.shape), "dtype": dtype_name(arr.dtype), "offset": offset, "nbytes": arr.nbytes}
            )
            offset = _align(offset + arr.nbytes)
        header = {
            "functions": [
                {
                    "name": f.name,
                    "params": f.params,
                    "results": f.results,
                    "num_registers": f.num_registers,
                    "code": f.code,
                    "source": f.source,
                }
                for f in self.functions
            ],
            "constants": table,
            "kernels": self.kernels,
        }
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (_align(len(text)) - len(text))
        data = bytearray(offset)
        for entry, c in zip(table, self.constants):
            arr = np.ascontiguousarray(c).astype(np.asarray(c).dtype.newbyteorder("<"), copy=False)
            data[entry["offset"] : entry["offset"] + entry["nbytes"]] = arr.tobytes()
        prefix = PREFIX.pack(MAGIC, VERSION, 0, len(text), len(data), hashlib.sha256(text).digest())
        return prefix + b"\0" * (PREFIX_SIZE - PREFIX.size) + text + bytes(data)

    @staticmethod
    def load_exec(data: bytes | bytearray | memoryview, lib: Any) -> Executable:
        """An executable from ``save()``'s bytes, bound to ``lib``. Constants
        are read-only views over ``data`` (no copy)."""
        header, region = _unpack(memoryview(data).cast("B"), "executable")
        return _from_header(header, region, lib)

    @staticmethod
    def from_library(lib: Any) -> Executable:
        """The executable a compiled library embeds (``EXECUTABLE_SYMBOL``),
        bound to that library."""
        resolve = getattr(lib, "_resolve", None)
        address = resolve(EXECUTABLE_SYMBOL) if resolve is not None else None
        if not address:
            raise XTVMError(
                "this library holds no VM executable (it was not compiled with executor='vm')"
            )
        prefix = bytes((ctypes.c_uint8 * PREFIX_SIZE).from_address(address))
        total = _total_size(prefix, "the library's VM executable")
        raw = (ctypes.c_uint8 * total).from_address(address)
        raw._xtvm_owner = lib  # type: ignore[attr-defined]  # keeps the code mapped
        header, region = _unpack(memoryview(raw).cast("B"), "the library's VM executable")
        return _from_header(header, region, lib)

    def export_library(self, path: str) -> None:
        """Write the kernel library (with this executable inside) as a .so."""
        if self.lib is None:
            raise XTVMError("export_library: this executable is bound to no kernel library")
        self.lib.export_library(path)

    def _check_kernels(self, lib: Any) -> None:
        missing = [k for k in self.kernels if not lib.implements_function(k, query_imports=True)]
        if missing:
            raise XTVMError(
                f"VM executable: the kernel library does not define {', '.join(missing)} "
                f"(the executable calls {len(self.kernels)} kernel(s)); was it built with "
                "another library?"
            )

    @property
    def bytecode(self) -> str:
        """The instructions as text, one per line with its source op (TVM's
        ``exe.bytecode``), for reading and debugging."""
        lines = []
        for f in self.functions:
            params = ", ".join(f"r{i}:{n}" for i, n in enumerate(f.param_names()))
            lines.append(f"VM function @{f.name}({params}) registers={f.num_registers}")
            for pc, ins in enumerate(f.code):
                operands = " ".join(json.dumps(v, separators=(",", ":")) for v in ins[1:])
                source = f"  ; {f.source[pc]}" if f.source else ""
                lines.append(f"  {pc:4d}: {ins[0]} {operands}{source}")
        lines.append("kernels: " + ", ".join(self.kernels))
        lines.append(f"constants: {len(self.constants)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        names = ", ".join(f.name for f in self.functions)
        return f"<Executable functions=[{names}] constants={len(self.constants)} kernels={len(self.kernels)}>"


def _total_size(prefix: bytes, what: str) -> int:
    if len(prefix) < PREFIX_SIZE:
        raise XTVMError(f"{what}: {len(prefix)} bytes, shorter than the {PREFIX_SIZE}-byte prefix")
    magic, version, _, header_len, data_len, _ = PREFIX.unpack_from(prefix, 0)
    if magic != MAGIC:
        raise XTVMError(f"{what} is not an xtvm VM executable (magic {magic!r}, expected {MAGIC!r})")
    if version != VERSION:
        raise XTVMError(f"{what}: format version {version}, this runtime reads version {VERSION}")
    return PREFIX_SIZE + header_len + data_len


def _unpack(view: memoryview, what: str) -> tuple[dict[str, Any], np.ndarray]:
    total = _total_size(bytes(view[:PREFIX_SIZE]), what)
    if len(view) != total:
        raise XTVMError(
            f"{what}: {len(view)} bytes, but its prefix announces {total} (truncated or padded)"
        )
    _, _, _, header_len, _, digest = PREFIX.unpack_from(view, 0)
    text = bytes(view[PREFIX_SIZE : PREFIX_SIZE + header_len])
    if hashlib.sha256(text).digest() != digest:
        raise XTVMError(f"{what}: its header is damaged (SHA-256 mismatch)")
    try:
        header = json.loads(text.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise XTVMError(f"{what}: bad JSON header ({err})") from None
    if not isinstance(header, dict):
        raise XTVMError(f"{what}: the header is not a JSON object")
    region = np.frombuffer(view, np.uint8)[PREFIX_SIZE + header_len :]
    return header, region


def _from_header(header: dict[str, Any], region: np.ndarray, lib: Any) -> Executable:
    try:
        functions = [
            Function(
                str(f["name"]),
                list(f["params"]),
                list(f["results"]),
                int(f["num_registers"]),
                [list(i) for i in f["code"]],
                [str(s) for s in f.get("source", [])],
            )
            for f in header["functions"]
        ]
        constants = []
        for k, c in enumerate(header["constants"]):
            dtype = np.dtype(dtype_name(c["dtype"])).newbyteorder("<")
            shape = tuple(int(d) for d in c["shape"])
            start, nbytes = int(c["offset"]), int(c["nbytes"])
            if (
                start < 0
                or start % ALIGNMENT
                or nbytes != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                or start + nbytes > len(region)
            ):
                raise XTVMError(
                    f"VM executable: constant #{k} ({nbytes} bytes at {start}) does not fit its "
                    f"shape {shape} {dtype.name} or the {len(region)}-byte constant region"
                )
            arr = region[start : start + nbytes].view(dtype).reshape(shape)
            arr.flags.writeable = False
            constants.append(arr)
        kernels = [str(k) for k in header["kernels"]]
    except XTVMError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise XTVMError(f"VM executable: malformed header ({type(err).__name__}: {err})") from None
    return Executable(functions, constants, kernels, lib)


def _validate(exe: Executable) -> None:
    """Check every operand of every instruction, so the interpreter can
    trust them."""
    nfuncs, nconsts, nkernels = len(exe.functions), len(exe.constants), len(exe.kernels)
    if len(exe.func_index) != nfuncs:
        raise XTVMError("VM executable: two functions share a name")
    for f in exe.functions:
        n = f.num_registers
        if n < len(f.params) or n < 0:
            raise XTVMError(f"VM executable: @{f.name} has {n} registers for {len(f.params)} parameters")
        for pc, ins in enumerate(f.code):
            where = f"VM executable: @{f.name} instruction #{pc}"
            if not ins or ins[0] not in OPCODES:
                raise XTVMError(f"{where}: unknown opcode {ins[:1]!r}")
            kinds = OPCODES[ins[0]]
            if len(ins) != len(kinds) + 1:
                raise XTVMError(f"{where}: '{ins[0]}' takes {len(kinds)} operands, got {len(ins) - 1}")
            for kind, value in zip(kinds, ins[1:]):
                if not _operand_ok(kind, value, n, len(f.code), nfuncs, nconsts, nkernels):
                    raise XTVMError(f"{where} ('{ins[0]}'): bad {kind} operand {value!r}")
        for pc, ins in enumerate(f.code):
            _check_arity(exe, f, pc, ins)
        if not f.code or f.code[-1][0] not in ("ret", "goto", "if"):
            raise XTVMError(f"VM executable: @{f.name} does not end in ret, goto or if")
        if f.source and len(f.source) != len(f.code):
            raise XTVMError(f"VM executable: @{f.name} has {len(f.source)} source lines for {len(f.code)} instructions")


def _check_arity(exe: Executable, f: Function, pc: int, ins: list[Any]) -> None:
    """Register counts that must agree with a signature: a call's arguments
    and results with its callee's, a ``ret``'s values with the function's."""
    where = f"VM executable: @{f.name} instruction #{pc} ('{ins[0]}')"
    if ins[0] == "invoke":
        callee = exe.functions[ins[1]]
        if len(ins[2]) != len(callee.params) or len(ins[3]) != len(callee.results):
            raise XTVMError(
                f"{where}: calls @{callee.name} with {len(ins[2])} argument(s) for {len(ins[3])} "
                f"result(s); it takes {len(callee.params)} and returns {len(callee.results)}"
            )
    elif ins[0] == "ret" and len(ins[1]) != len(f.results):
        raise XTVMError(f"{where}: returns {len(ins[1])} value(s), @{f.name} returns {len(f.results)}")
    elif ins[0] == "shape_from":
        for src, axis in zip(ins[3][::2], ins[3][1::2]):
            if not (-1 <= src < len(ins[2])) or axis < 0:
                raise XTVMError(f"{where}: bad dimension source ({src}, {axis})")
    elif ins[0] == "invoke_packed" and not 1 <= ins[3] <= len(ins[2]):
        raise XTVMError(f"{where}: {ins[3]} output(s) among {len(ins[2])} argument(s)")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _operand_ok(kind: str, v: Any, nregs: int, ncode: int, nfuncs: int, nconsts: int, nkernels: int) -> bool:
    if kind == "reg":
        return _is_int(v) and 0 <= v < nregs
    if kind == "opt_reg":
        return v is None or (_is_int(v) and 0 <= v < nregs)
    if kind == "regs":
        return isinstance(v, list) and all(_is_int(r) and 0 <= r < nregs for r in v)
    if kind == "pc":
        return _is_int(v) and 0 <= v < ncode
    if kind == "func":
        return _is_int(v) and 0 <= v < nfuncs
    if kind == "const":
        return _is_int(v) and 0 <= v < nconsts
    if kind == "kernel":
        return _is_int(v) and 0 <= v < nkernels
    if kind == "int":
        return _is_int(v)
    if kind == "opt_int":
        return v is None or (_is_int(v) and v >= 0)
    if kind == "dims":
        return isinstance(v, list) and len(v) % 2 == 0 and all(_is_int(d) for d in v)
    if kind == "shape":
        return isinstance(v, list) and all(d is None or (_is_int(d) and d >= 0) for d in v)
    if kind in ("dtype", "str"):
        if not isinstance(v, str):
            return False
        if kind == "dtype":
            try:
                dtype_name(v)
            except XTVMError:
                return False
        return True
    return False
