"""convert-tir-to-llvm as conversion patterns: one family pattern per scalar
op family, in the category file of its dialect; a tir lowering for every
body op of the tir dialect; partial conversion and the legality report."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xtvm.dialects.tir import TIR, PrimFuncOp
from xtvm.driver.pipeline import mlir_context
from xtvm.lowering.conversion import ConversionError
from xtvm.lowering.tir_to_llvm.arith import ARITH_PATTERNS
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import convert_tir_to_llvm
from xtvm.lowering.tir_to_llvm.function import STRUCTURAL_LOWERINGS
from xtvm.lowering.tir_to_llvm.math import MATH_PATTERNS
from xtvm.lowering.tir_to_llvm.scalar import LOWERINGS, SCALAR_PATTERNS


@pytest.mark.parametrize(
    ("patterns", "dialect"), [(ARITH_PATTERNS, "arith"), (MATH_PATTERNS, "math")]
)
def test_each_family_lives_in_its_dialects_file(patterns, dialect):
    for pattern in patterns:
        assert pattern.ops, pattern.__name__
        assert {op.name.split(".")[0] for op in pattern.ops} == {dialect}, pattern.__name__


def test_the_op_table_is_the_pattern_list():
    """Every op has exactly one family, and LOWERINGS holds nothing else
    (each family's lowering, behind the storage-only-float check but for
    the ops that move bits)."""
    assert sum(len(p.ops) for p in SCALAR_PATTERNS) == len(LOWERINGS)
    for pattern in SCALAR_PATTERNS:
        for op in pattern.ops:
            assert getattr(LOWERINGS[op], "__wrapped__", LOWERINGS[op]) == pattern.lower


def _lit_inputs_of_the_pass() -> str:
    """The IR (comments dropped) of every lit file that runs convert-tir-to-llvm."""
    root = Path(__file__).resolve().parents[3] / "test" / "lit"
    texts = [p.read_text() for p in root.rglob("*.mlir") if "Output" not in p.parts]
    runs = [
        text
        for text in texts
        if any("RUN:" in line and "convert-tir-to-llvm" in line for line in text.splitlines())
    ]
    return "\n".join(
        line for text in runs for line in text.splitlines() if not line.lstrip().startswith("//")
    )


def test_every_family_is_exercised_by_a_lit_test():
    ir = _lit_inputs_of_the_pass()
    for pattern in SCALAR_PATTERNS:
        assert any(f" {op.name} " in ir for op in pattern.ops), pattern.__name__


def test_every_tir_body_op_has_a_lowering():
    body_ops = {op for op in TIR.operations if op is not PrimFuncOp}
    assert body_ops == set(STRUCTURAL_LOWERINGS)


def _module(text: str) -> ModuleOp:
    return Parser(mlir_context(), text).parse_module()


_MIXED = """
tir.prim_func @ipow(%A: memref<4xi32>, %a: i32) {
  %c0 = arith.constant 0 : index
  %p = math.ipowi %a, %a : i32
  tir.store %p, %A[%c0] : memref<4xi32>
  tir.return
}
tir.prim_func @ok(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = tir.load %A[%c0] : memref<4xf32>
  %y = arith.addf %x, %x : f32
  tir.store %y, %A[%c0] : memref<4xf32>
  tir.return
}
"""


def test_partial_conversion_returns_what_blocks_and_lowers_the_rest():
    module = _module(_MIXED)
    unlowered = convert_tir_to_llvm(module, partial=True)
    assert [op.name for op in unlowered] == ["tir.prim_func", "math.ipowi"]
    assert isinstance(unlowered[0], PrimFuncOp) and unlowered[0].sym_name.data == "ipow"
    funcs = [op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)]
    assert funcs == ["ok_impl", "ok"]
    kept = [op for op in unlowered[0].walk() if isinstance(op, arith.ConstantOp | math.IPowIOp)]
    assert len(kept) == 2  # nothing inside the kept prim_func was touched


def test_full_conversion_names_the_unlowered_op():
    with pytest.raises(ConversionError) as info:
        convert_tir_to_llvm(_module(_MIXED))
    message = str(info.value)
    assert message.startswith("convert-tir-to-llvm: 2 op(s) left unlowered")
    assert "'math.ipowi'\n    %p = math.ipowi %a, %a : i32" in message
    assert "arith.constant" not in message.split("'math.ipowi'")[1]
