"""The C header of a model's AOT entry (docs/abi.md, "The AOT entry (C ABI)").

``make_header(entry)`` turns the ``"entry"`` object of a model's metadata
(``xtvm.runtime.load_module(path).header["entry"]``, or ``lib.header["entry"]``
of ``xtvm.build``'s result) into the text of ``tvmgen_default.h``, in the
style of TVM's AOT executor:

* ``struct tvmgen_default_inputs { void *<input>; ... };`` and
  ``struct tvmgen_default_outputs { void *<output>; ... };``, one data pointer
  per graph input / output in order (each name made a unique C identifier);
  laid out exactly as the ``void *[]`` arrays the entry reads;
* per tensor, ``#define``s of its byte size (TVM's ``TVMGEN_DEFAULT_<NAME>_SIZE``),
  rank, shape and dtype;
* ``TVMGEN_DEFAULT_NUM_INPUTS`` / ``_NUM_OUTPUTS`` / ``_WORKSPACE_SIZE`` and a
  table of every input and output (``tvmgen_default_input_info(i)``,
  ``tvmgen_default_output_info(i)``) for programs written once for any model;
* the prototypes of ``tvmgen_default_run``, ``tvmgen_default_run_with_workspace``
  and the ``tvmgen_default_workspace_size`` constant.

The header needs only ``<stdint.h>`` and ``<stddef.h>``; nothing of xtvm's
runtime. ``python -m xtvm.codegen.c_header model.so -o model.h`` writes the
header of an exported library; ``xtvm-compile model.onnx -o m.so --header m.h``
writes it beside the library.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from xtvm.lowering.tir_to_llvm.types import DL_REDUCED_FLOAT_CODES

C_KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for
    goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool
    _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local bool true false
    alignas alignof static_assert thread_local nullptr typeof""".split()
)

DTYPE_CODES = {"int": 0, "uint": 1, "float": 2, "bool": 6}
"""DLPack type codes (docs/abi.md, ``DLTensor``)."""

SUB_BYTE_CODES = {
    "int4": (0, 4),
    "uint4": (1, 4),
    "int2": (0, 2),
    "uint2": (1, 2),
    "float4_e2m1fn": (17, 4),
}
"""DLPack (code, bits) of the packed sub-byte dtypes (docs/sub-byte-types.md),
whose tensors take ``ceil(count * bits / 8)`` bytes."""


class HeaderError(ValueError):
    """The entry metadata cannot describe a C header (a clear message, never a crash)."""


def _dtype_parts(dtype: Any, where: str) -> tuple[int, int]:
    """(DLPack code, bits) of a dtype name."""
    if not isinstance(dtype, str):
        raise HeaderError(f"{where}: dtype must be a string such as 'float32', got {dtype!r}")
    if dtype == "bool":
        return DTYPE_CODES["bool"], 1
    if dtype in SUB_BYTE_CODES:  # packed, docs/sub-byte-types.md
        return SUB_BYTE_CODES[dtype]
    if dtype in DL_REDUCED_FLOAT_CODES:  # bfloat16, float8: docs/element-types.md
        return DL_REDUCED_FLOAT_CODES[dtype], 16 if dtype == "bfloat16" else 8
    match = re.fullmatch(r"(int|uint|float)(8|16|32|64)", dtype)
    if match is None or (match.group(1) == "float" and match.group(2) == "8"):
        raise HeaderError(f"{where}: unsupported dtype '{dtype}'")
    return DTYPE_CODES[match.group(1)], int(match.group(2))


def c_identifier(name: str) -> str:
    """``name`` as a C identifier: every other character becomes ``_``, a
    leading digit or an empty name gets a ``_`` prefix (``"0"`` → ``_0``), a C
    keyword gets a ``_`` suffix; names that start ``__`` or ``_`` + capital
    (reserved in C) get an ``x`` prefix."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not ident or ident[0].isdigit():
        ident = "_" + ident
    if ident.startswith("__") or re.match(r"_[A-Z]", ident):
        ident = "x" + ident
    if ident in C_KEYWORDS:
        ident += "_"
    return ident


def unique_identifiers(names: Sequence[str]) -> list[str]:
    """``c_identifier`` of each name, made unique (``_1``, ``_2``, ... appended)
    also once upper-cased, since the ``#define``s use the upper-case form."""
    taken: set[str] = set()
    result = []
    for name in names:
        base = ident = c_identifier(name)
        n = 0
        while ident.upper() in taken:
            n += 1
            ident = f"{base}_{n}"
        taken.add(ident.upper())
        result.append(ident)
    return result


