"""convert-relay-to-tir as conversion patterns: every relay compute op has
exactly one lowering pattern, in the category file named like the dialect
file that defines the op; the patterns run through the one conversion
driver (legality check, partial conversion); the pass's options reach the
kernel builder."""

import importlib
import pkgutil

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

import xtvm.lowering.relay_to_tir as relay_to_tir
from xtvm.dialects import relay, tir
from xtvm.dialects.relay import RELAY_OPS
from xtvm.driver.pipeline import mlir_context
from xtvm.lowering.conversion import ConversionError, apply_conversion
from xtvm.lowering.relay_to_tir import GRAPH_OPS, PATTERNS, populate_relay_to_tir_patterns
from xtvm.lowering.relay_to_tir.convert_relay_to_tir import (
    CATEGORIES,
    TARGET,
    ConvertRelayToTirPass,
    category_name,
    patterns_of,
)
from xtvm.lowering.relay_to_tir.patterns import LowerOpByClass, lower
from xtvm.transform import PassContext

GRAPH = """
func.func private @fused_nn_relu(%p0: tensor<2x64xf32>) -> tensor<2x64xf32> attributes {relay.primitive} {
  %0 = relay.nn.relu %p0 : tensor<2x64xf32>
  func.return %0 : tensor<2x64xf32>
}
func.func @main(%x: tensor<2x64xf32>, %y: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %a = relay.add %x, %y : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %r = relay.nn.relu %a : tensor<2x64xf32>
  %f = func.call @fused_nn_relu(%r) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  func.return %f : tensor<2x64xf32>
}
"""


def parse(text: str = GRAPH) -> ModuleOp:
    return Parser(mlir_context(), text).parse_module()


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if op is not module]


def loop_kinds(module: ModuleOp) -> set[str]:
    return {op.kind.data for op in module.walk() if isinstance(op, tir.ForOp)}


def test_every_compute_op_has_one_pattern_in_its_category_file() -> None:
    where: dict[type, list[str]] = {}
    for category in CATEGORIES:
        for pattern in category.PATTERNS:
            for op in pattern.ops:
                where.setdefault(op, []).append(category_name(category))
    for op in RELAY_OPS:
        if issubclass(op, GRAPH_OPS):
            assert op not in where, f"{op.name} computes nothing, yet has a lowering"
            continue
        dialect_file = op.__module__.rsplit(".", 1)[-1]
        assert where.get(op) == [dialect_file], (
            f"{op.name} (defined in xtvm/dialects/relay/{dialect_file}.py) is lowered in "
            f"{where.get(op, 'no category')}; expected once, in "
            f"xtvm/lowering/relay_to_tir/{dialect_file}.py"
        )


def test_every_category_file_is_listed_and_lists_its_ops() -> None:
    files = {
        info.name
        for info in pkgutil.iter_modules(relay_to_tir.__path__)
        if info.name != "convert_relay_to_tir"  # PATTERNS there: every category's
        and hasattr(importlib.import_module(f"{relay_to_tir.__name__}.{info.name}"), "PATTERNS")
    }
    assert files == {category_name(c) for c in CATEGORIES}
    for category in CATEGORIES:
        assert category.OPS == tuple(op for p in category.PATTERNS for op in p.ops)


def test_an_op_lowered_twice_is_an_error() -> None:
    twice = [*PATTERNS, lower(relay.AddOp, lambda ins, attrs, outs: ins[0])]
    with pytest.raises(ValueError, match="'relay.add' has two lowering patterns"):
        LowerOpByClass.of(twice)


def test_full_conversion_leaves_no_relay_compute_op() -> None:
    module = parse()
    assert apply_conversion(module, populate_relay_to_tir_patterns(), TARGET, pass_name="t") == []
    names = op_names(module)
    assert "relay.add" not in names and "relay.nn.relu" not in names and "func.call" not in names
    kernels = {op.sym_name.data for op in module.ops if isinstance(op, tir.PrimFuncOp)}
    assert kernels == {"fused_nn_relu", "fused_add", "fused_nn_relu_1"}


def test_partial_conversion_returns_what_no_pattern_lowers() -> None:
    module = parse()
    patterns = populate_relay_to_tir_patterns(patterns_of(["tensor"]))
    leftovers = apply_conversion(module, patterns, TARGET, pass_name="t", partial=True)
    # The primitive function and the relu in it, then the relu of the graph.
    assert [op.name for op in leftovers] == ["func.func", "relay.nn.relu", "relay.nn.relu"]
    names = op_names(module)
    assert "relay.add" not in names and "relay.call_lowered" in names and "func.call" in names


def test_failed_conversion_names_the_ops_and_the_pass() -> None:
    module = parse()
    with pytest.raises(ConversionError) as info:
        apply_conversion(
            module,
            populate_relay_to_tir_patterns(patterns_of(["tensor"])),
            TARGET,
            pass_name="convert-relay-to-tir",
        )
    message = str(info.value)
    assert message.startswith("convert-relay-to-tir: 3 op(s) left unlowered")
    assert "%r = relay.nn.relu %a : tensor<2x64xf32>" in message


def test_unknown_category_is_an_error() -> None:
    with pytest.raises(DiagnosticException, match="unknown category nope .categories: tensor, "):
        ConvertRelayToTirPass(categories=("nope",)).apply(mlir_context(), parse())


def test_schedules_option_reaches_the_kernels() -> None:
    scheduled = parse()
    ConvertRelayToTirPass().apply(mlir_context(), scheduled)
    assert {"parallel", "vectorized"} <= loop_kinds(scheduled)
    default_nests = parse()
    with PassContext(config={"tir.apply_schedules": True}):  # the option wins over the config
        ConvertRelayToTirPass(schedules=False).apply(mlir_context(), default_nests)
    assert loop_kinds(default_nests) == {"serial"}
    from_config = parse()
    with PassContext(config={"tir.apply_schedules": False}):  # the default when unset
        ConvertRelayToTirPass().apply(mlir_context(), from_config)
    assert loop_kinds(from_config) == {"serial"}


def test_unbound_op_pattern_says_how_to_bind_it() -> None:
    module = parse()
    with pytest.raises(RuntimeError, match="populate_relay_to_tir_patterns"):
        apply_conversion(module, list(PATTERNS), TARGET, pass_name="t")
