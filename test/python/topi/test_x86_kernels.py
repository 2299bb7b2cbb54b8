"""The x86 kernels (packed conv2d and dense, register-blocked, vectorized,
parallel) through the whole pipeline — relay-alter-op-layout, fusion with
their epilogues, the schedules, the vectorizer — against NumPy, on shapes
that do and do not divide the tiles."""

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

import xtvm
from xtvm.dialects import relay, tir
from xtvm.driver.build_module import lower
from xtvm.reference.relay import evaluate
from xtvm.reference.relay.conv import conv2d
from xtvm.target import Target
from xtvm.topi.x86.dense import column_blocks
from xtvm.transform import PassContext

CONVS = {
    # name: (C, O, H, W, K, strides, padding, dilation, groups)
    "3x3-row-fits": (8, 32, 9, 9, 3, (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "7x7-stride2": (3, 16, 23, 23, 7, (2, 2), (3, 3, 3, 3), (1, 1), 1),
    "partial-row-tile": (16, 32, 35, 37, 3, (1, 1), (0, 1, 2, 1), (1, 1), 1),
    "dilated": (8, 16, 10, 10, 3, (1, 1), (2, 2, 2, 2), (2, 2), 1),
    "grouped": (8, 32, 8, 8, 3, (1, 1), (1, 1, 1, 1), (1, 1), 2),
    "block-of-8": (4, 24, 6, 6, 1, (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "depthwise": (8, 8, 13, 21, 3, (1, 1), (1, 1, 1, 1), (1, 1), 8),
    "depthwise-stride2-partial-tiles": (16, 16, 15, 37, 3, (2, 2), (1, 1, 1, 1), (1, 1), 16),
    # a tile of 7 rows on 7-pixel output rows (depthwise.NARROW_ROWS)
    "depthwise-7x7-plane": (16, 16, 7, 7, 3, (1, 1), (1, 1, 1, 1), (1, 1), 16),
    "depthwise-14x14-stride2": (8, 8, 14, 14, 3, (2, 2), (1, 1, 1, 1), (1, 1), 8),
    # conv2d-packed-padded: groups of 34 outputs padded to 48 (on AVX-512),
    # 1000 outputs padded to 1008
    "grouped-padded-channels": (16, 136, 7, 9, 1, (1, 1), (0, 0, 0, 0), (1, 1), 4),
    "padded-classes": (8, 1000, 5, 5, 3, (1, 1), (1, 1, 1, 1), (1, 1), 1),
}


def _module(body, arg_types):
    block = Block(arg_types=arg_types)
    ops = body(*block.args)
    block.add_ops([*ops, func.ReturnOp(ops[-1].results[0])])
    fn = func.FuncOp("main", (arg_types, [ops[-1].results[0].type]), Region(block))
    return ModuleOp([fn])


def _run(module, inputs):
    gmod = xtvm.build(module)["default"](xtvm.cpu(0))
    for i, x in enumerate(inputs):
        gmod.set_input(i, x)
    gmod.run()
    return gmod.get_output(0).numpy()


def _conv_module(cfg):
    c, o, h, w, k, strides, padding, dilation, groups = cfg
    types = [
        TensorType(f32, [1, c, h, w]),
        TensorType(f32, [o, c // groups, k, k]),
        TensorType(f32, [o, 1, 1]),
    ]

    def body(x, wt, b):
        conv = relay.Conv2dOp(x, wt, strides, padding, dilation, groups)
        add = relay.AddOp(conv.result, b)
        types.append(conv.result.type)
        return [conv, add]

    module = _module(body, types[:3])
    return module, types[3].get_shape()


@pytest.mark.parametrize("name", list(CONVS))
def test_packed_conv2d_with_bias_matches_numpy(name):
    cfg = CONVS[name]
    c, o, h, w, k, strides, padding, dilation, groups = cfg
    module, _ = _conv_module(cfg)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // groups, k, k)).astype(np.float32)
    b = rng.standard_normal((o, 1, 1)).astype(np.float32)
    out = _run(module, [x, wt, b])
    ref = conv2d(x, wt, strides, padding, dilation, groups) + b
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["3x3-row-fits", "depthwise"])
def test_conv2d_kernels_are_scheduled(name):
    module, _ = _conv_module(CONVS[name])
    tir_module = lower(module, stage="tir")
    text = str(tir_module)
    assert "relay.nn.contrib_conv2d_packed" not in text  # lowered
    kinds = [op.kind.data for op in tir_module.walk() if isinstance(op, tir.ForOp)]
    assert "vectorized" in kinds and "parallel" in kinds


def test_schedules_can_be_turned_off():
    module, _ = _conv_module(CONVS["3x3-row-fits"])
    with PassContext(config={"tir.apply_schedules": False}):
        tir_module = lower(module, stage="tir")
    kinds = {op.kind.data for op in tir_module.walk() if isinstance(op, tir.ForOp)}
    assert kinds == {"serial"}


def test_dense_tiles_hold_independent_accumulators():
    # a batch-1 classifier: 5 blocks of 8 outputs a tile (five FMA chains), not one
    assert column_blocks(1, 125) == 5 and column_blocks(2, 6) == 3 and column_blocks(8, 64) == 1


# (1, 1000): 5 blocks of 8 a tile; (2, 96): 3 blocks of 16 (or 6 of 8) by 2 rows
@pytest.mark.parametrize(
    "m,n,k", [(1, 1000, 64), (3, 40, 7), (8, 16, 33), (11, 48, 20), (2, 96, 24)]
)
def test_packed_dense_with_relu_matches_numpy(m, n, k):
    types = [TensorType(f32, [m, k]), TensorType(f32, [n, k])]
    module = _module(
        lambda x, w: [d := relay.DenseOp(x, w), relay.ReluOp(d.result)], types
    )
    rng = np.random.default_rng(1)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    np.testing.assert_allclose(_run(module, [x, w]), np.maximum(x @ w.T, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "shape,kinds",
    [
        ((3, 37), {"parallel", "vectorized"}),  # the whole row is one vector
        ((2, 64), {"parallel", "vectorized"}),  # rows split by the lanes
        ((5, 100), {"parallel", "serial"}),  # too long for one vector, not divisible
        ((64,), {"vectorized"}),  # nothing above the row to run in parallel
    ],
)
def test_injective_kernels_run_parallel_and_vectorized(shape, kinds):
    types = [TensorType(f32, list(shape)), TensorType(f32, [shape[-1]])]
    module = _module(lambda x, b: [a := relay.AddOp(x, b), relay.ReluOp(a.result)], types)
    found = {
        op.kind.data
        for op in lower(module.clone(), stage="tir").walk()
        if isinstance(op, tir.ForOp)
    }
    assert kinds <= found
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    np.testing.assert_allclose(_run(module, [x, b]), np.maximum(x + b, 0), rtol=1e-6)


def test_schedules_read_the_target():
    """An AVX2 target packs 8 channels per block (256-bit registers);
    -num-cores=1 makes no parallel loops; the code still computes the conv."""
    cfg = CONVS["3x3-row-fits"]
    module, _ = _conv_module(cfg)
    target = Target.from_string("llvm -mcpu=haswell -num-cores=1")
    with target:
        assert 'dst_layout = "OIHW8o"' in str(lower(module.clone(), stage="relay-opt"))
        tir_module = lower(module.clone(), stage="tir")
    kinds = {op.kind.data for op in tir_module.walk() if isinstance(op, tir.ForOp)}
    assert "vectorized" in kinds and "parallel" not in kinds
    c, o, h, w, k, strides, padding, dilation, groups = cfg
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c, k, k)).astype(np.float32)
    b = rng.standard_normal((o, 1, 1)).astype(np.float32)
    gmod = xtvm.build(module, target=target)["default"](xtvm.cpu(0))
    for i, v in enumerate([x, wt, b]):
        gmod.set_input(i, v)
    gmod.run()
    ref = conv2d(x, wt, strides, padding, dilation, groups) + b
    np.testing.assert_allclose(gmod.get_output(0).numpy(), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "make",
    [
        lambda x: relay.AvgPool2dOp(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1)),
        lambda x: relay.GlobalAvgPool2dOp(x),
        lambda x: relay.MaxPool2dOp(x, pool_size=(2, 2), strides=(2, 2)),
    ],
    ids=["avg_pool", "global_avg_pool", "max_pool"],
)
def test_pools_run_parallel(make):
    types = [TensorType(f32, [1, 8, 11, 11])]
    module = _module(lambda x: [make(x)], types)
    kinds = {
        op.kind.data
        for op in lower(module.clone(), stage="tir").walk()
        if isinstance(op, tir.ForOp)
    }
    assert "parallel" in kinds
    x = np.random.default_rng(4).standard_normal((1, 8, 11, 11)).astype(np.float32)
    op = make(Block(arg_types=types).args[0])
    ref = evaluate(op.name, [x], op.attrs)
    np.testing.assert_allclose(_run(module, [x]), ref, rtol=1e-5, atol=1e-6)
