"""Devices and NDArrays: host tensors that kernels receive as DLPack `DLTensor`s.

An `NDArray` owns (or aliases) 64-byte-aligned host memory and a ctypes
`DLTensor` describing it (layout: docs/abi.md). Its `handle` is a pointer to
that struct and stays valid, and constant, for the array's lifetime, so a
caller can build a kernel's argument array once and reuse it.

    >>> import numpy as np
    >>> from xtvm.runtime import ndarray as nd
    >>> a = nd.array(np.arange(3, dtype="float32"))
    >>> a.shape, a.dtype, str(a.device)
    ((3,), 'float32', 'cpu(0)')
    >>> a.numpy()
    array([0., 1., 2.], dtype=float32)
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import ml_dtypes  # noqa: F401 (gives NumPy the bfloat16 and float8 dtype names)
import numpy as np

from xtvm.runtime import packing
from xtvm.runtime.base import XTVMError

ALIGNMENT = 64
"""Byte alignment of the data of every NDArray made by `array` and `empty`."""

K_DL_CPU = 1
"""DLPack device type of the host CPU."""

_DEVICE_NAMES = {K_DL_CPU: "cpu"}
_DEVICE_TYPES = {"cpu": K_DL_CPU, "llvm": K_DL_CPU}

# dtype name -> (DLPack type code, bits). Code 0 int, 1 uint, 2 float, 6 bool.
DTYPE_CODES: dict[str, tuple[int, int]] = {
    "int8": (0, 8),
    "int16": (0, 16),
    "int32": (0, 32),
    "int64": (0, 64),
    "uint8": (1, 8),
    "uint16": (1, 16),
    "uint32": (1, 32),
    "uint64": (1, 64),
    "float16": (2, 16),
    "float32": (2, 32),
    "float64": (2, 64),
    "bool": (6, 8),
    # Packed sub-byte types (`packing`); 17 is DLPack 1.1's kDLFloat4_e2m1fn.
    "int4": (0, 4),
    "uint4": (1, 4),
    "int2": (0, 2),
    "uint2": (1, 2),
    "float4_e2m1fn": (17, 4),
    # Storage-only floats (NumPy dtypes from ml_dtypes; docs/element-types.md):
    # DLPack 1.1's kDLBfloat and kDLFloat8_* codes.
    "bfloat16": (4, 16),
    "float8_e4m3fn": (10, 8),
    "float8_e4m3fnuz": (11, 8),
    "float8_e5m2": (12, 8),
    "float8_e5m2fnuz": (13, 8),
    "float8_e8m0fnu": (14, 8),
}


class DLDevice(ctypes.Structure):
    """DLPack `DLDevice`: device type and id."""

    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    """DLPack `DLDataType`: type code, bits per lane, lanes."""

    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    """DLPack `DLTensor` (48 bytes on x86-64), the struct a kernel argument points to."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


assert ctypes.sizeof(DLTensor) == 48, "DLTensor must be 48 bytes (docs/abi.md)"


class Device:
    """A device, as TVM's `Device`: `Device(1, 0)` is `cpu(0)`."""

    __slots__ = ("device_type", "device_id")

    def __init__(self, device_type: int, device_id: int = 0):
        if device_type not in _DEVICE_NAMES:
            raise XTVMError(
                f"unsupported device type {device_type}; xtvm runs on cpu ({K_DL_CPU}) only"
            )
        self.device_type = device_type
        self.device_id = device_id

    def sync(self) -> None:
        """Wait for pending work: a no-op on the CPU, where kernels run synchronously."""

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Device)
            and self.device_type == other.device_type
            and self.device_id == other.device_id
        )

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_id))

    def __str__(self) -> str:
        return f"{_DEVICE_NAMES[self.device_type]}({self.device_id})"

    def __repr__(self) -> str:
        return str(self)


def cpu(dev_id: int = 0) -> Device:
    """The host CPU, `cpu(0)`."""
    return Device(K_DL_CPU, dev_id)


def device(dev_type: str | int, dev_id: int = 0) -> Device:
    """A device by name (`"cpu"`, `"llvm"`) or DLPack type code, as `tvm.device`."""
    if isinstance(dev_type, str):
        name = dev_type.split()[0] if dev_type.strip() else dev_type
        if name not in _DEVICE_TYPES:
            raise XTVMError(
                f"unknown device '{dev_type}'; known: {', '.join(sorted(_DEVICE_TYPES))}"
            )
        return Device(_DEVICE_TYPES[name], dev_id)
    return Device(dev_type, dev_id)


