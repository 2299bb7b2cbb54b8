"""Every relay op case of the topi tests (test_topi_relay_ops.CASES) with
the leading axis of its first operand made `?`: the op lowers to a kernel
with a run-time extent that equals the NumPy reference at the case's size,
or the lowering refuses with a located error; never a wrong result or a
crash. (Slow: one kernel per case.)"""

import sys
from pathlib import Path

import numpy as np
import pytest
from dynamic_testing import compile_kernels, evaluate, run_pass
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.utils.exceptions import DiagnosticException

from xtvm.dialects import relay
from xtvm.dialects.relay.base import RelayTypeError
from xtvm.runtime import NDArray

sys.path.insert(0, str(Path(__file__).parents[1] / "topi"))  # the relay op cases
from test_topi_relay_ops import CASES
from topi_testing import random, relay_op_module, tensor_type

LOWERS = 204
"""How many cases lower with a dynamic leading axis (this test fails when it
drops: an op family lost its dynamic lowering)."""

_lowered: list[str] = []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cls", "operands", "kwargs"),
    [pytest.param(c, o, k, id=i) for i, c, o, k in CASES if o and o[0][0]],
)
def test_op_with_a_dynamic_leading_axis(cls, operands, kwargs) -> None:
    types = [tensor_type(s, d) for s, d in operands]
    shape = list(types[0].get_shape())
    shape[0] = DYNAMIC_INDEX
    types[0] = TensorType(types[0].element_type, shape)
    try:
        module, _ = relay_op_module(cls, types, **kwargs)
    except RelayTypeError:
        return  # the rule needs the size statically (test_dynamic_types)
    reference = module.clone()
    try:
        run_pass("convert-relay-to-tir", module)
    except DiagnosticException as e:
        assert "convert-relay-to-tir:" in str(e)  # a located lowering error
        return
    kernels = compile_kernels(module)
    inputs = [random(s, d, np.random.default_rng(0)) for s, d in operands]
    want = evaluate(reference, "main", inputs)[0]
    (call,) = [op for op in module.walk() if isinstance(op, relay.CallLoweredOp)]
    outs = [NDArray(np.zeros(w.shape, w.dtype)) for w in want]
    kernels[call.callee.root_reference.data](
        *(NDArray(np.require(a, requirements="C")) for a in inputs), *outs
    )
    for got, expected in zip(outs, want, strict=True):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4, atol=1e-4)
    _lowered.append(cls.name)


@pytest.mark.slow
def test_how_many_cases_lower() -> None:
    """Run after the cases above (file order): none was lost."""
    if not _lowered:
        pytest.skip("run with the parametrized cases")
    assert len(_lowered) >= LOWERS
