"""`xtvm.nd`: TVM's `tvm.nd` spelling of the runtime's NDArray helpers.

`array` and `empty` also take a remote device (`remote.cpu(0)` of an
`xtvm.rpc` session): the array is then made in that session. The remote
device is recognised by its `remote_array`/`remote_empty` methods, so this
module does not import `xtvm.rpc`.
"""

from collections.abc import Sequence
from typing import Any

from xtvm.runtime import ndarray as _runtime
from xtvm.runtime.ndarray import NDArray, alias, cpu


def array(source: Any, device: Any = None) -> Any:
    """A copy of `source` on `device` (default `cpu(0)`; a remote device makes a remote array)."""
    if hasattr(device, "remote_array"):
        return device.remote_array(source)
    return _runtime.array(source, device)


def empty(shape: int | Sequence[int], dtype: Any = "float32", device: Any = None) -> Any:
    """An uninitialised array on `device` (default `cpu(0)`; a remote device makes a remote array)."""
    if hasattr(device, "remote_empty"):
        return device.remote_empty(shape if isinstance(shape, Sequence) else (shape,), dtype)
    return _runtime.empty(shape, dtype, device)


__all__ = ["NDArray", "alias", "array", "cpu", "empty"]
