"""``dnnl``: oneDNN (TVM's DNNL codegen) through its C API.

Offloads, for float32 tensors with static shapes: conv2d (NCHW, any groups,
strides, dilation and padding) alone or as a composite with bias, a residual
sum and relu (oneDNN post-ops), dense and 2-d matmul (inner product, with
the same composites), max/avg pools and their global forms, inference batch
norm, relu, add (the second operand broadcast) and concatenate.

Each partitioned function becomes C source that includes
``dnnl_runtime.c`` (primitives created on first call, run on xtvm's plain
row-major buffers) and calls one helper per op; it is compiled by the
system C compiler and linked with ``-ldnnl``.

oneDNN comes from Debian's ``libdnnl-dev`` (oneDNN 2.6: ``dnnl.h`` and
``libdnnl.so``), found in ``$DNNL_ROOT`` (``include/``, ``lib/``) when set,
else in the system's include and library directories. The ``onednn`` wheel
ships ``libdnnl.so`` without headers, so C source cannot be compiled
against it (docs/byoc.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from itertools import count
from pathlib import Path

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from xtvm.byoc.c_source import Buffers, c_function, is_f32_static, numel, shape_of
from xtvm.byoc.patterns import channel_bias, composite, same_shape
from xtvm.byoc.registry import CodegenError, ExternalCodegen, ExternalSource
from xtvm.dialects.relay import AddOp, BiasAddOp, Conv2dOp, DenseOp, MatmulOp, ReluOp
from xtvm.rewrite import Pat
from xtvm.transform import PassContext

RUNTIME = Path(__file__).with_name("dnnl_runtime.c")
"""The C helpers every generated source includes."""

SYSTEM_INCLUDE_DIRS = ("/usr/include", "/usr/local/include")
SYSTEM_LIBRARY_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib", "/usr/local/lib", "/usr/lib64")


def find_onednn() -> tuple[str, str]:
    """The include and library directories of oneDNN (``dnnl.h``,
    ``libdnnl.so``): under ``$DNNL_ROOT`` when set, else the system's. A
    missing one is a :class:`CodegenError` saying how to install it."""
    root = os.environ.get("DNNL_ROOT")
    if root:
        includes, libs = (f"{root}/include",), (f"{root}/lib", f"{root}/lib64")
        where = f"DNNL_ROOT={root}"
    else:
        includes, libs = SYSTEM_INCLUDE_DIRS, SYSTEM_LIBRARY_DIRS
        where = "the system include and library directories"
    include = next((d for d in includes if Path(d, "dnnl.h").is_file()), None)
    lib = next((d for d in libs if Path(d, "libdnnl.so").exists()), None)
    if include is None or lib is None:
        missing = " and ".join(
            m for m, found in (("dnnl.h", include), ("libdnnl.so", lib)) if found is None
        )
        raise CodegenError(
            f"oneDNN is missing: no {missing} in {where}; install it (Debian/Ubuntu: "
            "apt-get install libdnnl-dev) or set DNNL_ROOT to a oneDNN 2.x install "
            "with include/dnnl.h and lib/libdnnl.so"
        )
    return include, lib


# -- composite patterns (biggest first) -------------------------------------------


def _bias_variants(inner: Pat, anchor: str) -> list[tuple[Pat, list]]:
    """``inner`` plus a per-channel bias: a bias_add along axis 1 or an add
    of a ``[C, 1, 1]``-shaped value."""
    return [
        (
            Pat(BiasAddOp, inner, "bias", name="bias_op"),
            [lambda bias_op: bias_op.attrs["axis"] == 1],
        ),
        (Pat(AddOp, inner, "bias", name="bias_op"), [channel_bias("bias", anchor)]),
    ]


def _anchored(prefix: str, anchor_class: type[Operation]) -> list:
    """The composites of one anchor op (conv2d, dense or matmul)."""
    rules = []

    def anchor() -> Pat:
        return Pat(anchor_class, "x", "w", name="anchor")

    for kind, with_sum in (("bias_sum_relu", True), ("bias_sum", True)):
        for biased, when in _bias_variants(anchor(), "anchor"):
            summed = Pat(AddOp, biased, "addend", name="sum_op", commutative=True)
            pattern = Pat(ReluOp, summed) if kind.endswith("relu") else summed
            rules.append(
                composite(
                    f"dnnl.{prefix}_{kind}",
                    pattern,
                    when=[*when, same_shape("addend", "sum_op")],
                )
            )
    for kind in ("bias_relu", "bias"):
        for biased, when in _bias_variants(anchor(), "anchor"):
            pattern = Pat(ReluOp, biased) if kind.endswith("relu") else biased
            rules.append(composite(f"dnnl.{prefix}_{kind}", pattern, when=when))
    rules.append(composite(f"dnnl.{prefix}_relu", Pat(ReluOp, anchor())))
    return rules


PATTERNS = [
    *_anchored("conv2d", Conv2dOp),
    *_anchored("dense", DenseOp),
    *_anchored("matmul", MatmulOp),
]


# -- predicates ----------------------------------------------------------------------


def _rank(value: SSAValue) -> int:
    return len(shape_of(value))


def _conv2d_ok(op: Operation) -> bool:
    return is_f32_static(op) and _rank(op.operands[0]) == 4


def _dense_ok(op: Operation) -> bool:
    return is_f32_static(op) and _rank(op.operands[0]) == 2


def _matmul_ok(op: Operation) -> bool:
    return (
        is_f32_static(op)
        and _rank(op.operands[0]) == 2
        and _rank(op.operands[1]) == 2
        and not op.attrs["transpose_a"]
    )


def _pool_ok(op: Operation) -> bool:
    """oneDNN's output size is the floor one: ``ceil_mode`` is rejected."""
    return is_f32_static(op) and _rank(op.operands[0]) == 4 and not op.attrs["ceil_mode"]


