"""One spelling of each data type: xDSL element types ↔ NumPy/DLPack dtype
names (``"float32"``). NumPy-free, so dialects and tools may import it; the
tensor-expression dtypes (:mod:`xtvm.te.dtype`) map to xDSL types through it."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, Signedness, f16, f32, f64, i1
from xdsl.ir import Attribute

_FLOATS: dict[str, Attribute] = {"float16": f16, "float32": f32, "float64": f64}


def element_type(dtype: str) -> Attribute:
    """The xDSL element type of a dtype name (signless integers for signed
    ints, ``ui8``-style unsigned integers, ``i1`` for bool)."""
    if dtype in _FLOATS:
        return _FLOATS[dtype]
    if dtype == "bool":
        return i1
    for prefix, signedness in (("uint", Signedness.UNSIGNED), ("int", Signedness.SIGNLESS)):
        if dtype.startswith(prefix) and dtype[len(prefix) :].isdigit():
            return IntegerType(int(dtype[len(prefix) :]), signedness)
    raise ValueError(f"unsupported dtype '{dtype}'")


def dtype_name(ty: Attribute) -> str:
    """The dtype name of an xDSL element type (the inverse of :func:`element_type`)."""
    for name, float_type in _FLOATS.items():
        if ty == float_type:
            return name
    if isinstance(ty, IntegerType):
        width = ty.width.data
        if width == 1:
            return "bool"
        unsigned = ty.signedness.data == Signedness.UNSIGNED
        return f"{'uint' if unsigned else 'int'}{width}"
    raise ValueError(f"no dtype for element type {ty}")
