"""The classes of bad input the IR fuzzer (``python -m xtvm.testing.fuzz ir``)
found or was told to look for, each as its reduced reproducer run through
``xtvm-opt``: an error message and exit 1 (or exit 0), never a traceback,
a crash or a hang.

The parser is another area's (``xtvm/ir/parse.py``, ``xtvm/tools/opt.py``):
the cases that still fail are ``xfail(strict=True)`` with the reason, so
the fix turns them into passes (and the marker must then go).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xtvm.testing.fuzz.ir import opt_command
from xtvm.testing.fuzz.worker import limit_memory


def in_function(op: str) -> str:
    return f"func.func @f() {{\n  {op}\n  func.return\n}}\n"


def attribute(attr: str) -> str:
    """``attr`` on an unregistered op (generic form: the attribute parser alone)."""
    return in_function(f'"test.op"() {{fz = {attr}}} : () -> ()')


DEEP = "[" * 1000 + "1" + "]" * 1000
PARSER = "xtvm/ir/parse.py (xDSL's attribute parser underneath)"


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


CASES = [
    # (id, text, xtvm-opt flags, marks)
    (
        "huge-splat-4294967296",
        attribute("dense<1.0> : tensor<4294967296xf32>"),
        [],
        (),  # ir-002: MemoryError until the parser placed it
    ),
    (
        "huge-splat-65536x65536",
        attribute("dense<1.0> : tensor<65536x65536xf32>"),
        [],
        (),  # ir-002: MemoryError until the parser placed it
    ),
    (
        "splat-dim-2^63",
        attribute("dense<1.0> : tensor<9223372036854775808xf32>"),
        [],
        (),  # ir-003: OverflowError until the parser placed it
    ),
    (
        "splat-dim-2^64",
        attribute("dense<1.0> : tensor<18446744073709551616xf32>"),
        [],
        (),  # ir-003: OverflowError until the parser placed it
    ),
    (
        "f80-dense",
        attribute("dense<1.0> : tensor<f80>"),
        [],
        (),  # ir-007: NotImplementedError until the parser placed it
    ),
    (
        "f80-dense-on-prim-func",
        "tir.prim_func @k(%A: memref<4xf32>) attributes {fz = dense<1.0> : tensor<f80>} {\n"
        "  tir.return\n}\n",
        ["-p", "tir-apply-schedule"],
        (),  # ir-012
    ),
    (
        "f80-float-attribute-on-a-failing-op",
        "func.func @main(%x: tensor<3x4xf32>, %c: tensor<3xi1>) -> tensor<?x4xf32> {\n"
        "  %t = relay.compress_shape %x, %c {axis = 0 : i64} : "
        "(tensor<3x4xf32>, tensor<3xi1>) -> tensor<2xi64>\n"
        "  %z = relay.compress %x, %c, %t {axis = 0 : f80} : "
        "(tensor<3x4xf32>, tensor<3xi1>, tensor<2xi64>) -> tensor<?x4xf32>\n"
        "  func.return %z : tensor<?x4xf32>\n}\n",
        ["-p", "convert-relay-to-tir{schedules=false}"],
        (),  # ir seed 21: NotImplementedError printing the verifier's message; refused at parse now
    ),
    (
        "tf32-float-attribute",
        attribute("0 : tf32"),
        [],
        (),  # ir seed 22: AttributeError (tf32 has no storage format at all) in the seed-21 check
    ),
    (
        "i4294967295-dense",
        attribute("dense<1> : tensor<2xi4294967295>"),
        [],
        (),  # ir-013: refused lexically (MLIR's widest integer is i16777215)
    ),
    (
        "nesting-1000-deep-array",
        attribute(DEEP),
        [],
        (),
    ),  # ir-004: RecursionError until the parser's fix
    (
        "nesting-1000-deep-type",
        in_function('"test.op"() : () -> ' + "tuple<" * 1000 + "f32" + ">" * 1000),
        [],
        (),
    ),  # ir-004
    (
        "nesting-1000-deep-on-prim-func",
        "tir.prim_func @k(%A: memref<4xf32>) attributes {fz = " + DEEP + "} {\n  tir.return\n}\n",
        [],
        (),
    ),  # ir-006: RecursionError through tir.prim_func's parse
    (
        "float-where-an-integer-property-goes",
        in_function(
            "%s = memory.alloc_storage {size = 16 : i64, alignment = 64 : f32} : !memory.storage"
        ),
        ["-p", "memory-plan"],
        (),
    ),  # ir-001: VerifyException escaped the custom format's property check
    (
        "integer-out-of-range-in-a-relay-attribute-dict",
        "func.func @f(%x: tensor<1x4x9x9xf32>, %w: tensor<6x1x3x3xf32>) {\n"
        "  %y = relay.nn.conv2d %x, %w {fz = -1 : ui8, groups = 3 : i64} : "
        "(tensor<1x4x9x9xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x7x7xf32>\n  func.return\n}\n",
        [],
        (),
    ),  # ir-010: VerifyException (-1 out of range for ui8) escaped
    (
        "integer-out-of-range-on-prim-func",
        "tir.prim_func @k(%A: memref<8xf32>) attributes {fz = 2 : i1} {\n  tir.return\n}\n",
        [],
        (),
    ),  # ir-011: VerifyException (2 out of range for i1) escaped tir.prim_func's parse
    (
        "unterminated-string-with-a-long-tail",
        in_function(
            '%a = relay.gather %x, %i {axis = 2 : i64} : (tensor<2x3x4xf32>, "<2x3x2xi64>) '
            "-> tensor<2x3x2xf32> and some more text after it"
        ),
        [],
        (),  # ir-009: hung in xDSL's string regex; refused lexically now
    ),
    # the classes that are handled
    ("complex-dense", attribute("dense<(1.0, 2.0)> : tensor<complex<f32>>"), [], ()),
    ("memref-dim-2^64", attribute("memref<18446744073709551616xf32>"), [], ()),
    ("tensor-type-dim-2^63", attribute("tensor<9223372036854775808xf32>"), [], ()),
    ("integer-out-of-range-generic", attribute("-1 : ui8"), [], ()),
    ("bad-bytes", in_function('"test.op"() : () -> ()\x00\xff'), [], ()),
]


def run_opt(path: Path | str, flags: list[str], timeout: float = 20) -> tuple[int | None, str]:
    try:
        proc = subprocess.run(
            [*opt_command(), str(path), *flags],
            capture_output=True,
            timeout=timeout,
            preexec_fn=lambda: limit_memory(3 << 30),
        )
    except subprocess.TimeoutExpired:
        return None, "timed out"
    return proc.returncode, proc.stderr.decode(errors="replace")


@pytest.mark.parametrize(
    "text, flags",
    [pytest.param(text, flags, id=name, marks=marks) for name, text, flags, marks in CASES],
)
def test_bad_ir_is_a_clean_error(text: str, flags: list[str], tmp_path: Path) -> None:
    path = tmp_path / "case.mlir"
    path.write_bytes(
        text.encode("utf-8", errors="surrogateescape") if isinstance(text, str) else text
    )
    code, stderr = run_opt(path, flags)
    assert code is not None, "xtvm-opt did not finish within 20 s"
    assert "Traceback" not in stderr, stderr[-1500:]
    assert code in (0, 1), (code, stderr[-1500:])
    if code == 1:
        assert "error" in stderr, stderr[-1500:]


def test_a_directory_as_input_is_a_clean_error(tmp_path: Path) -> None:
    code, stderr = run_opt(tmp_path, [])
    assert code == 1 and "Traceback" not in stderr and "Is a directory" in stderr


def test_the_known_classes_are_among_the_mutations() -> None:
    from xtvm.testing.fuzz import ir

    attrs = b"\n".join(ir.HUGE_ATTRIBUTES)
    for needle in [
        b"tensor<4294967296xf32>",
        b"tensor<f80>",
        b"complex<f32>",
        b"memref<18446744073709551616xf32>",
        b"9223372036854775808",
    ]:
        assert needle in attrs
    assert b"9223372036854775808" in ir.ODD_DIMS and b"18446744073709551616" in ir.ODD_DIMS
    assert "deep-nesting" in ir.MUTATIONS and ir.DIRECTORY == "directory-input"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