def _add_ok(op: Operation) -> bool:
    lhs, rhs, out = op.operands[0], op.operands[1], op.results[0]
    return (
        is_f32_static(op)
        and shape_of(lhs) == shape_of(out)
        and 1 <= _rank(out) <= 5
        and _rank(rhs) <= _rank(out)
    )


def _batch_norm_ok(op: Operation) -> bool:
    a = op.attrs
    rank = _rank(op.operands[0])
    return (
        is_f32_static(op)
        and 2 <= rank <= 5
        and a["axis"] % rank == 1
        and a["center"]
        and a["scale"]
    )


def _concat_ok(op: Operation) -> bool:
    return is_f32_static(op) and 1 <= _rank(op.results[0]) <= 5 and len(op.operands) <= 64


def _composite_ok(op: Operation) -> bool:
    return is_f32_static(op)


PREDICATES = {
    "relay.nn.conv2d": _conv2d_ok,
    "relay.nn.dense": _dense_ok,
    "relay.nn.matmul": _matmul_ok,
    "relay.nn.max_pool2d": _pool_ok,
    "relay.nn.avg_pool2d": _pool_ok,
    "relay.nn.global_max_pool2d": lambda op: is_f32_static(op) and _rank(op.operands[0]) == 4,
    "relay.nn.global_avg_pool2d": lambda op: is_f32_static(op) and _rank(op.operands[0]) == 4,
    "relay.nn.batch_norm": _batch_norm_ok,
    "relay.nn.relu": is_f32_static,
    "relay.add": _add_ok,
    "relay.concatenate": _concat_ok,
    **{rule.name: _composite_ok for rule in PATTERNS},
}


# -- C emission -----------------------------------------------------------------------


BLOCKED_LAYOUTS_CONFIG = "relay.ext.dnnl.blocked_layouts"
"""PassContext config: run convolutions in the layouts oneDNN prefers
(``xd_conv2d_blocked``: activations reordered on each call, weights once)
instead of on xtvm's plain layouts. Faster, with a different summation
order; off by default (docs/byoc.md)."""


