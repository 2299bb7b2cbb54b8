"""The metadata blob every xtvm module carries (docs/abi.md, "Metadata").

Layout, all offsets from the start of the blob:

    0                 u64 little-endian header_len
    8                 header_len bytes of UTF-8 JSON (padded with spaces so that
                      8 + header_len is a multiple of 64)
    8 + header_len    the parameter region: each parameter's raw bytes
                      (C order, little-endian) at `params[name]["offset"]`,
                      an offset from the start of this region, a multiple of 64

If the blob itself is 64-byte aligned (`.balign 64` before the `.incbin`),
every parameter is 64-byte aligned in memory. The JSON header:

    {"version": 1,
     "functions": {"NAME": {"args": [{"name": "A", "shape": [3], "dtype": "float32"}],
                            "asserts": ["message of assert 0"]}},
     "graph_json": "<graph JSON string>" | null,
     "params": {"p0": {"shape": [3], "dtype": "float32", "offset": 0, "nbytes": 12}}}

`pack_metadata` fills in `version` and `params` itself; the caller supplies
`functions` and `graph_json`. This blob is the parameter file format
(`save_param_dict`) and the metadata of hand-made libraries.

The compiler writes the other form, version 2 (`pack_header`): the JSON
header alone, ASCII, whose parameters name the exported constant global
holding their bytes (`"symbol"`) instead of an offset, and which also
describes the AOT entry (`"entry"`). The two are told apart by their eighth
byte: a blob's length prefix has a zero there, JSON text never does.
"""

from __future__ import annotations

import ctypes
import json
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from xtvm.runtime import packing
from xtvm.runtime.base import XTVMError
from xtvm.runtime.ndarray import ALIGNMENT, NDArray, dtype_name

METADATA_VERSION = 1
HEADER_VERSION = 2
"""Version of the JSON-only metadata the compiler embeds (`pack_header`)."""


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def pack_metadata(header: dict[str, Any], params: dict[str, np.ndarray | NDArray]) -> bytes:
    """The metadata blob for `header` (`functions`, `graph_json`) and the parameters.

    `header` is not modified; the blob's header gets `version` and a `params`
    table computed from `params`.
    """
    functions = header.get("functions", {})
    if not isinstance(functions, dict):
        raise XTVMError("metadata header: 'functions' must be a dict of name -> signature")
    graph_json = header.get("graph_json")
    if graph_json is not None and not isinstance(graph_json, str):
        raise XTVMError("metadata header: 'graph_json' must be a string or None")
    table: dict[str, dict[str, Any]] = {}
    chunks: list[tuple[int, np.ndarray]] = []
    offset = end = 0
    for name, value in params.items():
        arr = value.numpy() if isinstance(value, NDArray) else np.asarray(value)
        dtype = dtype_name(arr.dtype)
        shape = list(arr.shape)
        if packing.is_packed(dtype):
            arr = packing.pack(arr)
        arr = arr.astype(arr.dtype.newbyteorder("<"), order="C", copy=False)
        table[name] = {
            "shape": shape,
            "dtype": dtype,
            "offset": offset,
            "nbytes": arr.nbytes,
        }
        chunks.append((offset, arr))
        end = offset + arr.nbytes
        offset = _align(end)
    full = {**header, "version": METADATA_VERSION, "params": table}
    text = json.dumps(full, separators=(",", ":")).encode()
    text += b" " * (_align(8 + len(text)) - 8 - len(text))
    blob = bytearray(8 + len(text) + end)
    struct.pack_into("<Q", blob, 0, len(text))
    blob[8 : 8 + len(text)] = text
    base = 8 + len(text)
    for start, arr in chunks:
        blob[base + start : base + start + arr.nbytes] = arr.tobytes()
    return bytes(blob)


