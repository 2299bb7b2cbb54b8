"""ai.onnx.ml Binarizer and ArrayFeatureExtractor against onnxruntime,
compiled."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from compiled_testing import run_compiled
from onnx import TensorProto, helper
from onnx_testing import run_ort, tensor


def _ml_model(op: str, inputs: list[onnx.ValueInfoProto], output: onnx.ValueInfoProto, **attrs):
    node = helper.make_node(op, [i.name for i in inputs], ["y"], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph([node], "ml", inputs, [output])
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)],
    )
    model.ir_version = 8
    return model


@pytest.mark.parametrize(
    ("dtype", "elem"), [(np.float32, TensorProto.FLOAT), (np.int64, TensorProto.INT64)]
)
def test_binarizer(dtype, elem):
    x = np.random.default_rng(1).integers(-4, 5, (3, 4, 5)).astype(dtype)
    model = _ml_model(
        "Binarizer", [tensor("x", x.shape, elem)], tensor("y", x.shape, elem), threshold=1.0
    )
    feeds = {"x": x}
    (got,) = run_compiled(model, feeds)
    wants = [(x > 1).astype(dtype)]
    if dtype == np.float32:  # onnxruntime's Binarizer takes float only
        wants += run_ort(model, feeds)
    for want in wants:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("xshape", "ishape"), [((3, 4), (2,)), ((2, 3, 5), (1, 3)), ((6,), (2,))])
def test_array_feature_extractor(xshape, ishape):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(xshape).astype(np.float32)
    idx = rng.integers(0, xshape[-1], ishape).astype(np.int64)
    inputs = [tensor("x", xshape), tensor("i", ishape, TensorProto.INT64)]
    count = int(np.prod(ishape))
    yshape = (1, count) if len(xshape) == 1 else (*xshape[:-1], count)
    model = _ml_model("ArrayFeatureExtractor", inputs, tensor("y", yshape))
    feeds = {"x": x, "i": idx}
    (got,) = run_compiled(model, feeds)
    (want,) = run_ort(model, feeds)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _forest(rng: np.random.Generator, trees: int, features: int, targets: int, **attrs):
    """A TreeEnsemble node of ``trees`` complete depth-2 trees: node 3t is
    tree t's root, 3t+1 and 3t+2 its children, whose branches end in leaves
    4t..4t+3; every comparison mode, one set membership, and NaN routing."""
    modes, feats, splits, tids, fids, tleaf, fleaf, missing = [], [], [], [], [], [], [], []
    members: list[float] = []
    for t in range(trees):
        for k in range(3):
            mode = int(rng.integers(0, 7)) if (t, k) != (0, 1) else 6
            modes.append(mode)
            feats.append(int(rng.integers(0, features)))
            splits.append(float(rng.normal()))
            if mode == 6:
                # No member 0: onnx's reference ends a set at a falsy member.
                members += [float(v) for v in rng.choice([-1.0, 1.0, 2.0], 2)] + [np.nan]
            missing.append(int(rng.integers(0, 2)))
            if k == 0:
                tids.append(3 * t + 1), fids.append(3 * t + 2), tleaf.append(0), fleaf.append(0)
            else:
                base = 4 * t + 2 * (k - 1)
                tids.append(base), fids.append(base + 1), tleaf.append(1), fleaf.append(1)
    leaves = 4 * trees
    return helper.make_node(
        "TreeEnsemble",
        ["x"],
        ["y"],
        domain="ai.onnx.ml",
        n_targets=targets,
        tree_roots=[3 * t for t in range(trees)],
        nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [len(modes)], modes),
        nodes_featureids=feats,
        nodes_splits=helper.make_tensor("s", TensorProto.DOUBLE, [len(splits)], splits),
        nodes_truenodeids=tids,
        nodes_falsenodeids=fids,
        nodes_trueleafs=tleaf,
        nodes_falseleafs=fleaf,
        nodes_missing_value_tracks_true=missing,
        membership_values=helper.make_tensor("v", TensorProto.DOUBLE, [len(members)], members),
        leaf_targetids=[int(v) for v in rng.integers(0, targets, leaves)],
        leaf_weights=helper.make_tensor(
            "w", TensorProto.DOUBLE, [leaves], [float(v) for v in rng.normal(size=leaves)]
        ),
        **attrs,
    )


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
@pytest.mark.parametrize(
    ("dtype", "elem"), [(np.float32, TensorProto.FLOAT), (np.float64, TensorProto.DOUBLE)]
)
def test_tree_ensemble_matches_reference(aggregate, dtype, elem):
    from onnx.reference import ReferenceEvaluator

    rng = np.random.default_rng(aggregate)
    node = _forest(rng, trees=3, features=3, targets=3, aggregate_function=aggregate)
    graph = helper.make_graph(
        [node], "forest", [tensor("x", [8, 3], elem)], [tensor("y", [8, 3], elem)]
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5)]
    )
    model.ir_version = 10
    x = rng.choice([-1.0, 0.0, 1.0, 2.0, np.nan], (8, 3)) + rng.normal(size=(8, 3)) * (
        rng.random((8, 3)) < 0.5
    )
    x = x.astype(dtype)
    (got,) = run_compiled(model, {"x": x})
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want.astype(dtype), rtol=1e-6)
