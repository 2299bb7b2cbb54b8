"""tir → C source: the `c` target's kernels (see `convert_tir_to_c.py`)."""

from xtvm.lowering.tir_to_c.convert_tir_to_c import (
    C_OPENMP_ATTR,
    C_SOURCE_ATTR,
    ConvertTirToCPass,
    c_sources,
    convert_tir_to_c,
    emit_c,
    translate_prim_func,
    translation_unit,
)
from xtvm.lowering.tir_to_c.types import CTranslationError

__all__ = [
    "C_OPENMP_ATTR",
    "C_SOURCE_ATTR",
    "CTranslationError",
    "ConvertTirToCPass",
    "c_sources",
    "convert_tir_to_c",
    "emit_c",
    "translate_prim_func",
    "translation_unit",
]
