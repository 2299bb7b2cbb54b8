"""Converters for ops of the ``ai.onnx.ml`` domain on numeric tensors:
``Binarizer`` (→ ``relay.where`` of ``relay.greater``),
``ArrayFeatureExtractor`` (→ ``relay.take`` along the last axis) and
``TreeEnsemble`` (the leaves' path conditions, then a matmul or min/max of
the leaf weights). ``LabelEncoder``, which maps strings too, is in
``strings``."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    CastOp,
    ConcatenateOp,
    EqualOp,
    ExpandDimsOp,
    GreaterEqualOp,
    GreaterOp,
    IsNanOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalNotOp,
    LogicalOrOp,
    MatmulOp,
    MaxOp,
    MinOp,
    NotEqualOp,
    ReshapeOp,
    TakeOp,
    WhereOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _dtype(value: SSAValue) -> np.dtype:
    ty = value.type
    assert isinstance(ty, TensorType)
    return numpy_dtype(ty.get_element_type())


class Binarizer(OnnxOpConverter):
    """``Binarizer``: 1 where the input exceeds ``threshold`` (default 0),
    else 0, in the input's type."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        dtype = _dtype(x)
        threshold = node.const(np.array(node.attr("threshold", 0.0), dtype))
        above = node.emit(GreaterOp(x, threshold))
        one, zero = (node.const(np.array(v, dtype)) for v in (1, 0))
        return node.emit(WhereOp(above, one, zero))


