"""Random ONNX graphs, valid by construction: the op generators of the ONNX fuzzer.

A :class:`GraphBuilder` holds a graph being grown: its inputs (with the
arrays fed to them), initializers, nodes and the known type of every value
(from onnx's shape inference, run after each node). An op generator
(``OPS``: ONNX op type → function) picks operands among the values, makes
attributes and constant operands valid for their shapes, and adds one node
(or a few: ``Log`` reads ``Abs(x) + 0.5``, so its domain holds by
construction); it raises :class:`Skip` when no value suits it. Values stay
moderate: inputs are in [-2, 2], divisors and logarithms see positive
values, and exponentials see ``Tanh``'d ones.

:func:`random_graph` draws 1-8 op generators (uniformly over op types) and
returns the model, checked by ``onnx.checker`` and strict shape inference,
and its inputs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import product

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference


class Skip(Exception):
    """The op generator found no suitable operand (or made an invalid node)."""


FLOAT = np.dtype("float32")
INT_DTYPES = (np.dtype("int32"), np.dtype("int64"))
BOOL = np.dtype("bool")


class GraphBuilder:
    """A graph being grown, and the arrays its inputs get."""

    def __init__(self, rng: random.Random, opset: int):
        self.rng = rng
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.feeds: dict[str, np.ndarray] = {}
        self.types: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
        self.tensors: list[str] = []  # values node generators may read (not shape helpers)
        self._count = 0

    # --- values

    def fresh(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def array(
        self, shape: Sequence[int], dtype: np.dtype, low: float = -2.0, high: float = 2.0
    ) -> np.ndarray:
        nprng = np.random.default_rng(self.rng.getrandbits(32))
        if dtype == BOOL:
            return np.asarray(nprng.random(shape) < 0.5)
        if dtype.kind in "iu":
            return np.asarray(nprng.integers(int(low), int(high) + 1, size=shape).astype(dtype))
        return np.asarray(nprng.uniform(low, high, size=shape).astype(dtype))

    def add_input(self, shape: Sequence[int], dtype: np.dtype = FLOAT, **bounds: float) -> str:
        name = self.fresh("in")
        value = self.array(shape, dtype, **bounds)
        self.inputs.append(
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(dtype), list(shape))
        )
        self.feeds[name] = value
        self.types[name] = (dtype, tuple(shape))
        self.tensors.append(name)
        return name

    def const(
        self,
        value: np.ndarray | Sequence[int] | Sequence[float],
        dtype: str | None = None,
        name: str = "c",
    ) -> str:
        array = np.asarray(value, dtype=dtype)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        name = self.fresh(name)
        self.initializers.append(numpy_helper.from_array(array, name))
        self.types[name] = (array.dtype, array.shape)
        return name

    def operand(self, shape: Sequence[int], dtype: np.dtype = FLOAT, **bounds: float) -> str:
        """A new operand: a graph input or an initializer, at random."""
        if self.rng.random() < 0.5:
            return self.add_input(shape, dtype, **bounds)
        return self.const(self.array(shape, dtype, **bounds))

    def pick(
        self,
        dtypes: Sequence[np.dtype] = (FLOAT,),
        min_rank: int = 0,
        max_rank: int = 6,
        where: Callable[[tuple[int, ...]], bool] = lambda s: True,
    ) -> str:
        """A value of one of ``dtypes`` with a suitable shape (preferring
        recent ones, so graphs are chains more than forests)."""
        fits = [
            n
            for n in self.tensors
            if self.types[n][0] in dtypes
            and min_rank <= len(self.types[n][1]) <= max_rank
            and where(self.types[n][1])
        ]
        if not fits:
            raise Skip
        if self.rng.random() < 0.6:
            return fits[-1]
        return self.rng.choice(fits)

    def dtype(self, name: str) -> np.dtype:
        return self.types[name][0]

    def shape(self, name: str) -> tuple[int, ...]:
        return self.types[name][1]

    # --- nodes

    def model(self, outputs: Sequence[str] | None = None) -> onnx.ModelProto:
        """The graph as a model with ``outputs`` (default: every value no node reads)."""
        if outputs is None:
            read = {i for node in self.nodes for i in node.input}
            outputs = [o for node in self.nodes for o in node.output if o not in read and o]
        outs = []
        for name in outputs:
            if name not in self.types:  # a new node's output, for shape inference
                outs.append(helper.make_empty_tensor_value_info(name))
                continue
            dtype, shape = self.types[name]
            outs.append(
                helper.make_tensor_value_info(
                    name, helper.np_dtype_to_tensor_dtype(dtype), list(shape)
                )
            )
        graph = helper.make_graph(self.nodes, "fuzz", self.inputs, outs, self.initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="xtvm-fuzz"
        )
        model.ir_version = min(model.ir_version, 10)
        return model

    def node(
        self,
        op: str,
        inputs: Sequence[str],
        outputs: int = 1,
        keep: bool = True,
        same_as: str | None = None,
        **attrs: object,
    ) -> list[str]:
        """Adds an ``op`` node, learns its outputs' types by shape inference
        (raising Skip when it fails or a type is unknown) and returns their
        names. ``same_as``: the output has that value's type (for function
        ops that onnx does not infer)."""
        names = [self.fresh(op.lower()[:6]) for _ in range(outputs)]
        node = helper.make_node(op, list(inputs), names, **attrs)
        self.nodes.append(node)
        if same_as is not None:
            self.types[names[0]] = self.types[same_as]
        try:
            inferred = shape_inference.infer_shapes(
                self.model(names), strict_mode=True, data_prop=True
            )
            onnx.checker.check_model(inferred)
        except Exception as err:  # noqa: BLE001 - an invalid node: drop it
            self.nodes.pop()
            raise Skip(str(err)) from None
        known = {v.name: v for v in [*inferred.graph.value_info, *inferred.graph.output]}
        for name in names:
            info = known.get(name)
            tensor = info.type.tensor_type if info is not None else None
            if (
                tensor is None
                or not tensor.HasField("shape")
                or any(not d.HasField("dim_value") for d in tensor.shape.dim)
            ):
                self.nodes.pop()
                raise Skip(f"{op}: unknown output type")
            dims = tuple(d.dim_value for d in tensor.shape.dim)
            if (
                int(np.prod(dims, dtype=np.int64)) > 1 << 16
                or int(np.prod(dims, dtype=np.int64)) == 0
            ):
                self.nodes.pop()
                raise Skip(f"{op}: output too large or empty")
            self.types[name] = (np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type)), dims)
        if keep:
            self.tensors.extend(names)
        return names

    # --- operands for common cases

    def positive(self, x: str) -> str:
        """``Abs(x) + 0.5``: a value inside the domain of Log, Sqrt, division."""
        (a,) = self.node("Abs", [x])
        return self.node("Add", [a, self.const(np.float32(0.5))])[0]

    def bounded(self, x: str, scale: float = 0.9) -> str:
        """``Tanh(x) * scale``: a value in (-scale, scale)."""
        (t,) = self.node("Tanh", [x])
        return self.node("Mul", [t, self.const(np.float32(scale))])[0]

    def broadcastable(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """A shape that broadcasts with ``shape`` to ``shape``."""
        rng = self.rng
        kind = rng.randrange(4)
        if kind == 0 or not shape:
            return shape
        if kind == 1:
            return shape[rng.randrange(len(shape) + 1) :]
        if kind == 2:
            return tuple(d if rng.random() < 0.5 else 1 for d in shape)
        return ()

    def axis(self, rank: int) -> int:
        a = self.rng.randrange(rank)
        return a - rank if self.rng.random() < 0.3 else a

    def axes(self, rank: int) -> list[int]:
        chosen = sorted(self.rng.sample(range(rank), self.rng.randint(1, rank)))
        return [a - rank if self.rng.random() < 0.2 else a for a in chosen]

    def axes_operand(self, op: str, axes: list[int], since: int) -> tuple[list[str], dict]:
        """``axes`` as an input (opset >= ``since``) or an attribute."""
        if self.opset >= since:
            return [self.const(np.array(axes, np.int64))], {}
        return [], {"axes": axes}


# --- the op generators ------------------------------------------------------

Gen = Callable[[GraphBuilder], None]
OPS: dict[str, Gen] = {}
SINCE: dict[str, int] = {}


def op(*names: str, since: int = 1) -> Callable[[Callable[[GraphBuilder, str], None]], None]:
    """Registers a generator ``f(builder, op_type)`` for each of ``names``."""

    def register(f: Callable[[GraphBuilder, str], None]) -> None:
        for name in names:
            OPS[name] = lambda b, name=name: f(b, name)
            SINCE[name] = since

    return register


@op(
    "Abs",
    "Neg",
    "Relu",
    "Sigmoid",
    "Tanh",
    "Sin",
    "Cos",
    "Atan",
    "Asinh",
    "Erf",
    "Floor",
    "Ceil",
    "Round",
    "Sign",
    "Softplus",
    "Softsign",
    "Selu",
    "HardSwish",
    "Identity",
    "Exp",
    "Sinh",
    "Cosh",
    "Tan",
)
def unary(b: GraphBuilder, name: str) -> None:
    x = b.pick()
    if name in ("Exp", "Sinh", "Cosh", "Tan"):
        x = b.bounded(x, 1.2)
    b.node(name, [x])


@op("Mish", since=18)
def mish(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.pick()])


@op("Gelu", since=20)
def gelu(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.pick()], approximate=b.rng.choice(["none", "tanh"]))


@op("Log", "Sqrt", "Reciprocal")
def positive_unary(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.positive(b.pick())])


@op("Acos", "Asin", "Atanh")
def unit_unary(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.bounded(b.pick())])


@op("Acosh")
def acosh(b: GraphBuilder, name: str) -> None:
    (x,) = b.node("Add", [b.positive(b.pick()), b.const(np.float32(1.0))])
    b.node(name, [x])


@op("Elu", "Celu", "LeakyRelu", "ThresholdedRelu", "HardSigmoid", "Shrink")
def unary_with_attrs(b: GraphBuilder, name: str) -> None:
    r = b.rng
    attrs = {
        "Elu": {"alpha": r.choice([0.5, 1.0, 2.0])},
        "Celu": {"alpha": r.choice([0.5, 1.0, 2.0])},
        "LeakyRelu": {"alpha": r.choice([0.01, 0.1, 0.5])},
        "ThresholdedRelu": {"alpha": r.choice([0.0, 0.5, 1.0])},
        "HardSigmoid": {"alpha": r.choice([0.2, 0.5]), "beta": r.choice([0.5, 0.1])},
        "Shrink": {"lambd": r.choice([0.0, 0.5, 1.5]), "bias": r.choice([0.0, 0.5])},
    }[name]
    b.node(name, [b.pick()], **attrs)


@op("IsNaN", "IsInf")
def is_special(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.pick()])


@op("Dropout")
def dropout(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.pick()])


def _second(b: GraphBuilder, x: str, dtype: np.dtype, **bounds: float) -> str:
    """A second operand for ``x``: another value of its shape or a broadcastable new one."""
    shape = b.shape(x)
    same = [n for n in b.tensors if n != x and b.types[n] == (dtype, shape)]
    if same and b.rng.random() < 0.5:
        return b.rng.choice(same)
    return b.operand(b.broadcastable(shape), dtype, **bounds)


@op("Add", "Sub", "Mul", "Max", "Min")
def binary(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES))
    y = _second(b, x, b.dtype(x))
    if b.rng.random() < 0.5:
        x, y = y, x
    b.node(name, [x, y])


@op("Div")
def div(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES))
    if b.dtype(x) == FLOAT:
        b.node(name, [x, b.positive(_second(b, x, FLOAT))])
    else:
        b.node(name, [x, b.operand(b.broadcastable(b.shape(x)), b.dtype(x), low=1, high=5)])


@op("Pow")
def pow_(b: GraphBuilder, name: str) -> None:
    x = b.positive(b.pick())
    y = b.operand(b.broadcastable(b.shape(x)), FLOAT, low=-2, high=2)
    b.node(name, [x, y])


@op("Mod")
def mod(b: GraphBuilder, name: str) -> None:
    x = b.pick(INT_DTYPES + (FLOAT,))
    dtype = b.dtype(x)
    if dtype == FLOAT:
        y = b.operand(b.broadcastable(b.shape(x)), FLOAT, low=0.5, high=2)
        b.node(name, [x, y], fmod=1)
    else:
        y = b.operand(b.broadcastable(b.shape(x)), dtype, low=1, high=4)
        b.node(name, [x, y], fmod=b.rng.choice([0, 1]))


@op("Sum", "Mean")
def variadic(b: GraphBuilder, name: str) -> None:
    x = b.pick()
    b.node(name, [x] + [_second(b, x, FLOAT) for _ in range(b.rng.randint(0, 2))])


@op("PRelu")
def prelu(b: GraphBuilder, name: str) -> None:
    x = b.pick()
    b.node(name, [x, b.const(b.array(b.broadcastable(b.shape(x)), FLOAT, low=-1, high=1))])


@op("Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual")
def compare(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES))
    if name == "Equal" and b.dtype(x) == FLOAT:
        x = b.node("Floor", [x])[0]  # equality of computed floats is ill-conditioned
    b.node(name, [x, _second(b, x, b.dtype(x), low=-2, high=2)])


@op("And", "Or", "Xor")
def logical(b: GraphBuilder, name: str) -> None:
    x = b.pick((BOOL,))
    b.node(name, [x, _second(b, x, BOOL)])


@op("Not")
def not_(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.pick((BOOL,))])


@op("BitwiseAnd", "BitwiseOr", "BitwiseXor", since=18)
def bitwise(b: GraphBuilder, name: str) -> None:
    x = b.pick(INT_DTYPES)
    b.node(name, [x, _second(b, x, b.dtype(x), low=-50, high=50)])


@op("BitwiseNot", since=18)
def bitwise_not(b: GraphBuilder, name: str) -> None:
    b.node(name, [b.pick(INT_DTYPES)])


@op("BitShift")
def bitshift(b: GraphBuilder, name: str) -> None:
    x = b.add_input(b.shape(b.pick()), np.dtype("uint8"), low=0, high=255)
    y = b.const(b.array(b.broadcastable(b.shape(x)), np.dtype("uint8"), low=0, high=7))
    (s,) = b.node(name, [x, y], direction=b.rng.choice(["LEFT", "RIGHT"]))
    b.node("Cast", [s], to=TensorProto.INT32)


@op("Where")
def where(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES))
    conds = [n for n in b.tensors if b.dtype(n) == BOOL]
    cond = (
        b.rng.choice(conds)
        if conds and b.rng.random() < 0.7
        else b.operand(b.broadcastable(b.shape(x)), BOOL)
    )
    b.node(name, [cond, x, _second(b, x, b.dtype(x))])


@op("Clip")
def clip(b: GraphBuilder, name: str) -> None:
    x = b.pick()
    lo = b.const(np.float32(b.rng.choice([-1.0, -0.5, 0.0])))
    hi = b.const(np.float32(b.rng.choice([0.5, 1.0, 6.0])))
    inputs = b.rng.choice([[x, lo, hi], [x, lo], [x, "", hi], [x]])
    b.node(name, inputs)


@op("Cast")
def cast(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES, BOOL))
    to = b.rng.choice([TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL])
    if b.dtype(x) == FLOAT and to in (TensorProto.INT32, TensorProto.INT64):
        x = b.node("Floor", [x])[0]  # rounding mode of a computed value is ill-conditioned
    b.node(name, [x], to=to)


@op("CastLike")
def cast_like(b: GraphBuilder, name: str) -> None:
    x = b.pick((*INT_DTYPES, BOOL))
    b.node(name, [x, b.const(np.zeros((1,), np.float32))])


# --- reductions and normalizations


@op(
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceSumSquare",
    "ReduceLogSumExp",
    "ReduceLogSum",
)
def reduce(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    if name == "ReduceLogSum":
        x = b.positive(x)
    if name == "ReduceProd":
        x = b.bounded(x, 1.5)
    rank = len(b.shape(x))
    axes = b.axes(rank)
    keep = b.rng.choice([0, 1])
    since = 13 if name == "ReduceSum" else 18
    extra, attrs = b.axes_operand(name, axes, since)
    if b.rng.random() < 0.15:
        extra, attrs = [], {}  # all axes
    b.node(name, [x, *extra], keepdims=keep, **attrs)


@op("ArgMax", "ArgMin")
def argmax(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    b.node(
        name,
        [x],
        axis=b.axis(len(b.shape(x))),
        keepdims=b.rng.choice([0, 1]),
        select_last_index=b.rng.choice([0, 1]),
    )


@op("Softmax", "LogSoftmax", "Hardmax")
def softmax(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    b.node(name, [x], axis=b.axis(len(b.shape(x))))


@op("CumSum")
def cumsum(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1)
    axis = b.const(np.int64(b.axis(len(b.shape(x)))))
    b.node(name, [x, axis], exclusive=b.rng.choice([0, 1]), reverse=b.rng.choice([0, 1]))


@op("TopK")
def topk(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    axis = b.axis(len(b.shape(x)))
    k = b.const(np.array([b.rng.randint(1, b.shape(x)[axis])], np.int64))
    b.node(name, [x, k], outputs=2, axis=axis, largest=b.rng.choice([0, 1]), sorted=1)


@op("BatchNormalization")
def batch_norm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=2)
    c = b.shape(x)[1]
    params = [
        b.const(b.array((c,), FLOAT, low=lo, high=hi))
        for lo, hi in [(0.5, 1.5), (-1, 1), (-1, 1), (0.5, 2)]
    ]
    b.node(name, [x, *params], epsilon=b.rng.choice([1e-5, 1e-3]))


@op("InstanceNormalization")
def instance_norm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=3)
    c = b.shape(x)[1]
    b.node(
        name,
        [x, b.const(b.array((c,), FLOAT, 0.5, 1.5)), b.const(b.array((c,), FLOAT))],
        epsilon=1e-3,
    )


@op("LayerNormalization", since=17)
def layer_norm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    rank = len(b.shape(x))
    axis = b.axis(rank)
    norm_shape = b.shape(x)[axis % rank :]
    scale = b.const(b.array(norm_shape, FLOAT, 0.5, 1.5))
    inputs = [x, scale] + ([b.const(b.array(norm_shape, FLOAT))] if b.rng.random() < 0.7 else [])
    b.node(name, inputs, axis=axis, epsilon=1e-3)


@op("GroupNormalization", since=21)
def group_norm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=3)
    c = b.shape(x)[1]
    groups = b.rng.choice([g for g in range(1, c + 1) if c % g == 0])
    b.node(
        name,
        [x, b.const(b.array((c,), FLOAT, 0.5, 1.5)), b.const(b.array((c,), FLOAT))],
        num_groups=groups,
        epsilon=1e-3,
        same_as=x,
    )


@op("RMSNormalization", since=23)
def rms_norm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    rank = len(b.shape(x))
    axis = b.axis(rank)
    b.node(
        name,
        [x, b.const(b.array(b.shape(x)[axis % rank :], FLOAT, 0.5, 1.5))],
        axis=axis,
        epsilon=1e-3,
    )


@op("MeanVarianceNormalization")
def mvn(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=4, max_rank=4)
    b.node(name, [x], axes=b.rng.choice([[0, 2, 3], [2, 3], [1, 2, 3]]))


@op("LpNormalization")
def lp_norm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    b.node(name, [x], axis=b.axis(len(b.shape(x))), p=b.rng.choice([1, 2]))


@op("LRN")
def lrn(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=4, max_rank=4)
    b.node(name, [x], size=b.rng.choice([1, 3, 5]), alpha=1e-2, beta=0.75, bias=1.0)


# --- matmul, conv, pool


@op("MatMul")
def matmul(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1, max_rank=4)
    shape = b.shape(x)
    n = b.rng.randint(1, 5)
    if len(shape) == 1:
        w = (shape[0],) if b.rng.random() < 0.3 else (shape[0], n)
    else:
        batch = shape[:-2]
        if batch and b.rng.random() < 0.5:
            batch = batch[b.rng.randrange(len(batch) + 1) :]
        w = (*batch, shape[-1], n)
    y = b.operand(w, FLOAT)
    b.node(name, [x, y] if b.rng.random() < 0.8 or len(w) < 2 else [y, b.node("Transpose", [x])[0]])


@op("Gemm")
def gemm(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=2, max_rank=2)
    m, k = b.shape(x)
    trans_a = b.rng.choice([0, 1])
    if trans_a:
        m, k = k, m
    n = b.rng.randint(1, 6)
    trans_b = b.rng.choice([0, 1])
    w = b.operand((n, k) if trans_b else (k, n))
    inputs = [x, w]
    if b.rng.random() < 0.7:
        inputs.append(b.operand(b.rng.choice([(m, n), (n,), (1, n), (m, 1), ()])))
    b.node(
        name,
        inputs,
        transA=trans_a,
        transB=trans_b,
        alpha=b.rng.choice([1.0, 0.5]),
        beta=b.rng.choice([1.0, 2.0]),
    )


@op("Einsum", since=12)
def einsum(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=2, max_rank=3)
    shape = b.shape(x)
    n = b.rng.randint(1, 4)
    if len(shape) == 2:
        eq, other = b.rng.choice(
            [
                ("ij,jk->ik", (shape[1], n)),
                ("ij,kj->ik", (n, shape[1])),
                ("ij->ji", None),
                ("ij->i", None),
                ("ij,ij->ij", shape),
            ]
        )
    else:
        eq, other = b.rng.choice(
            [("bij,bjk->bik", (shape[0], shape[2], n)), ("bij->bji", None), ("bij->j", None)]
        )
    inputs = [x] if other is None else [x, b.operand(other)]
    b.node(name, inputs, equation=eq)


def _nonempty(shape: tuple[int, ...]) -> bool:
    """No zero-sized axis: ops that read or write at drawn positions need one."""
    return all(d >= 1 for d in shape)


def _spatial(b: GraphBuilder, min_rank: int = 3) -> str:
    return b.pick(min_rank=min_rank, max_rank=4, where=_nonempty)


def _window(b: GraphBuilder, spatial: tuple[int, ...]) -> dict:
    """Kernel, strides, pads and dilations that fit ``spatial`` (output >= 1)."""
    r = b.rng
    kernel, pads_begin, pads_end, strides, dilations = [], [], [], [], []
    for d in spatial:
        k = r.randint(1, min(3, d + 2))
        dil = r.choice([1, 1, 2]) if (k - 1) * 2 + 1 <= d + 2 else 1
        extent = (k - 1) * dil + 1
        lo = r.randint(0, min(k - 1, 2))
        hi = r.randint(0, min(k - 1, 2))
        while d + lo + hi < extent:
            hi += 1
        if hi > k - 1 or lo > k - 1:
            raise Skip  # pads must stay below the kernel for pools
        kernel.append(k)
        pads_begin.append(lo)
        pads_end.append(hi)
        strides.append(r.choice([1, 1, 2]))
        dilations.append(dil)
    return {
        "kernel_shape": kernel,
        "pads": pads_begin + pads_end,
        "strides": strides,
        "dilations": dilations,
    }


@op("Conv")
def conv(b: GraphBuilder, name: str) -> None:
    x = _spatial(b)
    n, c, *spatial = b.shape(x)
    win = _window(b, tuple(spatial))
    group = b.rng.choice([g for g in range(1, c + 1) if c % g == 0])
    m = group * b.rng.randint(1, 3)
    w = b.operand((m, c // group, *win["kernel_shape"]), FLOAT, low=-1, high=1)
    inputs = [x, w] + ([b.operand((m,))] if b.rng.random() < 0.6 else [])
    if b.rng.random() < 0.2:
        del win["pads"]
        win["auto_pad"] = b.rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        win["dilations"] = [1] * len(spatial)
    b.node(name, inputs, group=group, **win)


@op("ConvTranspose")
def conv_transpose(b: GraphBuilder, name: str) -> None:
    x = _spatial(b)
    n, c, *spatial = b.shape(x)
    win = _window(b, tuple(spatial))
    group = b.rng.choice([g for g in range(1, c + 1) if c % g == 0])
    m = b.rng.randint(1, 3)
    w = b.const(b.array((c, m, *win["kernel_shape"]), FLOAT, -1, 1))
    inputs = [x, w] + ([b.const(b.array((m * group,), FLOAT))] if b.rng.random() < 0.5 else [])
    if b.rng.random() < 0.3:
        win["output_padding"] = [b.rng.randint(0, s - 1) if s > 1 else 0 for s in win["strides"]]
    b.node(name, inputs, group=group, **win)


@op("MaxPool", "AveragePool", "LpPool")
def pool(b: GraphBuilder, name: str) -> None:
    x = _spatial(b)
    win = _window(b, b.shape(x)[2:])
    attrs = dict(win)
    if name != "MaxPool" and b.opset < 19:
        del attrs["dilations"]
    if name == "AveragePool":
        attrs["count_include_pad"] = b.rng.choice([0, 1])
    if name == "LpPool":
        attrs["p"] = b.rng.choice([1, 2])
        if b.opset < 18:
            attrs.pop("dilations", None)
    else:
        attrs["ceil_mode"] = b.rng.choice([0, 0, 1])
    b.node(name, [x], **attrs)


@op("GlobalAveragePool", "GlobalMaxPool")
def global_pool(b: GraphBuilder, name: str) -> None:
    b.node(name, [_spatial(b)])


@op("DepthToSpace", "SpaceToDepth")
def depth_space(b: GraphBuilder, name: str) -> None:
    block = b.rng.choice([1, 2])
    if name == "DepthToSpace":
        x = b.pick(min_rank=4, max_rank=4, where=lambda s: s[1] % (block * block) == 0)
        b.node(name, [x], blocksize=block, mode=b.rng.choice(["DCR", "CRD"]))
    else:
        x = b.pick(min_rank=4, max_rank=4, where=lambda s: s[2] % block == 0 and s[3] % block == 0)
        b.node(name, [x], blocksize=block)


@op("Resize", since=13)
def resize(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=3, max_rank=4)
    rank = len(b.shape(x))
    # xtvm resizes trailing axes only (a documented limitation): scale the last ones
    scales = [1.0] * rank
    for d in range(rank - b.rng.randint(1, rank - 2), rank):
        scales[d] = b.rng.choice([0.5, 2.0, 3.0])
    mode = b.rng.choice(["nearest", "linear"])
    attrs = {"mode": mode}
    if mode == "nearest":
        attrs["nearest_mode"] = b.rng.choice(["floor", "round_prefer_floor", "ceil"])
        attrs["coordinate_transformation_mode"] = b.rng.choice(["asymmetric", "half_pixel"])
    else:
        attrs["coordinate_transformation_mode"] = b.rng.choice(
            ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"]
        )
    b.node(name, [x, "", b.const(np.array(scales, np.float32))], **attrs)


# --- shape ops


@op("Reshape")
def reshape(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES, BOOL))
    size = int(np.prod(b.shape(x), dtype=np.int64))
    dims: list[int] = []
    left = size
    for _ in range(b.rng.randint(0, 3)):
        divisors = [d for d in range(1, left + 1) if left % d == 0]
        d = b.rng.choice(divisors)
        dims.append(d)
        left //= d
    dims.append(left)
    b.rng.shuffle(dims)
    if b.rng.random() < 0.3:
        dims[b.rng.randrange(len(dims))] = -1
    b.node(name, [x, b.const(np.array(dims, np.int64))])


@op("Flatten")
def flatten(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1)
    b.node(name, [x], axis=b.rng.randint(-len(b.shape(x)), len(b.shape(x))))


@op("Transpose")
def transpose(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES, BOOL), min_rank=1)
    perm = list(range(len(b.shape(x))))
    b.rng.shuffle(perm)
    b.node(name, [x], **({"perm": perm} if b.rng.random() < 0.8 else {}))


@op("Concat")
def concat(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1)
    shape = b.shape(x)
    axis = b.axis(len(shape))
    others = []
    for _ in range(b.rng.randint(1, 3)):
        other = list(shape)
        other[axis] = b.rng.randint(1, 3)
        others.append(x if b.rng.random() < 0.3 else b.operand(other, b.dtype(x)))
    b.node(name, [x, *others], axis=axis)


@op("Split")
def split(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1, where=lambda s: max(s) >= 2)
    shape = b.shape(x)
    axis = b.rng.choice([a for a, d in enumerate(shape) if d >= 2])
    d = shape[axis]
    parts = b.rng.randint(2, min(d, 3))
    if b.opset >= 18 and b.rng.random() < 0.5:
        b.node(name, [x], outputs=parts, axis=axis, num_outputs=parts)
        return
    sizes = [1] * parts
    for _ in range(d - parts):
        sizes[b.rng.randrange(parts)] += 1
    if b.opset >= 13:
        b.node(name, [x, b.const(np.array(sizes, np.int64))], outputs=parts, axis=axis)
    else:
        b.node(name, [x], outputs=parts, axis=axis, split=sizes)


@op("Slice")
def slice_(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1)
    shape = b.shape(x)
    axes = b.axes(len(shape))
    starts, ends, steps = [], [], []
    for a in axes:
        d = shape[a]
        step = b.rng.choice([1, 1, 2, -1, -2])
        lo, hi = sorted([b.rng.randint(0, d - 1), b.rng.randint(0, d)])
        if step > 0:
            start, end = lo, max(hi, lo + 1)
        else:
            start, end = max(hi - 1, lo), lo - 1 if lo > 0 else -d - 1
        if b.rng.random() < 0.2:
            end = 2**62 if step > 0 else -(2**62)
        starts.append(start)
        ends.append(end)
        steps.append(step)
    inputs = [
        x,
        b.const(np.array(starts, np.int64)),
        b.const(np.array(ends, np.int64)),
        b.const(np.array(axes, np.int64)),
        b.const(np.array(steps, np.int64)),
    ]
    b.node(name, inputs)


@op("Gather")
def gather(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1)
    shape = b.shape(x)
    axis = b.axis(len(shape))
    d = shape[axis]
    ishape = b.rng.choice([(), (b.rng.randint(1, 4),), (2, 2)])
    indices = b.array(ishape, np.dtype("int64"), low=-d, high=d - 1)
    b.node(name, [x, b.const(indices)], axis=axis)


@op("GatherElements")
def gather_elements(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1, where=_nonempty)
    shape = b.shape(x)
    axis = b.axis(len(shape))
    ishape = [b.rng.randint(1, d) for d in shape]
    ishape[axis] = b.rng.randint(1, 4)
    d = shape[axis]
    b.node(name, [x, b.const(b.array(ishape, np.dtype("int64"), low=-d, high=d - 1))], axis=axis)


@op("GatherND")
def gather_nd(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1, where=_nonempty)
    shape = b.shape(x)
    depth = b.rng.randint(1, len(shape))
    rows = b.rng.randint(1, 3)
    idx = np.stack([b.array((rows,), np.dtype("int64"), 0, shape[i] - 1) for i in range(depth)], -1)
    b.node(name, [x, b.const(idx)])


@op("ScatterElements")
def scatter_elements(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1, where=_nonempty)
    shape = b.shape(x)
    axis = b.axis(len(shape))
    d = shape[axis]
    # one update per index along the axis (duplicates would make the result order-dependent)
    k = b.rng.randint(1, d)
    other = [b.rng.randint(1, s) for s in shape]
    other[axis] = k
    nprng = np.random.default_rng(b.rng.getrandbits(32))
    idx = np.stack([nprng.permutation(d)[:k] for _ in range(int(np.prod(other)) // k)], -1)
    idx = np.moveaxis(
        idx.reshape(k, *[o for i, o in enumerate(other) if i != axis % len(shape)]), 0, axis
    )
    reductions = ["none", "add", "mul", "max", "min"][
        : 5 if b.opset >= 18 else 3 if b.opset >= 16 else 1
    ]
    attrs = {"reduction": b.rng.choice(reductions)} if b.opset >= 16 else {}
    b.node(name, [x, b.const(idx.astype(np.int64)), b.operand(other)], axis=axis, **attrs)


@op("ScatterND")
def scatter_nd(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1, where=_nonempty)
    shape = b.shape(x)
    depth = b.rng.randint(1, len(shape))
    cells = list(product(*[range(d) for d in shape[:depth]]))
    rows = b.rng.sample(cells, b.rng.randint(1, min(3, len(cells))))
    updates = b.operand((len(rows), *shape[depth:]))
    b.node(name, [x, b.const(np.array(rows, np.int64)), updates])


@op("Squeeze")
def squeeze(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1, where=lambda s: 1 in s)
    ones = [a for a, d in enumerate(b.shape(x)) if d == 1]
    axes = sorted(b.rng.sample(ones, b.rng.randint(1, len(ones))))
    extra, attrs = b.axes_operand(name, axes, 13)
    b.node(name, [x, *extra], **attrs)


@op("Unsqueeze")
def unsqueeze(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), max_rank=4)
    out_rank = len(b.shape(x)) + b.rng.randint(1, 2)
    axes = sorted(b.rng.sample(range(out_rank), out_rank - len(b.shape(x))))
    extra, attrs = b.axes_operand(name, axes, 13)
    b.node(name, [x, *extra], **attrs)


@op("Pad")
def pad(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    shape = b.shape(x)
    mode = b.rng.choice(["constant", "reflect", "edge"])
    limit = (lambda d: d - 1) if mode == "reflect" else (lambda d: 2)
    pads = [b.rng.randint(0, min(2, limit(d))) for d in shape * 2]
    inputs = [x, b.const(np.array(pads, np.int64))]
    if mode == "constant" and b.rng.random() < 0.5:
        inputs.append(b.const(np.float32(b.rng.choice([0.0, 1.5, -3.0]))))
    b.node(name, inputs, mode=mode)


@op("Tile")
def tile(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=1)
    reps = [b.rng.choice([1, 1, 2, 3]) for _ in b.shape(x)]
    b.node(name, [x, b.const(np.array(reps, np.int64))])


@op("Expand")
def expand(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), max_rank=4)
    shape = [d if d != 1 or b.rng.random() < 0.5 else b.rng.randint(2, 3) for d in b.shape(x)]
    shape = [b.rng.randint(1, 3) for _ in range(b.rng.randint(0, 1))] + shape
    if shape and b.rng.random() < 0.2:
        shape[b.rng.randrange(len(shape))] = 1  # broadcast back to the input's dim
    b.node(name, [x, b.const(np.array(shape, np.int64))])


@op("Shape", "Size")
def shape_of(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES, BOOL))
    (s,) = b.node(name, [x], keep=False)
    # use it as a tensor: a float result others can read
    (f,) = b.node("Cast", [s], to=TensorProto.FLOAT)
    b.node("Add", [f, b.const(np.float32(0.0))])


@op("ConstantOfShape")
def constant_of_shape(b: GraphBuilder, name: str) -> None:
    shape = [b.rng.randint(1, 4) for _ in range(b.rng.randint(1, 3))]
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [b.rng.choice([0.0, 1.5])])
    (c,) = b.node(name, [b.const(np.array(shape, np.int64))], value=value, keep=False)
    x = b.pick(where=lambda s: len(s) <= len(shape))
    b.node("Add", [c, x]) if _broadcasts(b.shape(x), shape) else b.node("Identity", [c])


def _broadcasts(a: tuple[int, ...], b: Sequence[int]) -> bool:
    return all(x == y or x == 1 for x, y in zip(reversed(a), reversed(list(b))))


@op("Range")
def range_(b: GraphBuilder, name: str) -> None:
    start, delta = b.rng.choice([(0.0, 1.0), (2.5, -0.5), (-1.0, 0.25)])
    limit = start + delta * b.rng.randint(1, 8)
    inputs = [b.const(np.float32(v)) for v in (start, limit, delta)]
    b.node(name, inputs)


@op("EyeLike")
def eye_like(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=2, max_rank=2)
    b.node(name, [x], k=b.rng.randint(-2, 2))


@op("Trilu", since=14)
def trilu(b: GraphBuilder, name: str) -> None:
    x = b.pick((FLOAT, *INT_DTYPES), min_rank=2)
    inputs = [x] + ([b.const(np.int64(b.rng.randint(-2, 2)))] if b.rng.random() < 0.6 else [])
    b.node(name, inputs, upper=b.rng.choice([0, 1]))


@op("OneHot")
def one_hot(b: GraphBuilder, name: str) -> None:
    depth = b.rng.randint(2, 5)
    indices = b.const(b.array((b.rng.randint(1, 4),), np.dtype("int64"), -depth, depth - 1))
    values = b.const(np.array([b.rng.choice([0.0, -1.0]), 1.0], np.float32))
    b.node(
        name, [indices, b.const(np.array([depth], np.int64)), values], axis=b.rng.choice([-1, 0])
    )


@op("ReverseSequence")
def reverse_sequence(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=2)
    batch_axis = b.rng.choice([0, 1])
    time_axis = 1 - batch_axis
    shape = b.shape(x)
    lens = b.array((shape[batch_axis],), np.dtype("int64"), 1, shape[time_axis])
    b.node(name, [x, b.const(lens)], batch_axis=batch_axis, time_axis=time_axis)


@op("CenterCropPad", since=18)
def center_crop_pad(b: GraphBuilder, name: str) -> None:
    x = b.pick(min_rank=1)
    shape = b.shape(x)
    axes = b.axes(len(shape))
    sizes = [max(1, shape[a] + b.rng.randint(-2, 2)) for a in axes]
    b.node(name, [x, b.const(np.array(sizes, np.int64))], axes=axes)


@op("Constant")
def constant(b: GraphBuilder, name: str) -> None:
    x = b.pick()
    value = numpy_helper.from_array(b.array(b.broadcastable(b.shape(x)), FLOAT), "value")
    (c,) = b.node(name, [], value=value, keep=False)
    b.node("Add", [x, c])


# --- quantized ops (uint8/int8 tensors; scales and zero points are constants)

UINT8, INT8 = np.dtype("uint8"), np.dtype("int8")


def _quantized(b: GraphBuilder, dtype: np.dtype, shape: Sequence[int] | None = None) -> str:
    """A quantized operand: ``QuantizeLinear`` of a float value (or a new input)."""
    if shape is None and b.rng.random() < 0.7:
        try:
            x = b.pick()
            scale = b.const(np.float32(b.rng.choice([0.01, 0.02, 0.05])))
            zp = b.const(
                np.array(b.rng.randint(0, 255) if dtype == UINT8 else b.rng.randint(-20, 20), dtype)
            )
            return b.node("QuantizeLinear", [x, scale, zp])[0]
        except Skip:
            pass
    lo, hi = (0, 255) if dtype == UINT8 else (-128, 127)
    return b.operand(shape or [b.rng.randint(1, 4) for _ in range(2)], dtype, low=lo, high=hi)


def _zero_point(b: GraphBuilder, dtype: np.dtype) -> str:
    return b.const(
        np.array(b.rng.randint(0, 255) if dtype == UINT8 else b.rng.randint(-20, 20), dtype)
    )


@op("QuantizeLinear", since=13)
def quantize(b: GraphBuilder, name: str) -> None:
    x = b.pick()
    dtype = b.rng.choice([UINT8, INT8])
    (q,) = b.node(
        name, [x, b.const(np.float32(b.rng.choice([0.01, 0.05, 0.3]))), _zero_point(b, dtype)]
    )
    b.node("Cast", [q], to=TensorProto.FLOAT)


@op("DequantizeLinear", since=13)
def dequantize(b: GraphBuilder, name: str) -> None:
    dtype = b.rng.choice([UINT8, INT8])
    q = _quantized(b, dtype)
    b.node(name, [q, b.const(np.float32(b.rng.choice([0.01, 0.05]))), _zero_point(b, dtype)])


@op("DynamicQuantizeLinear", since=11)
def dynamic_quantize(b: GraphBuilder, name: str) -> None:
    y, scale, zp = b.node(name, [b.pick()], outputs=3, keep=False)
    b.node("DequantizeLinear", [y, scale, zp])


@op("MatMulInteger", since=10)
def matmul_integer(b: GraphBuilder, name: str) -> None:
    dtype = b.rng.choice([UINT8, INT8])
    a = _quantized(b, dtype)
    if len(b.shape(a)) < 1:
        raise Skip
    k = b.shape(a)[-1]
    w = b.const(b.array((k, b.rng.randint(1, 5)), INT8, -128, 127))
    inputs = [a, w] + (
        [_zero_point(b, dtype), b.const(np.array(0, INT8))] if b.rng.random() < 0.5 else []
    )
    (y,) = b.node(name, inputs, keep=False)
    b.node("Cast", [y], to=TensorProto.FLOAT)


@op("QLinearMatMul", since=10)
def qlinear_matmul(b: GraphBuilder, name: str) -> None:
    dtype = UINT8 if b.rng.random() < 0.5 else INT8
    a = _quantized(b, dtype)
    if len(b.shape(a)) != 2:
        raise Skip
    k = b.shape(a)[1]
    lo, hi = (0, 255) if dtype == UINT8 else (-128, 127)
    w = b.const(b.array((k, b.rng.randint(1, 5)), dtype, lo, hi))
    f = lambda v: b.const(np.float32(v))  # noqa: E731
    (y,) = b.node(
        name,
        [
            a,
            f(0.02),
            _zero_point(b, dtype),
            w,
            f(0.01),
            _zero_point(b, dtype),
            f(0.05),
            _zero_point(b, dtype),
        ],
        keep=False,
    )
    b.node("DequantizeLinear", [y, f(0.05), b.const(np.array(0, dtype))])


@op("ConvInteger", "QLinearConv", since=10)
def conv_integer(b: GraphBuilder, name: str) -> None:
    dtype = UINT8
    x = _quantized(b, dtype)
    if len(b.shape(x)) != 4:
        x = b.operand(
            [1, b.rng.randint(1, 3), b.rng.randint(2, 5), b.rng.randint(2, 5)],
            dtype,
            low=0,
            high=255,
        )
    n, c, *spatial = b.shape(x)
    win = _window(b, tuple(spatial))
    m = b.rng.randint(1, 3)
    w = b.const(b.array((m, c, *win["kernel_shape"]), UINT8, 0, 255))
    if name == "ConvInteger":
        (y,) = b.node(name, [x, w, _zero_point(b, dtype)], keep=False, **win)
        b.node("Cast", [y], to=TensorProto.FLOAT)
        return
    f = lambda v: b.const(np.float32(v))  # noqa: E731
    inputs = [
        x,
        f(0.02),
        _zero_point(b, dtype),
        w,
        f(0.01),
        _zero_point(b, dtype),
        f(0.5),
        _zero_point(b, dtype),
    ]
    if b.rng.random() < 0.5:
        inputs.append(b.const(b.array((m,), np.dtype("int32"), -100, 100)))
    (y,) = b.node(name, inputs, keep=False, **win)
    b.node("Cast", [y], to=TensorProto.FLOAT)


# --- whole graphs

OPSETS = (13, 17, 18, 21, 23)
"""The opsets graphs import (ops newer than a graph's opset are not drawn)."""


def random_graph(
    seed: int, max_nodes: int = 8, ops: Sequence[str] | None = None
) -> tuple[onnx.ModelProto, dict[str, np.ndarray], list[str]]:
    """A random valid model, its inputs and the op types drawn, from
    ``seed`` (drawing among ``ops``, default all)."""
    rng = random.Random(seed)
    for _attempt in range(20):
        b = GraphBuilder(rng, rng.choice(OPSETS))
        for _ in range(rng.randint(1, 2)):
            rank = rng.choice([1, 2, 2, 3, 4, 4])
            b.add_input(
                [rng.randint(1, 5) for _ in range(rank)],
                rng.choice([FLOAT] * 6 + [np.dtype("int32"), np.dtype("int64"), BOOL]),
            )
        names = [n for n in sorted(ops or OPS) if SINCE[n] <= b.opset]
        drawn = []
        for _ in range(rng.randint(1, max_nodes)):
            for _try in range(8):
                op_type = rng.choice(names)
                marks = len(b.nodes), len(b.tensors)
                try:
                    OPS[op_type](b)
                    drawn.append(op_type)
                    break
                except Skip:
                    del b.nodes[marks[0] :], b.tensors[marks[1] :]
        if b.nodes:
            model = b.model()
            used = {i for node in model.graph.node for i in node.input}
            unused = [i for i in model.graph.input if i.name not in used]
            for info in unused:
                model.graph.input.remove(info)
            for init in [i for i in model.graph.initializer if i.name not in used]:
                model.graph.initializer.remove(init)
            feeds = {i.name: b.feeds[i.name] for i in model.graph.input}
            onnx.checker.check_model(model, full_check=True)
            return model, feeds, drawn
    raise RuntimeError(f"no graph from seed {seed}")
