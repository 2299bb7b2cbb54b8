"""The int8 conv on blocked activations (``data_layout = "NCHW<c>c"``, TVM's
``conv2d_NCHWc_int8``; NCHW data with ``out_layout``) and ``relay-int8-nchwc``, which keeps a quantized
network's u8 activations blocked between its convs: bit-exact against NumPy."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from test_x86_int8 import GraphBuilder, _run, needs_vnni, ui8
from xdsl.dialects.builtin import TensorType

from xtvm.dialects import relay
from xtvm.passes.relay.alter_op_layout import int8_words
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.packed import layout_transform
from xtvm.topi.x86.config import has_vnni
from xtvm.topi.x86.conv2d_int8 import tile_blocks

BLOCKED = {
    # name: (C, c, O, b, H, W, K, strides, padding)
    "3x3-padded": (32, 16, 32, 16, 14, 14, 3, (1, 1), (1, 1, 1, 1)),
    "1x1-7x7-plane": (64, 16, 48, 16, 7, 7, 1, (1, 1), (0, 0, 0, 0)),
    "1x1-stride2": (32, 16, 16, 16, 9, 9, 1, (2, 2), (0, 0, 0, 0)),
    "blocks-of-8-uneven-pad": (24, 8, 24, 8, 9, 11, 3, (2, 1), (0, 1, 2, 1)),
    "blocks-of-4-in": (12, 4, 16, 16, 5, 20, 3, (1, 1), (1, 1, 1, 1)),
    "3x3-unpadded": (64, 16, 64, 16, 16, 58, 3, (1, 1), (0, 0, 0, 0)),
    # tiles of two output blocks (tile_blocks): rows of at most 8 pixels,
    # small weights (the row in tiles of up to 8 pixels, the last partial)
    "3x3-7x7-plane-two-blocks": (32, 16, 96, 16, 7, 7, 3, (1, 1), (1, 1, 1, 1)),
    "stride2-to-4-wide-blocks-of-8": (16, 8, 32, 8, 9, 8, 3, (2, 2), (1, 1, 1, 1)),
    "two-blocks-partial-row-tile": (16, 16, 32, 16, 5, 11, 3, (1, 1), (1, 1, 1, 1)),
    # 72 KB of weights a block: one block a tile, a 10-pixel row
    "3x3-512-channels-one-block": (512, 16, 32, 16, 4, 10, 3, (1, 1), (1, 1, 1, 1)),
    # c = 0: NCHW data (a stem's 3 channels), the blocked result (out_layout)
    "stem-nchw-data-7x7-stride2": (3, 0, 32, 16, 23, 23, 7, (2, 2), (3, 3, 3, 3)),
    "nchw-data-1x1-blocks-of-8": (12, 0, 24, 8, 6, 6, 1, (1, 1), (0, 0, 0, 0)),
}


def _blocked_conv(name, target=None, seed=0, pad_value=0):
    c, cb, o, b, h, w, k, strides, padding = BLOCKED[name]
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, (1, c, h, w), dtype=np.uint8)
    wt = rng.integers(-128, 128, (o, c, k, k), dtype=np.int8)
    xb = layout_transform(x, "NCHW", f"NCHW{cb}c") if cb else x
    g = GraphBuilder(TensorType(ui8, list(xb.shape)))
    ops = int8_words(g.const(wt), f"OIHW{b}o4i")
    for op in ops:
        g.add(op)
    layouts = (f"NCHW{cb}c", None) if cb else (None, f"NCHW{b}c")
    conv = relay.Conv2dInt8PackedOp(
        g.args[0], ops[-1].results[0], f"OIHW{b}o4i", strides, padding, (1, 1), *layouts, pad_value
    )
    got, lib = _run(g.module([g.add(conv)]), [xb], target=target)
    top, left, bottom, right = padding
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=pad_value)
    want = layout_transform(conv2d(padded, wt, strides, (0, 0, 0, 0), (1, 1), out_dtype="int32"), "NCHW", f"NCHW{b}c")
    return got, want, lib


@needs_vnni
@pytest.mark.parametrize("name", list(BLOCKED))
def test_blocked_int8_conv_is_exact(name):
    got, want, _ = _blocked_conv(name)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "name",
    [
        "blocks-of-8-uneven-pad",
        "stem-nchw-data-7x7-stride2",
        "stride2-to-4-wide-blocks-of-8",
        "two-blocks-partial-row-tile",
    ],
)
def test_blocked_int8_conv_without_vnni_is_exact(name):
    got, want, _ = _blocked_conv(name, target="llvm -mcpu=haswell", seed=1)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["stem-nchw-data-7x7-stride2", "blocks-of-8-uneven-pad"])
@pytest.mark.parametrize("pad_value", [7, 200])
def test_padding_holds_the_pad_value(name, pad_value):
    """``pad_value`` (a zero point; 200 sets the word's sign bit) fills
    the borders, NCHW and blocked data alike."""
    target = None if has_vnni() else "llvm -mcpu=haswell"
    got, want, _ = _blocked_conv(name, target=target, seed=3, pad_value=pad_value)
    np.testing.assert_array_equal(got, want)


@needs_vnni
def test_zero_point_pad_absorbed_into_the_stem_conv():
    """pad(x, 9) then an unpadded u8 conv (a quantized stem): built, the
    pad is the conv's (``int8-conv-absorb-pad``), same bits as NumPy."""
    from xtvm.driver.build_module import lower
    from xtvm.transform import PassContext

    rng = np.random.default_rng(6)
    x = rng.integers(0, 256, (1, 3, 15, 15), dtype=np.uint8)
    wt = rng.integers(-128, 128, (16, 3, 5, 5), dtype=np.int8)

    def module():
        g = GraphBuilder(TensorType(ui8, list(x.shape)))
        padded = g.add(relay.PadOp(g.args[0], g.const(np.array(9, np.uint8)), [0, 0, 0, 0, 2, 2, 2, 2]))
        conv = relay.Conv2dOp(padded, g.const(wt), (2, 2), (0, 0, 0, 0), (1, 1), out_dtype="int32")
        return g.module([g.add(conv)])

    with PassContext(opt_level=3):
        assert "relay.nn.pad" not in str(lower(module(), stage="relay-opt"))
    got, _ = _run(module(), [x])
    padded = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), constant_values=9)
    np.testing.assert_array_equal(got, conv2d(padded, wt, (2, 2), (0, 0, 0, 0), (1, 1), out_dtype="int32"))


