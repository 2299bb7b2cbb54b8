"""Every op an external codegen takes, against the NumPy references.

Each case is a graph function; the partitioning passes run on it with one
codegen (``relay-merge-composite``, ``relay-annotate-target``,
``relay-merge-compiler-regions``, ``relay-partition-graph``), the test
checks that the ops went to the codegen, then ``xtvm.build`` continues from
that stage and the outputs are compared with
:func:`xtvm.passes.relay.evaluate.evaluate_function` (the ops' NumPy
references). The ops are given as they reach the partitioning passes (batch
norm included, which the default pipeline folds first).
"""

import numpy as np
import pytest

import xtvm
from xtvm.byoc.dnnl import BLOCKED_LAYOUTS_CONFIG, find_onednn
from xtvm.byoc.registry import CodegenError
from xtvm.driver.pipeline import Step, mlir_context, run_steps
from xtvm.ir.parse import parse_module
from xtvm.passes.relay.evaluate import evaluate_function
from xtvm.transform import PassContext


def _has_onednn() -> bool:
    try:
        find_onednn()
    except CodegenError:
        return False
    return True


def partition(text: str, codegen: str):
    module = parse_module(text, "case.mlir", mlir_context())
    steps = [
        f"relay-merge-composite{{targets={codegen}}}",
        f"relay-annotate-target{{targets={codegen}}}",
        "relay-merge-compiler-regions",
        "relay-partition-graph",
    ]
    run_steps(module, [Step(s, 0, "") for s in steps])
    return module


