"""memory-concat-in-place end to end: producers write straight into the
concatenation's output, the concatenation becomes a ``__nop`` graph node,
and the results equal NumPy's; the graph executor refuses a multi-input
``__nop`` whose inputs are not in place."""

import ctypes
import json

import numpy as np
import pytest

import xtvm
from xtvm.ir.parse import parse_module
from xtvm.runtime import XTVMError, graph_executor

# Blocked [1, C/16, H, W, 16] data concatenated along the channel blocks, as
# SqueezeNet's fire modules, Inception's branches and DenseNet's layers:
# three pools into one concatenation, a pool of it and another pool into a
# second one (both in place); the first concatenation (read by the pool too)
# and a pool into a third, nested as DenseNet's (in place); a graph input
# and a pool into a fourth (copied: the caller owns the input).
GRAPH = """
func.func @main(%x: tensor<1x2x6x6x16xf32>, %y: tensor<1x1x6x6x16xf32>) -> (tensor<1x7x5x5x16xf32>, tensor<1x3x6x6x16xf32>, tensor<1x6x6x6x16xf32>) {
  %a = relay.nn.max_pool3d %x {pool_size = array<i64: 1, 1, 1>} : (tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
  %b = relay.nn.max_pool3d %x {pool_size = array<i64: 3, 3, 1>, padding = array<i64: 1, 1, 0, 1, 1, 0>} : (tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
  %c = relay.nn.avg_pool3d %y {pool_size = array<i64: 3, 3, 1>, padding = array<i64: 1, 1, 0, 1, 1, 0>} : (tensor<1x1x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
  %cat = relay.concatenate %a, %b, %c {axis = 1 : i64} : (tensor<1x2x6x6x16xf32>, tensor<1x2x6x6x16xf32>, tensor<1x1x6x6x16xf32>) -> tensor<1x5x6x6x16xf32>
  %p = relay.nn.max_pool3d %cat {pool_size = array<i64: 2, 2, 1>} : (tensor<1x5x6x6x16xf32>) -> tensor<1x5x5x5x16xf32>
  %q = relay.nn.max_pool3d %x {pool_size = array<i64: 2, 2, 1>} : (tensor<1x2x6x6x16xf32>) -> tensor<1x2x5x5x16xf32>
  %cat2 = relay.concatenate %p, %q {axis = 1 : i64} : (tensor<1x5x5x5x16xf32>, tensor<1x2x5x5x16xf32>) -> tensor<1x7x5x5x16xf32>
  %r = relay.nn.max_pool3d %x {pool_size = array<i64: 1, 1, 1>} : (tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
  %cat3 = relay.concatenate %y, %r {axis = 1 : i64} : (tensor<1x1x6x6x16xf32>, tensor<1x2x6x6x16xf32>) -> tensor<1x3x6x6x16xf32>
  %s = relay.nn.max_pool3d %y {pool_size = array<i64: 1, 1, 1>} : (tensor<1x1x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
  %nest = relay.concatenate %cat, %s {axis = 1 : i64} : (tensor<1x5x6x6x16xf32>, tensor<1x1x6x6x16xf32>) -> tensor<1x6x6x6x16xf32>
  func.return %cat2, %cat3, %nest : tensor<1x7x5x5x16xf32>, tensor<1x3x6x6x16xf32>, tensor<1x6x6x6x16xf32>
}
"""


def _window(x: np.ndarray, size: int, pad: float) -> np.ndarray:
    """``[size * size, *x.shape]`` windows of ``x`` over axes 2, 3 (stride 1,
    padded by ``(size - 1) // 2`` with ``pad`` when size is 3)."""
    if size == 3:
        x = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1), (0, 0)], constant_values=pad)
    h, w = x.shape[2] - size + 1, x.shape[3] - size + 1
    return np.stack([x[:, :, i : i + h, j : j + w] for i in range(size) for j in range(size)])


def _reference(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    a = x
    b = _window(x, 3, -np.inf).max(axis=0)
    ones = _window(np.ones_like(y), 3, 0).sum(axis=0)
    c = _window(y, 3, 0).sum(axis=0) / ones
    cat = np.concatenate([a, b, c], axis=1)
    p = _window(cat, 2, 0).max(axis=0)
    q = _window(x, 2, 0).max(axis=0)
    return (
        np.concatenate([p, q], axis=1),
        np.concatenate([y, x], axis=1),
        np.concatenate([cat, y], axis=1),
    )


@pytest.fixture(scope="module")
def lib():
    return xtvm.build(parse_module(GRAPH))


def _inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 6, 6, 16)).astype(np.float32)
    y = rng.standard_normal((1, 1, 6, 6, 16)).astype(np.float32)
    return x, y


def test_concatenations_in_place_match_numpy(lib):
    gmod = lib["default"](xtvm.cpu(0))
    x, y = _inputs()
    for scale in (1, -2):  # a second run: nothing stale stays in the arena
        gmod.set_input(0, x * scale)
        gmod.set_input(1, y * scale)
        gmod.run()
        for k, ref in enumerate(_reference(x * scale, y * scale)):
            np.testing.assert_allclose(gmod.get_output(k).numpy(), ref, rtol=1e-6, atol=1e-6)


def test_only_the_eligible_concatenations_are_nops(lib):
    graph = json.loads(lib["get_graph_json"]())
    calls = [n["attrs"]["func_name"] for n in graph["nodes"] if n["op"] == "tvm_op"]
    assert calls.count("__nop") == 3
    assert sum(name.startswith("fused_concatenate") for name in calls) == 1
    nop = next(n for n in graph["nodes"] if n.get("attrs", {}).get("func_name") == "__nop")
    offsets = graph["attrs"]["storage_offset"][1]
    row = graph["node_row_ptr"]
    inputs = [offsets[row[nid] + k] for nid, k, _ in nop["inputs"]]
    out = offsets[row[graph["nodes"].index(nop)]]
    block = 6 * 6 * 16 * 4  # bytes of one channel block
    assert inputs == [out, out + 2 * block, out + 4 * block]


def test_a_multi_input_nop_out_of_place_is_a_clear_error(lib):
    graph = json.loads(lib["get_graph_json"]())
    nop = next(n for n in graph["nodes"] if n.get("attrs", {}).get("func_name") == "__nop")
    nid, k, _ = nop["inputs"][1]
    entry = graph["node_row_ptr"][nid] + k
    graph["attrs"]["storage_offset"][1][entry] += 1 << 20  # moved out of the output
    with pytest.raises(XTVMError, match="__nop node .* must lie back to back in its output"):
        graph_executor.create(json.dumps(graph), lib, xtvm.cpu(0))


def test_aot_entry_runs_the_concatenations_in_place(lib, tmp_path):
    """The exported library's C entry (docs/abi.md) skips the in-place
    calls and copies the returned concatenations made in place out of its
    workspace: the same numbers as NumPy."""
    path = tmp_path / "concat.so"
    lib.export_library(str(path))
    entry = ctypes.CDLL(str(path)).tvmgen_default_run
    entry.restype = ctypes.c_int32
    x, y = _inputs()
    refs = _reference(x, y)
    outs = [np.full(r.shape, np.nan, np.float32) for r in refs]
    inputs = (ctypes.c_void_p * 2)(x.ctypes.data, y.ctypes.data)
    outputs = (ctypes.c_void_p * len(outs))(*(o.ctypes.data for o in outs))
    assert entry(inputs, outputs) == 0
    for out, ref in zip(outs, refs, strict=True):
        np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
