"""The int8 x86 kernels: u8 × s8 conv2d with i32 accumulation on AVX-512
VNNI (``relay-alter-op-layout`` packs the weight into i32 words, the kernel
runs ``vpdpbusd``), alone and fused with a requantize epilogue (the integer
relay that ``qnn-canonicalize`` produces), bit-exact against NumPy."""

import shutil
import subprocess

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, i32
from xdsl.ir import Block, Region

import xtvm
from xtvm.constants import const_from_numpy
from xtvm.dialects import relay
from xtvm.dtypes import element_type
from xtvm.passes.relay.alter_op_layout import int8_words
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.packed import unpack_int8_words
from xtvm.topi.x86.config import has_vnni
from xtvm.transform import PassContext



class GraphBuilder:
    """Appends relay ops to one function's body; ``module()`` closes it."""

    def __init__(self, *arg_types):
        self.block = Block(arg_types=arg_types)
        self.args = self.block.args

    def add(self, op):
        self.block.add_op(op)
        return op.results[0]

    def const(self, array):
        return self.add(const_from_numpy(array))

    def module(self, outputs):
        self.block.add_op(func.ReturnOp(*outputs))
        types = ([a.type for a in self.args], [o.type for o in outputs])
        return ModuleOp([func.FuncOp("main", types, Region(self.block))])

ui8 = element_type("uint8")

needs_vnni = pytest.mark.skipif(not has_vnni(), reason="the host has no AVX-512 VNNI")

CONVS = {
    # name: (C, O, H, W, K, strides, padding, dilation)
    "3x3-row-fits": (16, 32, 14, 14, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
    "1x1-stride2": (64, 32, 15, 15, 1, (2, 2), (0, 0, 0, 0), (1, 1)),
    "7x7-stride2-3-channels": (3, 16, 23, 23, 7, (2, 2), (3, 3, 3, 3), (1, 1)),
    "partial-row-tile-odd-channels": (10, 16, 9, 37, 3, (1, 1), (0, 1, 2, 1), (1, 1)),
    "dilated": (8, 16, 10, 10, 3, (1, 1), (2, 2, 2, 2), (2, 2)),
    "block-of-8-ymm": (12, 24, 7, 7, 1, (1, 1), (0, 0, 0, 0), (1, 1)),
    "1x1-pixel-vectors": (20, 32, 8, 6, 1, (1, 1), (0, 0, 0, 0), (1, 1)),
    "1x1-pixel-vectors-block-of-8": (8, 24, 4, 6, 1, (1, 1), (0, 0, 0, 0), (1, 1)),
}


def _run(module, inputs, target=None):
    with PassContext(opt_level=3):
        lib = xtvm.build(module, target=target)
    gmod = lib["default"](xtvm.cpu(0))
    for i, x in enumerate(inputs):
        gmod.set_input(i, x)
    gmod.run()
    return gmod.get_output(0).numpy(), lib


def _data_and_weight(cfg, rng):
    c, o, h, w, k = cfg[:5]
    x = rng.integers(0, 256, (1, c, h, w), dtype=np.uint8)
    wt = rng.integers(-128, 128, (o, c, k, k), dtype=np.int8)
    return x, wt


def _conv(g, x, wt, cfg):
    strides, padding, dilation = cfg[5:]
    return g.add(
        relay.Conv2dOp(x, g.const(wt), strides, padding, dilation, out_dtype="int32")
    )


def _requantize_reference(acc, bias, multiplier, shift, zero_point):
    """TVM's fixed-point requantize in int64, then saturate to u8."""
    total = 31 - shift
    scaled = ((acc + bias).astype(np.int64) * multiplier + (1 << (total - 1))) >> total
    return np.clip(scaled + zero_point, 0, 255).astype(np.uint8)


@needs_vnni
@pytest.mark.parametrize("name", list(CONVS))
def test_u8_s8_conv2d_is_exact(name):
    cfg = CONVS[name]
    x, wt = _data_and_weight(cfg, np.random.default_rng(0))
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    out = _conv(g, g.args[0], wt, cfg)
    got, _ = _run(g.module([out]), [x])
    ref = conv2d(x, wt, *cfg[5:], out_dtype="int32")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, ref)