def _tensors(entry: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    tensors = entry.get(key)
    if not isinstance(tensors, list):
        raise HeaderError(f"entry metadata: '{key}' must be a list of tensors, got {tensors!r}")
    checked = []
    for i, t in enumerate(tensors):
        where = f"entry metadata: {key}[{i}]"
        if not isinstance(t, Mapping):
            raise HeaderError(f"{where} must be an object with name, shape and dtype, got {t!r}")
        name, shape = t.get("name"), t.get("shape")
        if not isinstance(name, str):
            raise HeaderError(f"{where}: name must be a string, got {name!r}")
        if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
        ):
            raise HeaderError(
                f"{where} ('{name}'): shape must be a list of non-negative integers "
                f"(a static shape), got {shape!r}"
            )
        code, bits = _dtype_parts(t.get("dtype"), f"{where} ('{name}')")
        checked.append(
            {
                "name": name,
                "shape": shape,
                "dtype": t["dtype"],
                "code": code,
                "bits": bits,
                "nbytes": -(-math.prod(shape) * (8 if bits == 1 else bits) // 8),
            }
        )
    return checked


def _symbol(entry: Mapping[str, Any], key: str, default: str) -> str:
    symbol = entry.get(key, default)
    if not isinstance(symbol, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", symbol):
        raise HeaderError(f"entry metadata: '{key}' must be a C symbol name, got {symbol!r}")
    return symbol


def _c_string(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    out = "".join(c if 32 <= ord(c) < 127 else f"\\{ord(c) & 0xFF:03o}" for c in out)
    return f'"{out}"'


def _comment(text: str) -> str:
    """Text safe inside a ``/* */`` comment."""
    return text.replace("*/", "* /").encode("ascii", "backslashreplace").decode()


def make_header(entry_metadata: Mapping[str, Any], prefix: str | None = None) -> str:
    """The C header text of a model's AOT entry (see the module docstring).

    ``entry_metadata`` is the metadata's ``"entry"`` object: ``inputs`` and
    ``outputs`` (each ``{"name", "shape", "dtype"}``), the symbols ``run``,
    ``run_with_workspace``, ``workspace_size`` and ``workspace_bytes``.
    ``prefix`` names the structs and macros (``tvmgen_default`` →
    ``struct tvmgen_default_inputs``, ``TVMGEN_DEFAULT_...``); by default it
    is the entry's own (its ``run`` symbol without ``_run``). Raises
    ``HeaderError`` (a ``ValueError``) on malformed metadata.
    """
    if not isinstance(entry_metadata, Mapping):
        raise HeaderError(
            f"entry metadata must be an object (the metadata's \"entry\"), got "
            f"{type(entry_metadata).__name__}; a library without a graph has no AOT entry"
        )
    run = _symbol(entry_metadata, "run", "tvmgen_default_run")
    if prefix is None:
        prefix = run[: -len("_run")] if run.endswith("_run") else run
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix):
        raise HeaderError(f"header prefix must be a C identifier, got {prefix!r}")
    run_ws = _symbol(entry_metadata, "run_with_workspace", f"{run}_with_workspace")
    ws_size = _symbol(entry_metadata, "workspace_size", f"{prefix}_workspace_size")
    ws_bytes = entry_metadata.get("workspace_bytes")
    if not isinstance(ws_bytes, int) or isinstance(ws_bytes, bool) or ws_bytes < 0:
        raise HeaderError(
            f"entry metadata: 'workspace_bytes' must be a non-negative integer, got {ws_bytes!r}"
        )
    inputs = _tensors(entry_metadata, "inputs")
    outputs = _tensors(entry_metadata, "outputs")
    idents = unique_identifiers([t["name"] for t in inputs + outputs])
    for t, ident in zip(inputs + outputs, idents):
        t["ident"] = ident
    up = prefix.upper()
    guard = f"{up}_H_"
    max_ndim = max([len(t["shape"]) for t in inputs + outputs] + [1])

    lines = [
        f"/* {prefix}.h: the C interface of an xtvm model (generated by",
        " * xtvm.codegen.c_header; docs/abi.md, \"The AOT entry (C ABI)\").",
        " *",
        f" * Link with the model's shared library and call {run}(&inputs, &outputs)",
        " * with one pointer per tensor to its data: compact, row-major, little-endian,",
        " * of exactly the shape and dtype below. It returns 0, or (2 << 16) | i for a",
        " * NULL pointer (i counts the inputs, then the outputs), or a kernel's code.",
        f" * {run} uses a static workspace: one call at a time. Concurrent callers",
        f" * give {run_ws} their own workspace of {up}_WORKSPACE_SIZE",
        " * bytes, 64-byte aligned.",
        " */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]

    def struct(kind: str, tensors: list[dict[str, Any]]) -> None:
        lines.append(f"/* The {kind}' data pointers, in the entry's order. */")
        lines.append(f"struct {prefix}_{kind} {{")
        if not tensors:
            lines.append("  void *unused_; /* the model has none; pass any non-NULL pointer */")
        for t in tensors:
            shape = "x".join(map(str, t["shape"])) or "scalar"
            lines.append(f"  void *{t['ident']}; /* {_comment(t['name'])}: {shape} {t['dtype']} */")
        lines.append("};")
        lines.append("")

    struct("inputs", inputs)
    struct("outputs", outputs)

    lines.append(f"#define {up}_NUM_INPUTS {len(inputs)}")
    lines.append(f"#define {up}_NUM_OUTPUTS {len(outputs)}")
    lines.append(f"/* Bytes of the workspace {run} uses ({ws_size} holds the same). */")
    lines.append(f"#define {up}_WORKSPACE_SIZE {ws_bytes}")
    lines.append(f"/* Most dimensions of any input or output (the table's shape arrays). */")
    lines.append(f"#define {up}_MAX_NDIM {max_ndim}")
    lines.append("")
    for kind, tensors in (("input", inputs), ("output", outputs)):
        for i, t in enumerate(tensors):
            m = f"{up}_{t['ident'].upper()}"
            lines.append(f"/* {kind} {i}: {_comment(t['name'])} */")
            lines.append(f"#define {m}_SIZE {t['nbytes']}")
            lines.append(f"#define {m}_NDIM {len(t['shape'])}")
            if t["shape"]:
                lines.append(f"#define {m}_SHAPE {{{', '.join(map(str, t['shape']))}}}")
            lines.append(f"#define {m}_DTYPE {_c_string(t['dtype'])}")
            lines.append("")

    lines += [
        f"/* One input or output: what {prefix}_input_info / _output_info return. */",
        f"struct {prefix}_tensor_info {{",
        "  const char *name;  /* the graph's name */",
        "  const char *dtype; /* \"float32\", \"int64\", \"bool\", ... */",
        "  uint8_t dtype_code; /* DLPack: 0 int, 1 uint, 2 float, 6 bool */",
        "  uint8_t dtype_bits; /* 1 for bool (stored as one byte) */",
        "  int32_t ndim;",
        f"  int64_t shape[{up}_MAX_NDIM];",
        "  size_t nbytes;",
        "};",
        "",
    ]

    def table(kind: str, tensors: list[dict[str, Any]]) -> None:
        count = f"{up}_NUM_{kind.upper()}S"
        lines.append(f"/* The {kind} {'i'}, or NULL when i is out of range. */")
        lines.append(
            f"static inline const struct {prefix}_tensor_info *{prefix}_{kind}_info(int i) {{"
        )
        if tensors:
            lines.append(f"  static const struct {prefix}_tensor_info table[{count}] = {{")
            for t in tensors:
                shape = ", ".join(map(str, t["shape"])) or "0"
                lines.append(
                    f"    {{{_c_string(t['name'])}, {_c_string(t['dtype'])}, {t['code']}, "
                    f"{t['bits']}, {len(t['shape'])}, {{{shape}}}, {t['nbytes']}u}},"
                )
            lines.append("  };")
            lines.append(f"  return (i >= 0 && i < {count}) ? &table[i] : NULL;")
        else:
            lines.append("  (void)i;")
            lines.append("  return NULL;")
        lines.append("}")
        lines.append("")

    table("input", inputs)
    table("output", outputs)

    lines += [
        "/* Runs the model once with the library's static workspace (one call at a",
        " * time). Returns 0, or (2 << 16) | i for a NULL pointer, or a kernel's code",
        " * (docs/abi.md). */",
        f"int32_t {run}(struct {prefix}_inputs *inputs, struct {prefix}_outputs *outputs);",
        "",
        "/* The same with the caller's workspace: at least the workspace size,",
        " * 64-byte aligned; calls with distinct workspaces may run concurrently. */",
        f"int32_t {run_ws}(struct {prefix}_inputs *inputs,",
        f"    struct {prefix}_outputs *outputs, void *workspace);",
        "",
        f"/* {up}_WORKSPACE_SIZE, as the library defines it. */",
        f"extern const int64_t {ws_size};",
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        f"#endif /* {guard} */",
        "",
    ]
    return "\n".join(lines)


def header_of_library(path: str) -> str:
    """The C header of an exported model library (its metadata's entry)."""
    from xtvm.runtime import load_module

    entry = load_module(path).header.get("entry")
    if entry is None:
        raise HeaderError(
            f"{path} has no AOT entry (a kernel library, or made by an xtvm before the "
            "entry existed): nothing to write a header for"
        )
    return make_header(entry)


def main(argv: Sequence[str] | None = None) -> None:
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m xtvm.codegen.c_header",
        description="write the C header of an exported xtvm model library",
    )
    parser.add_argument("library", help="the model's .so (xtvm-compile -o / export_library)")
    parser.add_argument("-o", "--output", help="header file (default: stdout)")
    args = parser.parse_args(argv)
    try:
        text = header_of_library(args.library)
    except (OSError, ValueError) as e:
        print(f"c_header: error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # XTVMError from loading a library that is not xtvm's
        print(f"c_header: error: {e}", file=sys.stderr)
        sys.exit(1)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
