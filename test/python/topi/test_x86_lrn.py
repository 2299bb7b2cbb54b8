"""LRN (xtvm.topi.nn.lrn: the window summed term by term, the usual powers
as square roots, vectorized along the row) through the whole pipeline
against the NumPy reference: odd and even windows, windows wider than the
channels, the three powers with square-root forms and another one, another
axis, and the reduction form of a large window."""

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

import xtvm
from xtvm.dialects import relay, tir
from xtvm.driver.build_module import lower
from xtvm.reference.relay import evaluate

CASES = {
    # name: (shape, attrs)
    "alexnet": ([1, 12, 7, 27], {"size": 5, "alpha": 1e-4, "beta": 0.75, "bias": 1.0}),
    "row-left-to-llvm": ([1, 4, 3, 55], {"size": 5, "alpha": 1e-4, "beta": 0.75, "bias": 1.0}),
    "even-window": ([1, 6, 5, 16], {"size": 4, "alpha": 1e-2, "beta": 0.75, "bias": 2.0}),
    "window-wider-than-channels": (
        [2, 3, 4, 5],
        {"size": 7, "alpha": 0.5, "beta": 0.75, "bias": 1.0},
    ),
    "beta-half": ([1, 5, 3, 9], {"size": 3, "alpha": 0.1, "beta": 0.5, "bias": 1.0}),
    "beta-one": ([1, 5, 3, 9], {"size": 3, "alpha": 0.1, "beta": 1.0, "bias": 1.0}),
    "beta-other": ([1, 5, 3, 9], {"size": 5, "alpha": 0.1, "beta": 0.6, "bias": 1.5}),
    "size-one": ([1, 4, 3, 3], {"size": 1, "alpha": 0.3, "beta": 0.75, "bias": 1.0}),
    "last-axis": ([2, 3, 10], {"size": 3, "axis": 2, "alpha": 0.2, "beta": 0.75, "bias": 1.0}),
    "large-window-reduction": (
        [1, 20, 3, 4],
        {"size": 17, "alpha": 0.2, "beta": 0.75, "bias": 1.0},
    ),
}


def _module(shape, attrs):
    types = [TensorType(f32, shape)]
    block = Block(arg_types=types)
    op = relay.LrnOp(block.args[0], **attrs)
    block.add_ops([op, func.ReturnOp(op.results[0])])
    fn = func.FuncOp("main", (types, [op.results[0].type]), Region(block))
    return ModuleOp([fn]), op


@pytest.mark.parametrize("name", list(CASES))
def test_lrn_matches_numpy(name):
    shape, attrs = CASES[name]
    module, op = _module(shape, attrs)
    x = (np.random.default_rng(0).standard_normal(shape) * 3).astype(np.float32)
    gmod = xtvm.build(module)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    ref = evaluate(op.name, [x], op.attrs)
    np.testing.assert_allclose(gmod.get_output(0).numpy(), ref, rtol=2e-6, atol=1e-7)


def test_lrn_is_one_vectorized_stage_without_pow():
    tir_module = lower(_module(*CASES["alexnet"])[0], stage="tir")
    text = str(tir_module)
    kinds = {op.kind.data for op in tir_module.walk() if isinstance(op, tir.ForOp)}
    assert "vectorized" in kinds and "parallel" in kinds
    assert "math.powf" not in text and "T_lrn_sqsum" not in text