@needs_vnni
@pytest.mark.parametrize("name", ["3x3-row-fits", "7x7-stride2-3-channels", "1x1-pixel-vectors"])
def test_u8_s8_conv2d_fused_with_requantize_is_exact(name):
    """conv, a per-channel i32 correction, the int64 fixed-point requantize,
    clip and cast to u8: one kernel, bit-exact."""
    cfg = CONVS[name]
    o = cfg[1]
    rng = np.random.default_rng(1)
    x, wt = _data_and_weight(cfg, rng)
    bias = rng.integers(-5000, 5000, (1, o, 1, 1), dtype=np.int32)
    multiplier, shift, zero_point = 1_518_500_250, -9, 7
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    acc = _conv(g, g.args[0], wt, cfg)
    acc = g.add(relay.AddOp(acc, g.const(bias)))
    wide = g.add(relay.CastOp(acc, "int64"))
    scaled = g.add(relay.MultiplyOp(wide, g.const(np.array(multiplier, np.int64))))
    total = 31 - shift
    nudged = g.add(relay.AddOp(scaled, g.const(np.array(1 << (total - 1), np.int64))))
    shifted = g.add(relay.RightShiftOp(nudged, g.const(np.array(total, np.int64))))
    moved = g.add(relay.AddOp(shifted, g.const(np.array(zero_point, np.int64))))
    clipped = g.add(relay.ClipOp(moved, 0.0, 255.0))
    out = g.add(relay.CastOp(clipped, "uint8"))
    got, _ = _run(g.module([out]), [x])
    acc_ref = conv2d(x, wt, *cfg[5:], out_dtype="int32")
    want = _requantize_reference(acc_ref, bias, multiplier, shift, zero_point)
    np.testing.assert_array_equal(got, want)


def test_weight_words_match_the_reference_packing():
    """The relay packing (pad, layout_transform, cast, and, multiply, sum),
    compiled, gives the words ``unpack_int8_words`` reads back."""
    rng = np.random.default_rng(2)
    wt = rng.integers(-128, 128, (32, 5, 3, 3), dtype=np.int8)
    g = GraphBuilder(TensorType(element_type("int8"), list(wt.shape)))
    ops = int8_words(g.args[0], "OIHW16o4i")
    for op in ops:
        g.add(op)
    words = ops[-1].results[0]
    assert words.type == TensorType(i32, [2, 2, 3, 3, 16])
    got, _ = _run(g.module([words]), [wt])
    np.testing.assert_array_equal(unpack_int8_words(got, "OIHW16o4i", 5), wt)
    # output channel 19 = block 1 lane 3; channels 4..7 = group 1: channel 4, then zeros
    word = got[1, 1, 0, 0, 3]
    assert word.tobytes() == bytes([int(wt[19, 4, 0, 0]) & 255, 0, 0, 0])