def unpack_metadata(
    buf: bytes | bytearray | memoryview,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and parameters of a metadata blob.

    The parameters are read-only NumPy views over `buf` (no copy), so `buf`
    must outlive them; a NumPy view keeps a `bytes` or ctypes buffer alive.
    """
    view = memoryview(buf).cast("B")
    if len(view) < 8:
        raise XTVMError(f"not an xtvm metadata blob: {len(view)} bytes, shorter than its header")
    (header_len,) = struct.unpack_from("<Q", view, 0)
    if header_len > len(view) - 8:
        raise XTVMError(
            f"not an xtvm metadata blob: header length {header_len} exceeds the "
            f"{len(view)}-byte blob"
        )
    try:
        header = json.loads(bytes(view[8 : 8 + header_len]).decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise XTVMError(f"not an xtvm metadata blob: bad JSON header ({err})") from None
    if not isinstance(header, dict) or header.get("version") != METADATA_VERSION:
        version = header.get("version") if isinstance(header, dict) else None
        raise XTVMError(
            f"unsupported xtvm metadata version {version!r} (this runtime reads {METADATA_VERSION})"
        )
    header.setdefault("functions", {})
    header.setdefault("graph_json", None)
    table = header.setdefault("params", {})
    base = 8 + header_len
    data = np.frombuffer(view, dtype=np.uint8)
    params: dict[str, np.ndarray] = {}
    for name, info in table.items():
        try:
            dtype = np.dtype(dtype_name(info["dtype"])).newbyteorder("<")
            shape = tuple(int(d) for d in info["shape"])
            start, nbytes = base + int(info["offset"]), int(info["nbytes"])
        except (KeyError, TypeError, ValueError) as err:
            raise XTVMError(
                f"xtvm metadata: malformed entry for parameter '{name}': {err}"
            ) from None
        if nbytes != packing.nbytes(shape, dtype.name) or start + nbytes > len(data):
            raise XTVMError(
                f"xtvm metadata: parameter '{name}' ({nbytes} bytes at offset "
                f"{info['offset']}) does not fit its shape {shape} {dtype.name} or the blob"
            )
        params[name] = _read_only(data[start : start + nbytes], shape, dtype)
    return header, params


def save_param_dict(params: dict[str, np.ndarray | NDArray]) -> bytes:
    """Serialise parameters (name -> array) to bytes, as `tvm.runtime.save_param_dict`.

    The format is a metadata blob without functions or graph.
    """
    return pack_metadata({"functions": {}, "graph_json": None}, params)


def load_param_dict(data: bytes | bytearray | memoryview) -> dict[str, np.ndarray]:
    """The parameters serialised by `save_param_dict` (read-only views over `data`)."""
    return unpack_metadata(data)[1]


def pack_header(header: dict[str, Any]) -> bytes:
    """The version-2 metadata: `header` (`functions`, `graph_json`, `params`
    by symbol, optional `entry`) as compact ASCII JSON."""
    full = {**header, "version": HEADER_VERSION}
    return json.dumps(full, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def is_header(buf: bytes | bytearray | memoryview) -> bool:
    """Whether `buf` is version-2 JSON metadata rather than a version-1 blob."""
    view = memoryview(buf).cast("B")
    return len(view) >= 8 and view[0] == ord("{") and view[7] != 0


def unpack_header(buf: bytes | bytearray | memoryview) -> dict[str, Any]:
    """The header of version-2 metadata, checked for the fields the runtime reads."""
    try:
        header = json.loads(bytes(memoryview(buf).cast("B")).decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise XTVMError(f"not xtvm metadata: bad JSON ({err})") from None
    version = header.get("version") if isinstance(header, dict) else None
    if version != HEADER_VERSION:
        raise XTVMError(
            f"unsupported xtvm metadata version {version!r} (this runtime reads {HEADER_VERSION})"
        )
    header.setdefault("functions", {})
    header.setdefault("graph_json", None)
    params = header.setdefault("params", {})
    for name, info in params.items():
        if not (
            isinstance(info, dict)
            and isinstance(info.get("symbol"), str)
            and isinstance(info.get("shape"), list)
            and isinstance(info.get("dtype"), str)
        ):
            raise XTVMError(f"xtvm metadata: malformed entry for parameter '{name}'")
    return header


def params_at(
    header: dict[str, Any], resolve: Callable[[str], int | None], owner: Any
) -> dict[str, np.ndarray]:
    """Read-only views of the parameters of version-2 metadata, each over the
    constant global its `symbol` names (`resolve`: symbol -> address); `owner`
    is kept alive by every view."""
    params: dict[str, np.ndarray] = {}
    for name, info in header.get("params", {}).items():
        address = resolve(info["symbol"])
        if not address:
            raise XTVMError(
                f"xtvm metadata: parameter '{name}' names the symbol '{info['symbol']}', "
                "which the library does not define"
            )
        dtype = np.dtype(dtype_name(info["dtype"])).newbyteorder("<")
        shape = tuple(int(d) for d in info["shape"])
        nbytes = packing.nbytes(shape, dtype.name)
        raw = (ctypes.c_uint8 * max(nbytes, 1)).from_address(address)
        raw._xtvm_owner = owner  # type: ignore[attr-defined]
        params[name] = _read_only(np.frombuffer(raw, np.uint8, nbytes), shape, dtype)
    return params


def _read_only(data: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A read-only array of `shape` over the bytes `data`: a view, or an
    unpacked copy for a packed (sub-byte) dtype."""
    if packing.is_packed(dtype.name):
        arr = packing.unpack(data, shape, dtype.name)
    else:
        arr = data.view(dtype).reshape(shape)
    arr.flags.writeable = False
    return arr
