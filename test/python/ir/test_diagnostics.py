"""xtvm.ir.parse and xtvm.ir.diagnostics: parsed ops know their file:line:col,
chunks keep the file's positions, the verifier reports every failing op, a
failed pass is placed at the op it is about."""

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.utils.exceptions import ParseError, PassFailedException

from xtvm.ir import describe_op, location_of
from xtvm.ir.diagnostics import Diagnostic, failing_op, failure_diagnostic, verify_ops
from xtvm.ir.parse import parse_module, split_input

TWO_BAD = """func.func @main(%x: tensor<1x8x4x4xf32>, %i: tensor<1x8x4x4xi32>) {
  %y = relay.nn.lrn %x {size = 0 : i64} : tensor<1x8x4x4xf32>
  %z = relay.nn.lrn %i : tensor<1x8x4x4xi32>
  func.return
}
"""


def test_every_parsed_op_has_its_location():
    module = parse_module(TWO_BAD, "two.mlir")
    ops = {op.name: op for op in module.walk()}
    assert location_of(ops["func.func"]) == "two.mlir:1:1"
    assert location_of(ops["func.return"]) == "two.mlir:4:3"
    y, z = [op for op in module.walk() if op.name == "relay.nn.lrn"]
    assert (location_of(y), location_of(z)) == ("two.mlir:2:3", "two.mlir:3:3")
    assert describe_op(z) == "'relay.nn.lrn' at two.mlir:3:3"
    assert "loc(" not in str(module)  # printed only with debug info


def test_explicit_loc_is_kept():
    module = parse_module('"test.op"() : () -> () loc("orig.py":7:9)\n', "f.mlir", _unregistered())
    (op,) = module.ops
    assert isinstance(op.location, FileLineColLoc) and location_of(op) == "orig.py:7:9"


def _unregistered():
    from xtvm.ir.parse import default_context

    ctx = default_context()
    ctx.allow_unregistered = True
    return ctx


def test_split_input_keeps_file_positions():
    text = "%a = relay.const dense<1.0> : tensor<f32>\n// -----\n\n  %b = relay.const dense<2.0> : tensor<f32>\n"
    first, second = split_input(text)
    (b,) = parse_module(second, "s.mlir").ops
    assert location_of(b) == "s.mlir:4:3"
    assert parse_module(first, "s.mlir").ops.first is not None


def test_verify_reports_every_failing_op():
    diagnostics = verify_ops(parse_module(TWO_BAD, "two.mlir"))
    assert [(d.line, d.column) for d in diagnostics] == [(2, 3), (3, 3)]
    assert "size must be >= 1, got 0" in diagnostics[0].message
    assert "expects a floating-point tensor, got i32" in diagnostics[1].message


def test_render_with_source_line_and_caret():
    d = verify_ops(parse_module(TWO_BAD, "two.mlir"))[1].with_source(TWO_BAD)
    assert d.render().split("\n") == [
        "two.mlir:3:3: error: 'relay.nn.lrn' expects a floating-point tensor, got i32",
        "  %z = relay.nn.lrn %i : tensor<1x8x4x4xi32>",
        "  ^",
    ]
    assert Diagnostic("error", "no place").render() == "error: no place"
    assert Diagnostic("error", "in a file", "f.mlir").render() == "f.mlir: error: in a file"


def test_parse_error_diagnostic():
    try:
        parse_module("func.func @f() {\n  %y = relay.nn.relu %x, : tensor<2xf32>\n}\n", "p.mlir")
    except ParseError as e:
        d = Diagnostic.from_parse_error(e)
    assert (d.filename, d.line) == ("p.mlir", 2)
    assert d.source_line == "  %y = relay.nn.relu %x, : tensor<2xf32>"


def test_unregistered_op_is_reported_at_its_name():
    try:
        parse_module("func.func @f() {\n  foo.bar\n}\n", "u.mlir")
    except ParseError as e:
        d = Diagnostic.from_parse_error(e)
    assert (d.line, d.column) == (2, 3) and "foo.bar is not registered" in d.message


def test_failed_pass_is_placed_at_the_op_it_prints():
    module = parse_module(TWO_BAD, "two.mlir")
    z = [op for op in module.walk() if op.name == "relay.nn.lrn"][1]
    error = PassFailedException(f"some-pass: cannot do it:\n  in: {z}")
    assert failing_op(module, error) is z
    assert failure_diagnostic(module, error).where == "two.mlir:3:3"


def test_failed_pass_naming_a_symbol_or_carrying_an_op():
    module = parse_module(TWO_BAD, "two.mlir")
    assert failure_diagnostic(module, PassFailedException("p: @main is wrong")).where == "two.mlir:1:1"
    error = PassFailedException("p: no op named")
    z = [op for op in module.walk() if op.name == "relay.nn.lrn"][1]
    error.op = z
    assert failing_op(module, error) is z
    unplaced = failure_diagnostic(module, PassFailedException("p: nothing to point at"), "two.mlir")
    assert unplaced.where is None and unplaced.filename == "two.mlir"


def test_a_float_attribute_xdsl_cannot_print_is_a_parse_error():
    # xDSL parses `0.0 : f128` but cannot print (or pack) it: a verifier's
    # message about the op then failed while printing it (IR fuzzer, seed 21)
    text = (
        "func.func @f() {\n"
        '  %r = relay.arange {start = 0.0 : f128, stop = 4.0 : f64, step = 2.0 : f64, dtype = "int64"} : tensor<4xi64>\n'
        "  func.return\n}\n"
    )
    try:
        parse_module(text, "f.mlir")
        raise AssertionError("should not parse")
    except ParseError as e:
        d = Diagnostic.from_parse_error(e)
    assert (d.line, d.column) == (2, 30)
    assert "float attribute of type f128 cannot be represented" in d.message


def test_attribute_that_fails_verification_is_a_parse_error():
    try:
        parse_module('"test.op"() {v = 3 : i0} : () -> ()\n', "a.mlir", _unregistered())
        raise AssertionError("should not parse")
    except ParseError as e:
        d = Diagnostic.from_parse_error(e)
    assert d.line == 1 and "out of range for type i0" in d.message


def test_a_value_xdsl_cannot_build_is_a_parse_error():
    # found by the IR fuzzer: xDSL raises OverflowError building this splat
    try:
        parse_module("%c = relay.const dense<1.0> : tensor<18446744073709551616xf32>\n", "o.mlir")
        raise AssertionError("should not parse")
    except ParseError as e:
        d = Diagnostic.from_parse_error(e)
    assert d.line == 1 and d.message.startswith("cannot build this value:")