@needs_vnni
@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump")
def test_vpdpbusd_in_the_object_code(tmp_path):
    cfg = CONVS["3x3-row-fits"]
    x, wt = _data_and_weight(cfg, np.random.default_rng(3))
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    out = _conv(g, g.args[0], wt, cfg)
    _, lib = _run(g.module([out]), [x])
    path = tmp_path / "conv.so"
    lib.export_library(path)
    disassembly = subprocess.run(
        ["objdump", "-d", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "vpdpbusd" in disassembly


@needs_vnni
def test_unscheduled_int8_conv_calls_vpdpbusd_on_one_lane():
    """Without schedules (or in a kernel the schedule leaves), the scalar
    call of the lane-wise intrinsic runs it on vectors holding lane 0."""
    cfg = CONVS["dilated"]
    x, wt = _data_and_weight(cfg, np.random.default_rng(7))
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    out = _conv(g, g.args[0], wt, cfg)
    with PassContext(opt_level=3, config={"tir.apply_schedules": False}):
        lib = xtvm.build(g.module([out]))
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    want = conv2d(x, wt, *cfg[5:], out_dtype="int32")
    np.testing.assert_array_equal(gmod.get_output(0).numpy(), want)


@needs_vnni
def test_constant_i32_weight_within_i8_takes_the_vnni_kernel():
    """ConvInteger's u8 weight minus its zero point folds to an i32
    constant; when every value fits in i8 it is narrowed and packed."""
    from xtvm.driver.build_module import lower

    cfg = CONVS["3x3-row-fits"]
    x, wt = _data_and_weight(cfg, np.random.default_rng(8))
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    out = _conv(g, g.args[0], wt.astype(np.int32), cfg)
    module = g.module([out])
    with PassContext(opt_level=3):
        assert "llvm.x86.avx512.vpdpbusd.512" in str(lower(module.clone(), stage="tir"))
    got, _ = _run(module, [x])
    np.testing.assert_array_equal(got, conv2d(x, wt, *cfg[5:], out_dtype="int32"))


def test_without_vnni_the_generic_conv_stays_exact():
    """-mcpu=haswell: no VNNI, the conv keeps the generic kernel, same result."""
    cfg = CONVS["3x3-row-fits"]
    x, wt = _data_and_weight(cfg, np.random.default_rng(4))
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    out = _conv(g, g.args[0], wt, cfg)
    got, _ = _run(g.module([out]), [x], target="llvm -mcpu=haswell")
    np.testing.assert_array_equal(got, conv2d(x, wt, *cfg[5:], out_dtype="int32"))


def test_packed_int8_conv_without_vnni_is_exact():
    """The packed op lowered for -mcpu=haswell computes each vpdpbusd lane
    in plain i32 arithmetic: the same result."""
    cfg = CONVS["partial-row-tile-odd-channels"]
    x, wt = _data_and_weight(cfg, np.random.default_rng(5))
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    ops = int8_words(g.const(wt), "OIHW16o4i")
    for op in ops:
        g.add(op)
    strides, padding, dilation = cfg[5:]
    conv = relay.Conv2dInt8PackedOp(
        g.args[0], ops[-1].results[0], "OIHW16o4i", strides, padding, dilation
    )
    got, _ = _run(g.module([g.add(conv)]), [x], target="llvm -mcpu=haswell")
    np.testing.assert_array_equal(got, conv2d(x, wt, *cfg[5:], out_dtype="int32"))


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_vectorized_saturating_float_to_8_bit_cast(dtype):
    """The vectorizer's f32 -> 8-bit conversion (clamp, truncate, magic-number
    add) saturates as the scalar one: NaN 0, -inf and +inf the bounds,
    fractions toward zero."""
    special = [np.nan, np.inf, -np.inf, -0.7, 0.7, -1.5, 127.9, 128.0, 255.5, 256.0, -128.9, -129.0]
    x = np.random.default_rng(6).uniform(-300, 300, 64).astype(np.float32)
    x[: len(special)] = special
    g = GraphBuilder(TensorType(element_type("float32"), [64]))
    out = g.add(relay.CastOp(g.args[0], dtype))
    got, _ = _run(g.module([out]), [x])
    info = np.iinfo(dtype)
    want = np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x, nan=0)), info.min, info.max))
    np.testing.assert_array_equal(got, want.astype(dtype))


DENSES = {
    # name: (data shape, N)
    "one-row-classifier": ((1, 200), 40),
    "rows-and-blocks-of-16": ((6, 64), 48),
    "odd-k-block-of-8": ((3, 37), 24),
    "3-d-data": ((2, 3, 20), 32),
}


def _dense_reference(x, wt):
    return np.matmul(x.astype(np.int32), wt.T.astype(np.int32))


@needs_vnni
@pytest.mark.parametrize(
    "name, data_dtype",
    [(name, "uint8") for name in DENSES] + [("one-row-classifier", "int8"), ("3-d-data", "int8")],
)
def test_int8_dense_is_exact(name, data_dtype):
    """u8 x s8 (and s8 x s8, shifted into u8 and compensated) dense -> i32
    on the packed VNNI kernel, bit-exact."""
    shape, n = DENSES[name]
    rng = np.random.default_rng(9)
    info = np.iinfo(data_dtype)
    x = rng.integers(info.min, info.max + 1, shape, dtype=data_dtype)
    x.flat[:2] = [info.min, info.max]
    wt = rng.integers(-128, 128, (n, shape[-1]), dtype=np.int8)
    g = GraphBuilder(TensorType(element_type(data_dtype), list(shape)))
    out = g.add(relay.DenseOp(g.args[0], g.const(wt), out_dtype="int32"))
    module = g.module([out])
    from xtvm.driver.build_module import lower

    with PassContext(opt_level=3):
        tir = str(lower(module.clone(), stage="tir"))
    assert "vpdpbusd" in tir
    got, _ = _run(module, [x])
    np.testing.assert_array_equal(got, _dense_reference(x, wt))


