"""The on-disk kernel cache: object code keyed by what it was compiled from.

An entry is the object file LLVM made from one unit of LLVM IR text (a
kernel with its helper functions, or the AOT entry and metadata: see
:mod:`xtvm.codegen.objects`) for one target. Its key is the sha256 of that
text, the target (triple, CPU, features, relocation model), llvmlite's and
LLVM's versions, the O3 options and :data:`FORMAT_VERSION`; the text is the
exact translation of the kernel's llvm-dialect functions, so a cached object
always corresponds to the same llvm-dialect function.

Where: ``$XTVM_CACHE_DIR``, else ``$XDG_CACHE_HOME/xtvm`` (``~/.cache/xtvm``,
TVM's habit); ``XTVM_CACHE_DIR=off`` (or ``0``, ``none``, empty) turns the
cache off. Entries live in ``objects/<2 hex>/<key>.o``.

Safe against concurrent writers: an entry is written to a temporary file in
its own directory and renamed over the final name (``os.replace``, atomic on
POSIX), so a reader sees a whole entry or none. Safe against corrupt entries:
each starts with a header (magic, payload length, sha256 of the payload); an
entry that does not match it is removed and rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
from pathlib import Path

FORMAT_VERSION = 1
"""Bumped whenever what an entry holds, or how its key is made, changes."""

CACHE_ENV = "XTVM_CACHE_DIR"
_OFF = {"", "0", "off", "none", "false"}
_MAGIC = b"XTVMOBJ1"
_HEADER = struct.Struct("<8sQ32s")  # magic, payload length, sha256 of the payload


def default_cache_dir() -> Path | None:
    """The cache directory the environment selects, or None when it is off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in _OFF else Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xtvm"


def cache_key(*parts: str | bytes) -> str:
    """The sha256 (hex) of the parts, each length-prefixed (no two part lists collide)."""
    h = hashlib.sha256()
    h.update(f"xtvm-kernel-cache-{FORMAT_VERSION}".encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(struct.pack("<Q", len(data)))
        h.update(data)
    return h.hexdigest()


class KernelCache:
    """Object files under ``root`` by key (:func:`cache_key`)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)

    @classmethod
    def from_env(cls) -> KernelCache | None:
        """The cache the environment selects (:func:`default_cache_dir`), or None."""
        root = default_cache_dir()
        return None if root is None else cls(root)

    def path(self, key: str) -> Path:
        return self.root / "objects" / key[:2] / f"{key}.o"

    def get(self, key: str) -> bytes | None:
        """The entry's object code, or None when it is missing or corrupt (a
        corrupt entry is removed, so the caller rebuilds and stores it)."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        if len(raw) >= _HEADER.size:
            magic, size, digest = _HEADER.unpack_from(raw)
            payload = raw[_HEADER.size :]
            intact = size == len(payload) and hashlib.sha256(payload).digest() == digest
            if magic == _MAGIC and intact:
                return payload
        try:
            path.unlink()
        except OSError:
            pass
        return None

    def put(self, key: str, payload: bytes) -> None:
        """Store an entry atomically; a cache that cannot be written is skipped."""
        path = self.path(key)
        header = _HEADER.pack(_MAGIC, len(payload), hashlib.sha256(payload).digest())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=path.parent)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(payload)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


__all__ = ["CACHE_ENV", "FORMAT_VERSION", "KernelCache", "cache_key", "default_cache_dir"]