def dtype_name(dtype: Any) -> str:
    """The canonical name of a supported dtype, or an `XTVMError` naming the supported ones."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype)
    if name not in DTYPE_CODES:
        raise XTVMError(f"unsupported dtype '{dtype}'; supported: {', '.join(DTYPE_CODES)}")
    return name


def _shape_tuple(shape: int | Sequence[int]) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    try:
        result = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise XTVMError(f"invalid shape {shape!r}: expected a sequence of integers") from None
    if any(d < 0 for d in result):
        raise XTVMError(f"invalid shape {result}: dimensions must be non-negative")
    return result


def _aligned_bytes(nbytes: int) -> np.ndarray:
    """A uint8 array of `nbytes` (at least 1) whose data is `ALIGNMENT`-aligned."""
    raw = np.empty(max(nbytes, 1) + ALIGNMENT, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGNMENT
    return raw[start : start + max(nbytes, 1)]


class NDArray:
    """A host tensor with a persistent DLTensor, TVM's `tvm.nd.NDArray`.

    Build one with `array`, `empty` or `alias`; the constructor wraps an
    existing C-contiguous NumPy array without copying (it keeps it alive) and
    is what those helpers use.

    An array of a sub-byte dtype (`int4`, `uint4`, `int2`, `uint2`,
    `float4_e2m1fn`) holds its elements packed (`packing`: two 4-bit or four
    2-bit elements a byte, low bits first), as kernels read them: the
    constructor then wraps the packed `uint8` bytes and takes the array's
    `packed=(shape, dtype)`; `numpy()` unpacks into an `ml_dtypes` array and
    `copyfrom` packs one.
    """

    __slots__ = (
        "_array",
        "_shape",
        "_dtype",
        "_shape_buf",
        "_tensor",
        "_handle",
        "_address",
        "_device",
        "__weakref__",
    )

    def __init__(
        self,
        data: np.ndarray,
        device: Device | None = None,
        packed: tuple[Sequence[int], str] | None = None,
    ):
        if not (isinstance(data, np.ndarray) and data.flags.c_contiguous and data.dtype.isnative):
            raise XTVMError(
                "NDArray wraps a C-contiguous, native-byte-order numpy array; use xtvm.nd.array()"
            )
        if packed is None:
            dtype, shape = dtype_name(data.dtype), tuple(data.shape)
            if packing.is_packed(dtype):
                raise XTVMError(
                    f"an NDArray of {dtype} holds its elements packed; use xtvm.nd.array()"
                )
        else:
            shape, dtype = _shape_tuple(packed[0]), dtype_name(packed[1])
            needed = packing.nbytes(shape, dtype)
            if data.dtype != np.uint8 or data.ndim != 1 or data.size < needed:
                raise XTVMError(f"a packed {dtype} NDArray of shape {shape} wraps {needed} bytes")
        self._device = device if device is not None else cpu(0)
        self._array = data
        self._shape = shape
        self._dtype = dtype
        code, bits = DTYPE_CODES[dtype]
        self._shape_buf = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        tensor = DLTensor()
        tensor.data = data.ctypes.data
        tensor.device = DLDevice(self._device.device_type, self._device.device_id)
        tensor.ndim = len(shape)
        tensor.dtype = DLDataType(code, bits, 1)
        tensor.shape = ctypes.cast(self._shape_buf, ctypes.POINTER(ctypes.c_int64))
        tensor.strides = None
        tensor.byte_offset = 0
        self._tensor = tensor
        self._handle = ctypes.pointer(tensor)
        self._address = ctypes.addressof(tensor)

    @property
    def handle(self) -> ctypes._Pointer:
        """A ctypes pointer to this array's DLTensor, stable for the array's lifetime."""
        return self._handle

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def nbytes(self) -> int:
        """Bytes of the contents (packed for sub-byte dtypes)."""
        return packing.nbytes(self._shape, self._dtype)

    @property
    def device(self) -> Device:
        return self._device

    @property
    def data_ptr(self) -> int:
        """The address of the first element."""
        return self._tensor.data

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the contents (an `ml_dtypes` array, one byte an
        element, for a packed dtype)."""
        if packing.is_packed(self._dtype):
            return packing.unpack(self._array, self._shape, self._dtype)
        return self._array.copy()

    asnumpy = numpy

    def view(self) -> np.ndarray:
        """The contents as a NumPy array that aliases this array's memory,
        or, for a packed (sub-byte) dtype, an unpacked copy."""
        if packing.is_packed(self._dtype):
            return self.numpy()
        return self._array

    def copyfrom(self, source: Any) -> NDArray:
        """Copy `source` (an NDArray, a NumPy array, or a nested list/scalar) into this array.

        NDArrays and NumPy arrays must match shape and dtype exactly; lists and
        scalars are converted to this array's dtype.
        """
        if isinstance(source, NDArray):
            if source.shape != self.shape or source.dtype != self.dtype:
                raise XTVMError(
                    f"copyfrom: expected shape {self.shape} {self.dtype}, "
                    f"got {source.shape} {source.dtype}"
                )
            self._array[: self.nbytes if packing.is_packed(self._dtype) else None] = (
                source._array[: source.nbytes if packing.is_packed(source._dtype) else None]
            )
            return self
        if isinstance(source, np.ndarray):
            src = source
        else:
            try:
                src = np.asarray(source, dtype=self.numpy_dtype)
            except (TypeError, ValueError) as err:
                raise XTVMError(
                    f"copyfrom: cannot convert {type(source).__name__}: {err}"
                ) from None
        if src.shape != self.shape or src.dtype != self.numpy_dtype:
            raise XTVMError(
                f"copyfrom: expected shape {self.shape} {self.dtype}, "
                f"got {src.shape} {src.dtype.name}"
            )
        self._store(src)
        return self

    @property
    def numpy_dtype(self) -> np.dtype:
        """The NumPy dtype of `numpy()`'s arrays."""
        return np.dtype(self._dtype)

    def _store(self, src: np.ndarray) -> None:
        """Copy a NumPy array of this array's shape and dtype in (packing it
        for a packed dtype)."""
        if packing.is_packed(self._dtype):
            data = packing.pack(src)
            self._array[: data.size] = data
        else:
            np.copyto(self._array, src)

    def copyto(self, target: NDArray | Device) -> NDArray:
        """Copy into `target`: an NDArray (filled in place) or a Device (a new array)."""
        if isinstance(target, NDArray):
            return target.copyfrom(self)
        if isinstance(target, Device):
            return array(self, target)
        raise XTVMError(f"copyto: expected an NDArray or a Device, got {type(target).__name__}")

    def __setitem__(self, index: Any, value: Any) -> None:
        if not (isinstance(index, slice) and index == slice(None)):
            raise XTVMError("NDArray only supports whole-array assignment: arr[:] = value")
        self.copyfrom(value)

    def __repr__(self) -> str:
        return f"<xtvm.nd.NDArray shape={self.shape}, {self._device}>\n{self.numpy()!r}"

    def __str__(self) -> str:
        return str(self.numpy())