class _Emitters:
    """One static primitive state per call site; the C of each op."""

    def __init__(self, blocked: bool = False) -> None:
        self.prims: list[str] = []
        self.blocked = blocked
        self._ids = count()

    def prim(self, kind: str = "xd_prim") -> str:
        """A new call site's state (a static ``kind``), as a pointer."""
        name = f"xd_k{next(self._ids)}"
        self.prims.append(f"static {kind} {name};")
        return f"&{name}"

    @staticmethod
    def _call(call: str) -> str:
        return f"  if ({call} != 0) return 1;"

    def conv2d(
        self, conv: Operation, buf: Buffers, out: str, bias: str, addend: str | None, relu: bool
    ) -> str:
        """conv2d with post-ops; ``addend`` (a buffer, or None) is a residual sum."""
        n, c, h, w = shape_of(conv.operands[0])
        o, _, kh, kw = shape_of(conv.operands[1])
        _, _, oh, ow = shape_of(conv.results[0])
        a = conv.attrs
        (sh, sw), (dh, dw), pad = a["strides"], a["dilation"], a["padding"]
        args = [n, c, h, w, o, kh, kw, oh, ow, a["groups"], sh, sw, dh, dw, *pad]
        dims = ", ".join(f"{v}L" for v in args)
        x, wt = buf[conv.operands[0]], buf[conv.operands[1]]
        if self.blocked:
            return self._call(
                f"xd_conv2d_blocked({self.prim('xd_conv')}, {x}, {wt}, {bias}, "
                f"{addend or 'NULL'}, {out}, {dims}, {int(relu)})"
            )
        copy = ""
        if addend is not None:  # the sum post-op adds to what the destination holds
            copy = f"  memcpy({out}, {addend}, {numel(conv.results[0]) * 4});\n"
        return copy + self._call(
            f"xd_conv2d({self.prim()}, {x}, {wt}, {bias}, {out}, {dims}, "
            f"{int(addend is not None)}, {int(relu)})"
        )

    def dense(
        self, op: Operation, buf: Buffers, out: str, bias: str, sum_: bool, relu: bool
    ) -> str:
        x, w = op.operands[0], op.operands[1]
        m, k = shape_of(x)
        n = shape_of(op.results[0])[-1]
        w_nk = op.name == "relay.nn.dense" or bool(op.attrs.get("transpose_b"))
        return self._call(
            f"xd_dense({self.prim()}, {buf[x]}, {buf[w]}, {bias}, {out}, {m}L, {k}L, {n}L, "
            f"{int(w_nk)}, {int(sum_)}, {int(relu)})"
        )

    def anchor(self, op: Operation, buf: Buffers) -> str:
        out = buf[op.results[0]]
        if op.name == "relay.nn.conv2d":
            return self.conv2d(op, buf, out, "NULL", None, False)
        return self.dense(op, buf, out, "NULL", False, False)

    def composite(self, call: Operation, callee: func.FuncOp, buf: Buffers) -> str:
        """A composite: its anchor (conv2d, dense, matmul) with the ops after
        it as oneDNN post-ops: a per-channel bias (bias_add, or an add of a
        value of another shape), a residual sum (an add of the result's
        shape: the destination holds the addend first) and relu."""
        block = callee.body.block
        inner = Buffers({arg: buf[value] for arg, value in zip(block.args, call.operands)})
        anchor, *rest = [op for op in block.ops if not isinstance(op, func.ReturnOp)]
        result = anchor.results[0]
        bias, addend, relu = "NULL", None, False
        for op in rest:
            other = op.operands[1] if len(op.operands) > 1 else None
            if isinstance(op, AddOp) and other is result:  # the residual came first
                other = op.operands[0]
            if isinstance(op, BiasAddOp) or (
                isinstance(op, AddOp) and shape_of(other) != shape_of(op.results[0])
            ):
                bias = inner[other]
            elif isinstance(op, AddOp):
                addend = inner[other]
            elif isinstance(op, ReluOp):
                relu = True
            else:
                raise CodegenError(
                    f"composite {callee.sym_name.data}: '{op.name}' is no post-op"
                )
            result = op.results[0]
        out = buf[call.results[0]]
        if anchor.name == "relay.nn.conv2d":
            return self.conv2d(anchor, inner, out, bias, addend, relu)
        copy = ""
        if addend is not None:  # the sum post-op adds to what the destination holds
            copy = f"  memcpy({out}, {addend}, {numel(call.results[0]) * 4});\n"
        return copy + self.dense(anchor, inner, out, bias, addend is not None, relu)

    def pool(self, op: Operation, buf: Buffers) -> str:
        n, c, h, w = shape_of(op.operands[0])
        _, _, oh, ow = shape_of(op.results[0])
        if op.name.startswith("relay.nn.global"):
            kh, kw, sh, sw, dh, dw, pad = h, w, 1, 1, 1, 1, (0, 0, 0, 0)
            avg_pad = True
        else:
            a = op.attrs
            (kh, kw), (sh, sw), (dh, dw), pad = (
                a["pool_size"], a["strides"], a["dilation"], a["padding"]
            )
            avg_pad = bool(a.get("count_include_pad", False))
        if "max" in op.name:
            alg = "dnnl_pooling_max"
        else:
            alg = "dnnl_pooling_avg_" + ("include_padding" if avg_pad else "exclude_padding")
        dims = ", ".join(f"{v}L" for v in (n, c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, *pad))
        return self._call(
            f"xd_pool2d({self.prim()}, {buf[op.operands[0]]}, {buf[op.results[0]]}, {alg}, {dims})"
        )

    def batch_norm(self, op: Operation, buf: Buffers) -> str:
        data, gamma, beta, mean, var = op.operands
        shape = shape_of(data)
        dims = ", ".join(f"{v}L" for v in shape)
        name = f"xd_dims{next(self._ids)}"
        return (
            f"  {{ static const long {name}[] = {{{dims}}};\n"
            + self._call(
                f"xd_batch_norm({self.prim()}, {buf[data]}, {buf[gamma]}, {buf[beta]}, "
                f"{buf[mean]}, {buf[var]}, {buf[op.results[0]]}, {len(shape)}, {name}, "
                f"{float(op.attrs['epsilon'])!r}f)"
            )
            + " }"
        )

    def relu(self, op: Operation, buf: Buffers) -> str:
        return self._call(
            f"xd_relu({self.prim()}, {buf[op.operands[0]]}, {buf[op.results[0]]}, "
            f"{numel(op.results[0])}L)"
        )

    def add(self, op: Operation, buf: Buffers) -> str:
        lhs, rhs = op.operands
        out = shape_of(op.results[0])
        rdims = (1,) * (len(out) - _rank(rhs)) + shape_of(rhs)
        i = next(self._ids)
        return (
            f"  {{ static const long xd_a{i}[] = {{{', '.join(f'{v}L' for v in out)}}};\n"
            f"    static const long xd_b{i}[] = {{{', '.join(f'{v}L' for v in rdims)}}};\n"
            + self._call(
                f"xd_add({self.prim()}, {buf[lhs]}, {buf[rhs]}, {buf[op.results[0]]}, "
                f"{len(out)}, xd_a{i}, xd_b{i})"
            )
            + " }"
        )

    def concatenate(self, op: Operation, buf: Buffers) -> str:
        shapes = [shape_of(v) for v in (*op.operands, op.results[0])]
        rank = len(shapes[-1])
        axis = op.attrs["axis"] % rank
        i = next(self._ids)
        dims = ", ".join(f"{v}L" for s in shapes for v in s)
        srcs = ", ".join(buf[v] for v in op.operands)
        return (
            f"  {{ static const long xd_d{i}[] = {{{dims}}};\n"
            f"    float* const xd_s{i}[] = {{{srcs}}};\n"
            + self._call(
                f"xd_concat({self.prim()}, xd_s{i}, {buf[op.results[0]]}, {len(op.operands)}, "
                f"{rank}, xd_d{i}, {axis})"
            )
            + " }"
        )

    def table(self) -> dict:
        return {
            "relay.nn.conv2d": self.anchor,
            "relay.nn.dense": self.anchor,
            "relay.nn.matmul": self.anchor,
            "relay.nn.max_pool2d": self.pool,
            "relay.nn.avg_pool2d": self.pool,
            "relay.nn.global_max_pool2d": self.pool,
            "relay.nn.global_avg_pool2d": self.pool,
            "relay.nn.batch_norm": self.batch_norm,
            "relay.nn.relu": self.relu,
            "relay.add": self.add,
            "relay.concatenate": self.concatenate,
        }


def generate(function: func.FuncOp, composites: Mapping[str, func.FuncOp]) -> ExternalSource:
    """C source of one partitioned function (see the module docstring)."""
    include, lib = find_onednn()
    emitters = _Emitters(bool(PassContext.current().config.get(BLOCKED_LAYOUTS_CONFIG, False)))
    body = c_function(
        function, function.sym_name.data, emitters.table(), emitters.composite, composites
    )
    body = body.replace(") {\n", ") {\n  if (xd_init() != 0) return 1;\n", 1)
    source = "\n".join(
        [RUNTIME.read_text(encoding="utf-8"), "", *emitters.prims, "", body, ""]
    )
    return ExternalSource(source, (include,), (lib,), ("dnnl",))


CODEGEN = ExternalCodegen("dnnl", PREDICATES, generate, PATTERNS)