@needs_vnni
@pytest.mark.parametrize("name", ["3x3-row-fits", "1x1-stride2", "partial-row-tile-odd-channels"])
def test_s8_s8_conv2d_is_exact(name):
    """i8 data shifted into u8 (padded with 128, its zero) and compensated
    by 128 * sum(w): the VNNI kernel, bit-exact."""
    cfg = CONVS[name]
    c, o, h, w, k = cfg[:5]
    rng = np.random.default_rng(10)
    x = rng.integers(-128, 128, (1, c, h, w), dtype=np.int8)
    wt = rng.integers(-128, 128, (o, c, k, k), dtype=np.int8)
    g = GraphBuilder(TensorType(element_type("int8"), list(x.shape)))
    module = g.module([_conv(g, g.args[0], wt, cfg)])
    from xtvm.driver.build_module import lower

    with PassContext(opt_level=3):
        assert "vpdpbusd" in str(lower(module.clone(), stage="tir"))
    got, _ = _run(module, [x])
    np.testing.assert_array_equal(got, conv2d(x, wt, *cfg[5:], out_dtype="int32"))


def test_packed_int8_dense_without_vnni_is_exact():
    """The packed dense lowered for -mcpu=haswell: plain i32 lanes, same result."""
    rng = np.random.default_rng(11)
    x = rng.integers(0, 256, (2, 30), dtype=np.uint8)
    wt = rng.integers(-128, 128, (16, 30), dtype=np.int8)
    g = GraphBuilder(TensorType(ui8, list(x.shape)))
    ops = int8_words(g.const(wt), "NK16n4k")
    for op in ops:
        g.add(op)
    dense = g.add(relay.DenseInt8PackedOp(g.args[0], ops[-1].results[0], "NK16n4k"))
    got, _ = _run(g.module([dense]), [x], target="llvm -mcpu=haswell")
    np.testing.assert_array_equal(got, _dense_reference(x, wt))


@pytest.mark.parametrize(
    "data_dtype, groups, cin, cout",
    [("uint8", 2, 8, 16), ("int8", 2, 8, 32), ("uint8", 6, 6, 12)],
    ids=["u8-split-groups", "s8-split-groups", "u8-depthwise-multiplier-2"],
)
def test_grouped_int8_conv2d_is_exact(data_dtype, groups, cin, cout):
    """A grouped 8-bit conv: split into one packed VNNI conv a group (4+
    input channels a group) or the generic kernel (2 a group: depthwise
    with a multiplier), bit-exact either way."""
    rng = np.random.default_rng(12)
    info = np.iinfo(data_dtype)
    x = rng.integers(info.min, info.max + 1, (1, cin, 9, 9), dtype=data_dtype)
    wt = rng.integers(-128, 128, (cout, cin // groups, 3, 3), dtype=np.int8)
    g = GraphBuilder(TensorType(element_type(data_dtype), list(x.shape)))
    out = g.add(
        relay.Conv2dOp(g.args[0], g.const(wt), (1, 1), (1, 1, 1, 1), groups=groups, out_dtype="int32")
    )
    got, _ = _run(g.module([out]), [x])
    want = conv2d(x, wt, (1, 1), (1, 1, 1, 1), (1, 1), groups=groups, out_dtype="int32")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("data_dtype", ["uint8", "int8"])
def test_depthwise_int8_conv2d_takes_the_depthwise_kernel(data_dtype):
    """An 8-bit depthwise conv accumulating in i32 runs the x86 depthwise
    kernel (vectorized along the rows), bit-exact."""
    from xtvm.driver.build_module import lower

    rng = np.random.default_rng(13)
    info = np.iinfo(data_dtype)
    x = rng.integers(info.min, info.max + 1, (1, 8, 12, 13), dtype=data_dtype)
    wt = rng.integers(-128, 128, (8, 1, 3, 3), dtype=np.int8)
    g = GraphBuilder(TensorType(element_type(data_dtype), list(x.shape)))
    out = g.add(
        relay.Conv2dOp(g.args[0], g.const(wt), (2, 1), (1, 1, 1, 1), groups=8, out_dtype="int32")
    )
    module = g.module([out])
    with PassContext(opt_level=3):
        assert "T_depthwise_conv2d" in str(lower(module.clone(), stage="tir"))
    got, _ = _run(module, [x])
    want = conv2d(x, wt, (2, 1), (1, 1, 1, 1), (1, 1), groups=8, out_dtype="int32")
    np.testing.assert_array_equal(got, want)