def check(text: str, codegen: str, offloaded: list[str], seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    module = parse_module(text, "case.mlir", mlir_context())
    (main,) = [op for op in module.ops if op.sym_name.data == "main"]
    inputs = [
        rng.standard_normal(arg.type.get_shape()).astype(np.float32) for arg in main.args
    ]
    refs = evaluate_function(module, "main", inputs)
    partitioned = partition(text, codegen)
    external = [op for op in partitioned.ops if "relay.compiler" in op.attributes]
    names = {inner.name for f in external for inner in f.walk()}
    names |= {  # composites' ops
        inner.name
        for op in partitioned.ops
        if "relay.composite" in op.attributes
        for inner in op.walk()
    }
    for name in offloaded:
        assert name in names, f"{name} was not offloaded to {codegen}"
    lib = xtvm.build(partitioned, byoc=[codegen])  # continues from relay-partitioned
    gmod = lib["default"](xtvm.cpu(0))
    for i, x in enumerate(inputs):
        gmod.set_input(i, x)
    gmod.run()
    for i, ref in enumerate(refs):
        np.testing.assert_allclose(gmod.get_output(i).numpy(), ref, rtol=1e-4, atol=1e-5)


CCOMPILER_CASES = {
    "unary": (
        """
func.func @main(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %a = relay.nn.relu %x : tensor<3x7xf32>
  %b = relay.negative %a : tensor<3x7xf32>
  %c = relay.exp %b : tensor<3x7xf32>
  %d = relay.sqrt %c : tensor<3x7xf32>
  %e = relay.sigmoid %d : tensor<3x7xf32>
  %f = relay.tanh %e : tensor<3x7xf32>
  func.return %f : tensor<3x7xf32>
}""",
        ["relay.nn.relu", "relay.negative", "relay.exp", "relay.sqrt", "relay.sigmoid",
         "relay.tanh"],
    ),
    "binary_broadcast": (
        """
func.func @main(%x: tensor<2x3x4x5xf32>, %b: tensor<3x1x1xf32>, %c: tensor<5xf32>, %d: tensor<2x1x4x1xf32>) -> tensor<2x3x4x5xf32> {
  %a = relay.add %x, %b : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %e = relay.multiply %a, %c : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %f = relay.subtract %d, %e : (tensor<2x1x4x1xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %g = relay.maximum %f, %x : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %h = relay.minimum %g, %b : (tensor<2x3x4x5xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x5xf32>
  %k = relay.exp %h : tensor<2x3x4x5xf32>
  %m = relay.divide %g, %k : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %n = relay.nn.bias_add %m, %c {axis = 3 : i64} : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  func.return %n : tensor<2x3x4x5xf32>
}""",
        ["relay.add", "relay.multiply", "relay.subtract", "relay.maximum", "relay.minimum",
         "relay.divide", "relay.nn.bias_add"],
    ),
    "dense_matmul": (
        """
func.func @main(%x: tensor<3x8xf32>, %w: tensor<5x8xf32>, %v: tensor<5x4xf32>, %u: tensor<6x4xf32>) -> tensor<3x6xf32> {
  %d = relay.nn.dense %x, %w : (tensor<3x8xf32>, tensor<5x8xf32>) -> tensor<3x5xf32>
  %m = relay.nn.matmul %d, %v : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %t = relay.nn.matmul %m, %u {transpose_b = true} : (tensor<3x4xf32>, tensor<6x4xf32>) -> tensor<3x6xf32>
  func.return %t : tensor<3x6xf32>
}""",
        ["relay.nn.dense", "relay.nn.matmul"],
    ),
}

DNNL_CASES = {
    "conv_groups_dilation_padding": (
        """
func.func @main(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x3x4xf32> {
  %c = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, dilation = array<i64: 2, 1>, groups = 2 : i64} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x4xf32>
  %a = relay.nn.bias_add %c, %b : (tensor<1x6x3x4xf32>, tensor<6xf32>) -> tensor<1x6x3x4xf32>
  %r = relay.nn.relu %a : tensor<1x6x3x4xf32>
  func.return %r : tensor<1x6x3x4xf32>
}""",
        ["relay.nn.conv2d", "relay.nn.bias_add", "relay.nn.relu"],
    ),
    "conv_bias_sum_relu_and_plain_conv": (
        """
func.func @main(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>, %res: tensor<2x4x4x4xf32>, %w2: tensor<4x4x1x1xf32>) -> tensor<2x4x4x4xf32> {
  %c = relay.nn.conv2d %x, %w : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %a = relay.add %c, %b : (tensor<2x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<2x4x4x4xf32>
  %s = relay.add %res, %a : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %r = relay.nn.relu %s : tensor<2x4x4x4xf32>
  %d = relay.nn.conv2d %r, %w2 : (tensor<2x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<2x4x4x4xf32>
  func.return %d : tensor<2x4x4x4xf32>
}""",
        ["relay.nn.conv2d", "relay.add", "relay.nn.relu"],
    ),
    "pools": (
        """
func.func @main(%x: tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) {
  %m = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %a = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %i = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %g = relay.nn.global_avg_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  %h = relay.nn.global_max_pool2d %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  func.return %m, %a, %i, %g, %h : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
}""",
        ["relay.nn.max_pool2d", "relay.nn.avg_pool2d", "relay.nn.global_avg_pool2d",
         "relay.nn.global_max_pool2d"],
    ),
    "batch_norm_concat_add": (
        """
func.func @main(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %y: tensor<2x2x4x4xf32>, %z: tensor<4x1xf32>) -> tensor<2x5x4x4xf32> {
  %e = relay.exp %v : tensor<3xf32>
  %n = relay.nn.batch_norm %x, %g, %b, %m, %e {epsilon = 1.000000e-03 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %c = relay.concatenate %n, %y {axis = 1 : i64} : (tensor<2x3x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x5x4x4xf32>
  %a = relay.add %c, %z : (tensor<2x5x4x4xf32>, tensor<4x1xf32>) -> tensor<2x5x4x4xf32>
  %r = relay.nn.relu %a : tensor<2x5x4x4xf32>
  func.return %r : tensor<2x5x4x4xf32>
}""",
        ["relay.nn.batch_norm", "relay.concatenate", "relay.add", "relay.nn.relu"],
    ),
    "dense_matmul": (
        """
func.func @main(%x: tensor<3x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>, %v: tensor<5x4xf32>, %u: tensor<6x4xf32>) -> tensor<3x6xf32> {
  %d = relay.nn.dense %x, %w : (tensor<3x8xf32>, tensor<5x8xf32>) -> tensor<3x5xf32>
  %e = relay.nn.bias_add %d, %b : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %m = relay.nn.matmul %e, %v : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %r = relay.nn.relu %m : tensor<3x4xf32>
  %t = relay.nn.matmul %r, %u {transpose_b = true} : (tensor<3x4xf32>, tensor<6x4xf32>) -> tensor<3x6xf32>
  func.return %t : tensor<3x6xf32>
}""",
        ["relay.nn.dense", "relay.nn.matmul", "relay.nn.bias_add", "relay.nn.relu"],
    ),
}


@pytest.mark.parametrize("case", sorted(CCOMPILER_CASES))
def test_ccompiler_op_matches_numpy(case):
    text, offloaded = CCOMPILER_CASES[case]
    check(text, "ccompiler", offloaded)


@pytest.mark.skipif(not _has_onednn(), reason="oneDNN (libdnnl-dev) is not installed")
@pytest.mark.parametrize("layouts", ["plain", "blocked"])
@pytest.mark.parametrize("case", sorted(DNNL_CASES))
def test_dnnl_op_matches_numpy(case, layouts):
    """Convolutions on xtvm's plain layouts, and on oneDNN's blocked ones
    (``relay.ext.dnnl.blocked_layouts``)."""
    text, offloaded = DNNL_CASES[case]
    with PassContext(config={BLOCKED_LAYOUTS_CONFIG: layouts == "blocked"}):
        check(text, "dnnl", offloaded)
