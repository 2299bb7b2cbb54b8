"""`xtvm.nd`: TVM's `tvm.nd` spelling of the runtime's NDArray helpers."""

from xtvm.runtime.ndarray import NDArray, alias, array, cpu, empty

__all__ = ["NDArray", "alias", "array", "cpu", "empty"]
