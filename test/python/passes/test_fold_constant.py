"""relay-fold-constant against NumPy, and the const <-> NumPy conversion."""

from __future__ import annotations

import numpy as np
import pytest
from relay_graphs import GraphBuilder
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import Builtin, TensorType, f32
from xdsl.parser import Parser

from xtvm.dialects.relay import (
    AddOp,
    BiasAddOp,
    ConstOp,
    DenseOp,
    DivideOp,
    MatmulOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    SoftmaxOp,
    SubtractOp,
    TransposeOp,
)
from xtvm.constants import (
    const_from_numpy,
    dense_from_numpy,
    numpy_from_const,
    numpy_from_dense,
)
from xtvm.passes.relay.fold_constant import FoldConstantPass


def test_chain_of_constant_ops_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    m = rng.standard_normal((2, 4, 5)).astype(np.float32)
    bias = rng.standard_normal(5).astype(np.float32)

    g = GraphBuilder(TensorType(f32, [2, 12]))
    ca, cb, cw, cm, cbias = (g.const(v) for v in (a, b, w, m, bias))
    v = g.add(AddOp(ca, cb))                       # (3, 4), broadcast
    v = g.add(MultiplyOp(v, g.add(ReluOp(cb))))
    v = g.add(SubtractOp(v, ca))
    v = g.add(DenseOp(v, cw))                      # (3, 5)
    v = g.add(BiasAddOp(v, cbias))
    v = g.add(DivideOp(v, g.add(SoftmaxOp(v))))
    v = g.add(TransposeOp(v))                      # (5, 3)
    v = g.add(MatmulOp(cm, v))                     # (2, 4, 5) @ (5, 3)
    v = g.add(ReshapeOp(v, [0, -1]))               # (2, 12)
    out = g.add(AddOp(g.args[0], v))
    module = g.module([out])

    FoldConstantPass().apply(Context(), module)
    module.verify()

    main = next(iter(module.ops))
    assert isinstance(main, func.FuncOp)
    ops = list(main.body.block.ops)
    assert [type(op) for op in ops] == [ConstOp, AddOp, func.ReturnOp]

    x = (a + b) * np.maximum(b, 0) - a
    x = x @ w.T + bias
    e = np.exp(x - x.max(-1, keepdims=True))
    x = x / (e / e.sum(-1, keepdims=True))
    expected = np.matmul(m, x.T).reshape(2, 12)
    np.testing.assert_allclose(numpy_from_const(ops[0]), expected, rtol=1e-5)


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_]
)
def test_const_round_trips_numpy(dtype: type) -> None:
    array = (np.arange(-6, 6).reshape(3, 4) % 5).astype(dtype)
    const = const_from_numpy(array)
    const.verify()
    back = numpy_from_const(const)
    assert back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(back, array)


def test_bool_constant_matches_parsed_form() -> None:
    ctx = Context()
    ctx.load_dialect(Builtin)
    parsed = Parser(ctx, "dense<[true, false]> : tensor<2xi1>").parse_attribute()
    assert dense_from_numpy(np.array([True, False])) == parsed
    np.testing.assert_array_equal(numpy_from_dense(parsed), [True, False])


def test_large_constant_is_zero_copy() -> None:
    array = np.arange(1 << 20, dtype=np.float32)
    attr = dense_from_numpy(array)
    view = numpy_from_dense(attr)
    assert not view.flags.writeable and view.base is not None
    np.testing.assert_array_equal(view, array)
    assert str(attr).startswith('dense<"0x')


def test_unsupported_dtype_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="relay.const does not support NumPy dtype complex64"):
        const_from_numpy(np.zeros(2, np.complex64))