@needs_vnni
@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump")
@pytest.mark.parametrize("name", ["1x1-7x7-plane", "3x3-unpadded"])
def test_blocked_conv_reads_each_word_as_one_load(tmp_path, name):
    """Unpadded 1×1, the kernel reads a pixel's four channel bytes where the
    reduction needs them; under a 3×3 window it reads them from the words
    built first (read in place, LLVM kept four byte loads, shifts and ors
    per word: 5× slower). Either way the object code keeps ``vpdpbusd`` on
    one broadcast word load each, and no byte loads (``movzbl`` from
    memory) remain (a row of words without padding is one ``memcpy``)."""
    _, _, lib = _blocked_conv(name, seed=2)
    path = tmp_path / "conv.so"
    lib.export_library(path)
    asm = subprocess.run(["objdump", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    assert "vpdpbusd" in asm
    assert "vpbroadcastd" in asm
    assert not re.search(r"movzbl\s+[^,\s]*\(", asm), "a byte load remains"

@needs_vnni
@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump")
@pytest.mark.parametrize("name", ["3x3-padded", "3x3-7x7-plane-two-blocks"])
def test_blocked_conv_prefetches_the_next_weight_block(tmp_path, name):
    """Each reduction step prefetches the weight rows the same step reads in
    the next tile's output blocks (``prefetcht2``: the blocks' weights come
    from L3 or DRAM once per inference); the result stays exact (the
    prefetch index is clamped to the last block)."""
    got, want, lib = _blocked_conv(name, seed=4)
    np.testing.assert_array_equal(got, want)
    path = tmp_path / "conv.so"
    lib.export_library(path)
    asm = subprocess.run(["objdump", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    assert "prefetcht2" in asm
    assert "vpdpbusd" in asm


@needs_vnni
@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
def test_blocked_conv_on_the_c_target():
    """The C target writes the weight prefetch as ``__builtin_prefetch``
    (and the two-block tile as the llvm target does): same bits."""
    got, want, _ = _blocked_conv("3x3-7x7-plane-two-blocks", target="c", seed=5)
    np.testing.assert_array_equal(got, want)


_PREFETCH_NEST = """
tir.prim_func @k(%W: memref<4x8x16xi32>, %D: memref<8xi32>, %A: memref<2x16xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  tir.for %fo = %c0 to %c2 kind "serial" {
    tir.for %g = %c0 to %c8 kind "serial" {
      tir.for %t = %c0 to %c2 kind "unrolled" {
        tir.for %fi = %c0 to %c16 kind "vectorized" {
          %acc = tir.load %A[%t, %fi] : memref<2x16xi32>
          %w = tir.load %D[%g] : memref<8xi32>
          %b = BLOCK
          %k = tir.load %W[%b, %g, %fi] : memref<4x8x16xi32>
          %r = tir.call_intrin "llvm.x86.avx512.vpdpbusd.512"(%acc, %w, %k) : (i32, i32, i32) -> i32
          tir.store %r, %A[%t, %fi] : memref<2x16xi32>
        }
      }
    }
  }
  tir.return
}
"""


@pytest.mark.parametrize(
    "block, placed",
    [
        ("arith.muli %fo, %c2 : index", 1),  # hoisted: W[min(2·fo + 1, 3), g, 0]
        ("arith.divui %fo, %c2 : index", 0),  # not integer adds and multiplies: no prefetch
    ],
)
def test_prefetch_next_block_placement(block, placed):
    """One prefetch a reduction step, before the unrolled tile, when the
    weight's block index can be computed there; none (and no stray uses of
    the tile's values) when it cannot: a prefetch is only a hint."""
    from xtvm.ir.parse import parse_module
    from xtvm.topi.x86.conv2d_int8 import PREFETCH, VPDPBUSD, prefetch_next_block

    module = parse_module(_PREFETCH_NEST.replace("BLOCK", block))
    (func,) = list(module.ops)
    assert prefetch_next_block(func, VPDPBUSD[16]) == placed
    module.verify()
    calls = [op for op in func.walk() if getattr(op, "callee", None) is not None]
    prefetches = [op for op in calls if op.callee.data == PREFETCH]
    assert len(prefetches) == placed
    weight = func.body.block.args[0]
    assert len(list(weight.uses)) == 1 + placed
    if placed:
        (step,) = [op for op in func.walk() if getattr(op, "kind", None) and op.kind.data == "serial"][1:]
        assert prefetches[0].parent_op() is step


def test_tile_blocks():
    """Two output blocks a register tile (an even number of blocks) on rows
    of at most 8 pixels or when two blocks' weights fit in
    TILE_WEIGHT_BYTES (ResNet-50's 3×3 convs of 256 channels: 36 KB a
    block); one otherwise."""
    assert tile_blocks((1, 32, 7, 7, 16), 4 * 128 * 3 * 3 * 16) == 2
    assert tile_blocks((1, 3, 7, 7, 16), 1024) == 1
    assert tile_blocks((1, 16, 14, 14, 16), 4 * 64 * 3 * 3 * 16) == 2
    assert tile_blocks((1, 16, 14, 14, 16), 4 * 128 * 3 * 3 * 16) == 1
    assert tile_blocks((1, 8, 28, 28, 16), 4 * 32 * 3 * 3 * 16) == 2
    assert tile_blocks((1, 16, 14, 14, 16), 4 * 256 * 16) == 2


def _requantized_block(g, x, rng):
    """Two convs with per-channel requantize epilogues and a residual add
    of the block's input (the int8 ResNet block's shape)."""

    def requantize(acc, channels):
        bias = g.const(rng.integers(-3000, 3000, (channels,), dtype=np.int32))
        scale = g.const((rng.random((1, channels, 1, 1)) * 2e-3 + 1e-4).astype(np.float32))
        wide = g.add(relay.CastOp(g.add(relay.BiasAddOp(acc, bias)), "float32"))
        shifted = g.add(relay.AddOp(g.add(relay.RoundOp(g.add(relay.MultiplyOp(wide, scale)))), g.const(np.array(3.0, np.float32))))
        return g.add(relay.CastOp(g.add(relay.ClipOp(shifted, 0.0, 255.0)), "uint8"))

    c = x.type.get_shape()[1]
    w1 = rng.integers(-128, 128, (32, c, 1, 1), dtype=np.int8)
    w2 = rng.integers(-128, 128, (c, 32, 3, 3), dtype=np.int8)
    a = g.add(relay.Conv2dOp(x, g.const(w1), (1, 1), (0, 0, 0, 0), (1, 1), out_dtype="int32"))
    b = g.add(relay.Conv2dOp(requantize(a, 32), g.const(w2), (1, 1), (1, 1, 1, 1), (1, 1), out_dtype="int32"))
    y = g.add(relay.CastOp(requantize(b, c), "float32"))
    total = g.add(relay.AddOp(y, g.add(relay.CastOp(x, "float32"))))
    return g.add(relay.CastOp(g.add(relay.ClipOp(total, 0.0, 255.0)), "uint8"))


@needs_vnni
def test_blocked_network_equals_the_nchw_one():
    """``relay-int8-nchwc`` on (the build runs it): the input transformed
    for the conv and (as f32) for the residual add, one transform back at
    the end; the same bits as with the pass disabled."""
    from xtvm.driver.build_module import lower
    from xtvm.transform import PassContext

    rng = np.random.default_rng(4)
    x = rng.integers(0, 256, (1, 16, 10, 10), dtype=np.uint8)

    def module():
        g = GraphBuilder(TensorType(ui8, list(x.shape)))
        return g.module([_requantized_block(g, g.args[0], np.random.default_rng(5))])

    with PassContext(opt_level=3):
        relay_opt = str(lower(module(), stage="relay-opt"))
    assert relay_opt.count('data_layout = "NCHW16c"') == 2
    assert relay_opt.count("relay.layout_transform %") == 3
    got, _ = _run(module(), [x])
    np.testing.assert_array_equal(got, _without_int8_nchwc(module(), x))


def _without_int8_nchwc(module, x):
    """The output of ``module`` on ``x`` built with ``relay-int8-nchwc`` disabled."""
    import xtvm
    from xtvm.transform import PassContext

    with PassContext(opt_level=3, disabled_pass=["relay-int8-nchwc"]):
        lib = xtvm.build(module)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    return gmod.get_output(0).numpy()


@needs_vnni
def test_global_sum_reads_the_blocked_plane():
    """The integer global pool's sum over H and W after a blocked block
    (``sink-unblocking-plane-sum``): it sums the blocked plane, only the
    sums are transformed back; the same bits as with the pass disabled."""
    from xtvm.driver.build_module import lower
    from xtvm.transform import PassContext

    x = np.random.default_rng(6).integers(0, 256, (1, 16, 7, 7), dtype=np.uint8)

    def module():
        g = GraphBuilder(TensorType(ui8, list(x.shape)))
        y = g.add(relay.CastOp(_requantized_block(g, g.args[0], np.random.default_rng(7)), "int32"))
        return g.module([g.add(relay.SumOp(y, axis=[2, 3], keepdims=True))])

    with PassContext(opt_level=3):
        relay_opt = str(lower(module(), stage="relay-opt"))
    assert re.search(r"relay\.sum %\S+ \{[^}]*\} : \(tensor<1x1x7x7x16xi32>\)", relay_opt)
    got, _ = _run(module(), [x])
    assert got.shape == (1, 16, 1, 1)
    np.testing.assert_array_equal(got, _without_int8_nchwc(module(), x))