def empty(
    shape: int | Sequence[int], dtype: Any = "float32", device: Device | None = None
) -> NDArray:
    """An uninitialised, 64-byte-aligned NDArray."""
    dims = _shape_tuple(shape)
    name = dtype_name(dtype)
    nbytes = packing.nbytes(dims, name)
    buf = _aligned_bytes(nbytes)
    if packing.is_packed(name):
        return NDArray(buf, device, packed=(dims, name))
    return NDArray(buf[:nbytes].view(np.dtype(name)).reshape(dims), device)


def array(source: Any, device: Device | None = None) -> NDArray:
    """A 64-byte-aligned NDArray holding a copy of `source` (NumPy array, NDArray, list)."""
    if isinstance(source, NDArray):
        return empty(source.shape, source.dtype, device).copyfrom(source)
    src = np.asarray(source)
    result = empty(src.shape, src.dtype, device)
    result._store(src)
    return result


def alias(base: NDArray, byte_offset: int, shape: Sequence[int], dtype: Any) -> NDArray:
    """An NDArray viewing `shape`/`dtype` at `byte_offset` inside `base`'s memory.

    Writes through either array are visible in the other; the view keeps
    `base` alive. The graph executor places its entries in shared storage and
    arenas with this. Its data is aligned as well as `base + byte_offset`.
    """
    dims = _shape_tuple(shape)
    name = dtype_name(dtype)
    dt = np.dtype(name)
    nbytes = packing.nbytes(dims, name)
    flat = base._array.reshape(-1).view(np.uint8)
    if byte_offset < 0 or byte_offset + nbytes > flat.nbytes:
        raise XTVMError(
            f"alias of {nbytes} bytes at offset {byte_offset} exceeds the {flat.nbytes}-byte buffer"
        )
    if (flat.ctypes.data + byte_offset) % dt.itemsize:
        raise XTVMError(f"alias at offset {byte_offset} is misaligned for {dt.name}")
    region = flat[byte_offset : byte_offset + nbytes]
    if packing.is_packed(name):
        return NDArray(region, base.device, packed=(dims, name))
    return NDArray(region.view(dt).reshape(dims), base.device)
