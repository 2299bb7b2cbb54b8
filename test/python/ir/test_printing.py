"""Weights in the text: large constants print as MLIR ``dense_resource`` blobs
(xtvm.ir.printing) and parse back bit-identical (xtvm.ir.resources); an
elided file prints and parses again but says so when its values are needed;
a broken blob is a located error; upstream mlir-opt reads the section."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects import arith
from xdsl.dialects.builtin import Builtin, DenseIntOrFPElementsAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from xtvm.constants import const_from_numpy, dense_from_numpy, numpy_from_const
from xtvm.driver.pipeline import mlir_context
from xtvm.ir.printing import RESOURCE_THRESHOLD, module_text, resource_key
from xtvm.ir.resources import (
    ElidedConstantError,
    check_not_elided,
    decode_blob,
    parse_with_resources,
)


def parse(text: str, filename: str = "w.mlir") -> ModuleOp:
    module = parse_with_resources(
        lambda: Parser(mlir_context(), text, filename).parse_module(), text, filename
    )
    module.verify()
    return module


def consts(*arrays: np.ndarray, names: tuple[str | None, ...] = ()) -> ModuleOp:
    ops = [const_from_numpy(a) for a in arrays]
    for op, name in zip(ops, names, strict=False):
        op.result.name_hint = name
    return ModuleOp(ops)


def values(module: ModuleOp) -> list[np.ndarray]:
    return [numpy_from_const(op) for op in module.ops]


def blob_store() -> dict[str, str]:
    return Builtin.get_interface(OpAsmDialectInterface)._blob_storage


rng = np.random.default_rng(0)
WEIGHTS = {
    "f32": np.concatenate([rng.standard_normal(300), [np.nan, -0.0, np.inf]]).astype(np.float32),
    "f16": rng.standard_normal((16, 9)).astype(np.float16),
    "f64": rng.standard_normal(128),
    "i1": rng.random(200) < 0.5,
    "i8": rng.integers(-128, 128, 257).astype(np.int8),
    "ui8": rng.integers(0, 256, (3, 50)).astype(np.uint8),
    "i64": rng.integers(-(2**62), 2**62, 101),
}


@pytest.mark.parametrize("dtype", WEIGHTS)
def test_round_trip_is_bit_identical(dtype):
    module = consts(WEIGHTS[dtype], names=("w",))
    text = module_text(module)
    assert "dense_resource<w>" in text and "{-#" in text
    again = parse(text)
    (array,) = values(again)
    assert array.dtype == WEIGHTS[dtype].dtype and array.shape == WEIGHTS[dtype].shape
    assert array.tobytes() == np.asarray(WEIGHTS[dtype]).tobytes()
    assert again.body.block.first_op.value == module.body.block.first_op.value
    assert module_text(again) == text


def test_printed_form_is_mlirs_resource_section():
    weight, flags = np.arange(128, dtype=np.float32), np.array([True, False] * 60)
    module = consts(weight, flags, names=("fc1.weight",))
    text = module_text(module)
    assert "%fc1.weight = relay.const dense_resource<fc1.weight> : tensor<128xf32>" in text
    assert "relay.const dense_resource<__xtvm_const_0> : tensor<120xi1>" in text
    section = text[text.index("{-#") :]
    assert re.fullmatch(
        r'\{-#\n  dialect_resources: \{\n    builtin: \{\n'
        r'      fc1\.weight: "0x04000000[0-9A-F]+",\n'
        r'      __xtvm_const_0: "0x01000000(0100)+"\n'
        r"    \}\n  \}\n#-\}\n",
        section,
    ), section
    # the alignment is the element size; i1 is one byte per element, true as 0x01 (MLIR's bool)
    blob = decode_blob(re.search(r'weight: "(0x[0-9A-F]+)"', text)[1])
    assert blob[4:8] == np.float32(1).tobytes()


def test_small_and_splat_constants_stay_inline():
    small = np.arange(RESOURCE_THRESHOLD, dtype=np.float32)
    text = module_text(consts(small, np.zeros((64, 64), np.float32), np.ones(500, bool)))
    assert "dense_resource" not in text and "{-#" not in text
    assert "dense<0.000000e+00> : tensor<64x64xf32>" in text
    assert "dense<true> : tensor<500xi1>" in text


def test_keys_are_valid_unique_identifiers():
    a, b, c = (np.arange(200, dtype=np.float32) + i for i in range(3))
    module = consts(a, b, c, names=("w-1", "w_1", None))
    text = module_text(module)
    keys = re.findall(r"dense_resource<([^>]+)>", text)
    assert len(set(keys)) == 3 and keys[2] == "__xtvm_const_0", keys
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", k) for k in keys)
    assert [v.tobytes() for v in values(parse(text))] == [a.tobytes(), b.tobytes(), c.tobytes()]
    assert resource_key("onnx::Conv_1") == "onnx__Conv_1" and resource_key("0w") == "_0w"


def test_an_attribute_used_twice_is_one_blob():
    attr = dense_from_numpy(np.arange(200, dtype=np.int32))
    module = ModuleOp([arith.ConstantOp(attr), arith.ConstantOp(attr)])
    text = module_text(module)
    assert text.count("__xtvm_const_0") == 3 and "__xtvm_const_1" not in text
    again = parse(text)
    assert all(op.value == attr for op in again.ops)


def test_parsing_twice_works_and_frees_the_blobs():
    text = module_text(consts(np.arange(300, dtype=np.float32), names=("w",)))
    store = blob_store()
    before = dict(store)
    first, second = parse(text), parse(text)
    assert values(first)[0].tobytes() == values(second)[0].tobytes()
    assert blob_store() is store and store == before  # nothing left behind, nothing renamed


def test_elided_constants_print_parse_and_print_again():
    w, b = np.arange(200, dtype=np.float32), np.arange(8, dtype=np.float32)
    module = consts(w, b, names=("w", "b"))
    text = module_text(module, elide_larger_than=16)
    assert "%w = relay.const dense_resource<__elided__> : tensor<200xf32>" in text
    assert "dense<[0.000000e+00" in text and "{-#" not in text
    again = parse(text)
    assert module_text(again) == text
    with pytest.raises(ElidedConstantError, match=(
        r"constant 'relay.const' : tensor<200xf32> was elided when the file was "
        r"printed \(--elide-large-constants\); print it again without that flag"
    )):
        numpy_from_const(again.body.block.first_op)
    with pytest.raises(ElidedConstantError, match="'relay.const' : tensor<200xf32> was elided"):
        check_not_elided(again)
    check_not_elided(module)


def test_elision_beyond_a_resource_keeps_the_smaller_as_blobs():
    module = consts(np.arange(200, dtype=np.float32), np.arange(1000, dtype=np.float32))
    text = module_text(module, elide_larger_than=500)
    assert text.count("dense_resource<__elided__>") == 1 and "__xtvm_const_0: " in text
    again = parse(text)
    first = numpy_from_const(again.body.block.first_op)
    assert first.tobytes() == np.arange(200, dtype=np.float32).tobytes()


BODY = "%w = relay.const dense_resource<w> : tensor<2xf32>\n"


def section(blob: str) -> str:
    return (
        f'{{-#\n  dialect_resources: {{\n    builtin: {{\n      w: "{blob}"\n'
        "    }\n  }\n#-}\n"
    )


@pytest.mark.parametrize(
    "text, where, message",
    [
        (BODY, "w.mlir:1:18", "section has no blob of that name"),
        (BODY + section("0x040000000000803F"), "w.mlir:1:18",
         "the type needs 8 bytes, but the blob holds 4"),
        (BODY + section("0x040000000000803F0000004"), "w.mlir:5:7",
         "odd number of hex digits (23): cut short?"),
        (BODY + section("0x0400000000Z0803F00000040"), "w.mlir:5:7",
         "digit 10 ('Z') is not a hex digit"),
        (BODY + section("0x03000000000000000000803F"), "w.mlir:5:7",
         "alignment 3 is not a power of two"),
        (BODY + section("0x0400"), "w.mlir:5:7", "shorter than its 4-byte alignment header"),
        ("%w = relay.const dense_resource<w> : tensor<2xcomplex<f32>>\n" + section("0x04"),
         "w.mlir:1:18", "integer and floating-point elements only"),
    ],
)
def test_a_bad_blob_is_a_located_error(text, where, message):
    with pytest.raises(ParseError) as info:
        parse(text)
    assert where in str(info.value) and message in str(info.value), str(info.value)


def test_a_blob_that_is_not_hex_at_all_is_a_parse_error():
    with pytest.raises(ParseError, match="Blob must be a hex string"):
        parse(BODY + section("zz"))


MLIR_OPT = shutil.which("mlir-opt-19")


@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-19 is not installed")
@pytest.mark.parametrize("generic_relay", [False, True])
def test_upstream_mlir_opt_reads_and_writes_the_same_blobs(tmp_path, generic_relay):
    arrays = [WEIGHTS["f32"], WEIGHTS["f16"], WEIGHTS["i1"], WEIGHTS["i8"]]
    if generic_relay:  # relay ops are unknown upstream: generic form, unregistered dialect
        module = consts(*arrays, names=("w0", "w1", "w2", "w3"))
        text = module_text(module, print_generic_format=True)
        flags = ["--allow-unregistered-dialect", "--mlir-print-op-generic"]
    else:
        module = ModuleOp([arith.ConstantOp(dense_from_numpy(a)) for a in arrays])
        text = module_text(module)
        flags = []
    path = tmp_path / "w.mlir"
    path.write_text(text)
    result = subprocess.run([MLIR_OPT, *flags, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "dialect_resources" in result.stdout
    again = parse(result.stdout)  # mlir-opt's own output, read back by xtvm
    got = [op.properties["value"] for op in again.ops]
    assert all(isinstance(v, DenseIntOrFPElementsAttr) for v in got)
    assert got == [op.properties["value"] for op in module.ops]


def test_a_symbol_names_the_blob_of_its_constant():
    data = np.arange(200, dtype=np.float32)
    text = (
        f'llvm.mlir.global external constant @fc1_weight(dense<"0x{data.tobytes().hex()}"> : '
        "tensor<200xf32>) {addr_space = 0 : i32} : !llvm.array<200 x f32>\n"
    )
    printed = module_text(parse(text))
    assert "@fc1_weight(dense_resource<fc1_weight> : tensor<200xf32>)" in printed
    assert module_text(parse(printed)) == printed


def test_a_constant_nested_in_attributes_round_trips():
    data = np.arange(200, dtype=np.float32)
    dense = f'dense<"0x{data.tobytes().hex()}"> : tensor<200xf32>'
    text = (
        f"func.func @f(%x: tensor<2xf32> {{my.w = {dense}}}) "
        f"attributes {{my.table = [{{w = {dense}}}]}} {{\n  func.return\n}}\n"
    )
    printed = module_text(parse(text))
    assert printed.count("dense_resource<") == 2
    again = parse(printed)
    assert module_text(again) == printed
    fn = again.body.block.first_op
    assert fn.arg_attrs.data[0].data["my.w"] == dense_from_numpy(data)
    assert fn.attributes["my.table"].data[0].data["w"] == dense_from_numpy(data)


def test_an_elided_constant_nested_in_attributes_is_found():
    text = (
        "func.func @f(%x: tensor<2xf32> {my.w = dense_resource<__elided__> : tensor<200xf32>}) {\n"
        "  func.return\n}\n"
    )
    module = parse(text)
    assert module_text(module) == "builtin.module {\n" + "\n".join(
        "  " + line if line else line for line in text.rstrip("\n").split("\n")
    ) + "\n}\n"
    with pytest.raises(ElidedConstantError, match="constant 'func.func'"):
        check_not_elided(module)