class ArrayFeatureExtractor(OnnxOpConverter):
    """``ArrayFeatureExtractor(X, Y)``: the elements of ``X`` at positions
    ``Y`` (int64, any shape, read flat) of its last axis, ``[..., len(Y)]``;
    a 1-d ``X`` gives ``[1, len(Y)]``, as onnxruntime. Out-of-range
    positions are clamped (onnxruntime rejects them)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x, indices = node.input(0), node.input(1)
        xshape, ishape = node.input_shape(0), node.input_shape(1)
        if not xshape:
            raise node.error("input X must have rank >= 1, got a scalar")
        count = int(np.prod(ishape))
        if len(ishape) != 1:
            indices = node.emit(ReshapeOp(indices, [count]))
        y = node.emit(TakeOp(x, indices, axis=len(xshape) - 1, mode="clip"))
        return node.emit(ReshapeOp(y, [1, count])) if len(xshape) == 1 else y


# TreeEnsemble's comparisons by `nodes_modes` value; 6 is set membership.
_TREE_MODES = {
    0: LessEqualOp,
    1: LessOp,
    2: GreaterEqualOp,
    3: GreaterOp,
    4: EqualOp,
    5: NotEqualOp,
}
_MEMBER = 6
_AGGREGATES = {0: "AVERAGE", 1: "SUM", 2: "MIN", 3: "MAX"}


class TreeEnsemble(OnnxOpConverter):
    """``TreeEnsemble(X)`` (opset 5): X ``[N, F]`` → ``[N, n_targets]`` in
    X's type. The trees are constants, so each leaf becomes the AND of the
    comparisons on its root path (``relay`` compares of ``X[:, feature]``
    with the split; set membership an OR of ``relay.equal``; a missing
    value, NaN, goes the true way where ``nodes_missing_value_tracks_true``
    says so): one indicator per leaf, exactly one per tree true. ``SUM`` and
    ``AVERAGE`` are then a ``relay.nn.matmul`` of the indicators with the
    constant ``[leaves, n_targets]`` matrix of leaf weights (divided by the
    tree count for the average); ``MIN``/``MAX`` reduce, per target, the
    weights of its firing leaves (the type's extreme where none fires, as
    onnx's reference). ``post_transform`` must be ``NONE`` (0)."""

    @classmethod
    def _impl_v5(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        dtype = _dtype(x)
        shape = node.input_shape(0)
        if len(shape) != 2 or not np.issubdtype(dtype, np.floating):
            raise node.error(f"expected X of shape [N, F] of floats, got {dtype}{list(shape)}")
        if node.attr("post_transform", 0) != 0:
            raise node.unsupported_attr("post_transform", "only NONE (0) is supported", 0)
        aggregate = _AGGREGATES.get(node.attr("aggregate_function", 1))
        if aggregate is None:
            raise node.unsupported_attr("aggregate_function", "expected 0-3", 1)
        tree = _TreeArrays(node)
        leaves: list[tuple[SSAValue | None, int]] = []  # (indicator or None: always, leaf)
        for root in tree.roots:
            if (
                tree.true_leaf[root]
                and tree.false_leaf[root]
                and tree.true_id[root] == tree.false_id[root]
            ):
                leaves.append((None, root))  # a tree that is one leaf
                continue
            leaves += cls._paths(node, x, tree, root)
        n, targets = shape[0], int(node.attr("n_targets"))
        ones = node.const(np.ones(n, bool))
        marks = [node.emit(ExpandDimsOp(m if m is not None else ones, 1)) for m, _ in leaves]
        fired = node.emit(ConcatenateOp(marks, 1)) if len(marks) > 1 else marks[0]  # [N, L]
        ids = [int(tree.leaf_targets[leaf]) for _, leaf in leaves]
        weights = np.array([tree.leaf_weights[leaf] for _, leaf in leaves], dtype)
        if min(ids) < 0 or max(ids) >= targets:
            raise node.error(f"leaf_targetids must lie in [0, n_targets = {targets})")
        if aggregate in ("SUM", "AVERAGE"):
            table = np.zeros((len(ids), targets), dtype)
            np.add.at(table, (np.arange(len(ids)), ids), weights)
            if aggregate == "AVERAGE":
                table /= len(tree.roots)
            return node.emit(MatmulOp(node.emit(CastOp(fired, str(dtype))), node.const(table)))
        finfo = np.finfo(dtype)
        none, reduce = (finfo.max, MinOp) if aggregate == "MIN" else (finfo.min, MaxOp)
        values = node.emit(WhereOp(fired, node.const(weights), node.const(np.array(none, dtype))))
        columns = []
        for t in range(targets):
            picked = [i for i, target in enumerate(ids) if target == t]
            if not picked:
                columns.append(node.const(np.full((n, 1), none, dtype)))
                continue
            chosen = node.emit(TakeOp(values, node.const(np.array(picked, np.int64)), axis=1))
            columns.append(node.emit(reduce(chosen, [1], keepdims=True)))
        return node.emit(ConcatenateOp(columns, 1)) if len(columns) > 1 else columns[0]

    @classmethod
    def _paths(
        cls, node: OnnxNode, x: SSAValue, tree: _TreeArrays, root: int
    ) -> list[tuple[SSAValue | None, int]]:
        """Each leaf under ``root`` with the AND of the conditions leading
        to it (walked depth first; a cycle is an error)."""
        found: list[tuple[SSAValue | None, int]] = []
        stack: list[tuple[int, SSAValue | None, frozenset[int]]] = [(root, None, frozenset())]
        while stack:
            index, path, seen = stack.pop()
            if index in seen or not 0 <= index < len(tree.modes):
                raise node.error(f"tree node {index} is out of range or on a cycle")
            cond = tree.condition(node, x, index)
            for taken, is_leaf, target in (
                (cond, tree.true_leaf[index], tree.true_id[index]),
                (node.emit(LogicalNotOp(cond)), tree.false_leaf[index], tree.false_id[index]),
            ):
                step = taken if path is None else node.emit(LogicalAndOp(path, taken))
                if is_leaf:
                    found.append((step, int(target)))
                else:
                    stack.append((int(target), step, seen | {index}))
        return found


class _TreeArrays:
    """TreeEnsemble's node and leaf attributes as arrays, and its
    conditions as relay values (one per tree node, built once)."""

    def __init__(self, node: OnnxNode):
        def array(name: str, default: object = None) -> np.ndarray:
            value = node.attr(name, default)
            if value is None:
                raise node.error(f"missing attribute '{name}'")
            return np.asarray(value)

        self.roots = [int(r) for r in array("tree_roots")]
        self.modes = array("nodes_modes").astype(np.int64)
        self.features = array("nodes_featureids").astype(np.int64)
        self.splits = array("nodes_splits").astype(np.float64)
        self.true_id, self.false_id = array("nodes_truenodeids"), array("nodes_falsenodeids")
        self.true_leaf = array("nodes_trueleafs").astype(bool)
        self.false_leaf = array("nodes_falseleafs").astype(bool)
        self.leaf_targets = array("leaf_targetids").astype(np.int64)
        self.leaf_weights = array("leaf_weights").astype(np.float64)
        missing = node.attr("nodes_missing_value_tracks_true")
        self.missing = (
            np.zeros(len(self.modes), bool) if missing is None else np.asarray(missing, bool)
        )
        members = node.attr("membership_values")
        self.members: dict[int, list[float]] = {}
        if (self.modes == _MEMBER).any():
            if members is None:
                raise node.error("set membership nodes (mode 6) need 'membership_values'")
            # The members of each mode-6 node in node order, each set ended by a NaN.
            sets = np.split(np.asarray(members, np.float64), np.flatnonzero(np.isnan(members)) + 1)
            for i, index in enumerate(np.flatnonzero(self.modes == _MEMBER)):
                self.members[int(index)] = [float(v) for v in sets[i] if not np.isnan(v)]
        self._conditions: dict[int, SSAValue] = {}
        self._columns: dict[int, SSAValue] = {}

    def condition(self, node: OnnxNode, x: SSAValue, index: int) -> SSAValue:
        """Where tree node ``index`` takes its true branch, a bool ``[N]``."""
        if index in self._conditions:
            return self._conditions[index]
        feature = int(self.features[index])
        if not 0 <= feature < node.input_shape(0)[1]:
            raise node.error(f"tree node {index} reads feature {feature}, beyond X's columns")
        if feature not in self._columns:
            self._columns[feature] = node.emit(
                TakeOp(x, node.const(np.array(feature, np.int64)), axis=1)
            )
        column, dtype = self._columns[feature], _dtype(x)
        mode = int(self.modes[index])
        if mode == _MEMBER:
            cond = None
            for value in self.members[index]:
                eq = node.emit(EqualOp(column, node.const(np.array(value, dtype))))
                cond = eq if cond is None else node.emit(LogicalOrOp(cond, eq))
            if cond is None:  # an empty set: never true
                cond = node.const(np.zeros(node.input_shape(0)[0], bool))
        elif mode in _TREE_MODES:
            split = node.const(np.array(self.splits[index], dtype))
            cond = node.emit(_TREE_MODES[mode](column, split))
        else:
            raise node.error(f"tree node {index} has mode {mode}; expected 0-6")
        if self.missing[index]:
            cond = node.emit(LogicalOrOp(cond, node.emit(IsNanOp(column))))
        self._conditions[index] = cond
        return cond


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Binarizer": Binarizer,
    "ArrayFeatureExtractor": ArrayFeatureExtractor,
    "TreeEnsemble": TreeEnsemble,
}
