"""String tensors: how xtvm represents them, and the converters of the ops
that take them (``StringConcat``, ``StringNormalizer``, ``Equal`` of
strings, ``ai.onnx.ml.LabelEncoder``).

Representation at run time: a string tensor of shape ``S`` is a ``uint8``
tensor of shape ``S + [W]``: each string's UTF-8 bytes, padded with NUL
bytes to the width ``W`` of the longest one (at least 1), as NumPy's ``S``
dtype stores bytes. The backend (:func:`encode`, :func:`decode`) converts
at the boundary: a string graph input is fed as such a byte tensor, and
compilation specializes on its width as it does on shapes; a string graph
output comes back as a NumPy object array of ``str``. Inside, string ops
are ordinary byte-tensor computations compiled like any other op (no
callback into Python): a string's length is its count of non-NUL bytes,
equality is equality of all bytes, concatenation a gather of the two byte
rows at positions shifted by the first's length, ASCII case changes are
byte arithmetic. Consequences: a string cannot hold a NUL character, the
memory of a tensor is its count times the longest string, and case changes
(``StringNormalizer``) touch ASCII letters only.

The frontend knows which values are strings by marking them
(:func:`mark`): string graph inputs and the string results of the
converters here; ``is_string`` asks.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    ArangeOp,
    BroadcastToOp,
    CastOp,
    ClipOp,
    CompressOp,
    CompressShapeOp,
    ConcatenateOp,
    CumsumOp,
    EqualOp,
    ExpandDimsOp,
    GatherOp,
    GreaterEqualOp,
    GreaterOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalNotOp,
    LogicalOrOp,
    MultiplyOp,
    NotEqualOp,
    PadOp,
    SqueezeOp,
    StridedSliceOp,
    SubtractOp,
    SumOp,
    TakeOp,
    WhereOp,
)
from xtvm.frontend.onnx.common import OnnxImportError
from xtvm.frontend.onnx.converter import GraphScope, OnnxNode, OnnxOpConverter

_STRINGS: weakref.WeakSet[SSAValue] = weakref.WeakSet()
"""The SSA values that hold string tensors (byte tensors, module docstring)."""


def mark(value: SSAValue) -> SSAValue:
    """Records that ``value`` is a string tensor; returns it."""
    _STRINGS.add(value)
    return value


def is_string(value: SSAValue) -> bool:
    return value in _STRINGS


def encode(array: np.ndarray) -> np.ndarray:
    """A NumPy array of ``str`` (or ``bytes``) → its ``uint8`` byte tensor,
    shape ``array.shape + (W,)``. A NUL character is an error."""
    flat = [s.encode() if isinstance(s, str) else bytes(s) for s in np.asarray(array).reshape(-1)]
    if any(b"\0" in s for s in flat):
        raise ValueError("a string holds a NUL character, which xtvm's string tensors cannot")
    width = max([1, *(len(s) for s in flat)])
    out = np.zeros((len(flat), width), np.uint8)
    for k, s in enumerate(flat):
        out[k, : len(s)] = np.frombuffer(s, np.uint8)
    return out.reshape(*np.shape(array), width)


def decode(array: np.ndarray) -> np.ndarray:
    """A ``uint8`` byte tensor → the object array of ``str`` it holds."""
    rows = np.ascontiguousarray(array, np.uint8).reshape(-1, array.shape[-1])
    out = np.empty(len(rows), object)
    for k, row in enumerate(rows):
        out[k] = row.tobytes().rstrip(b"\0").decode("utf-8", errors="replace")
    return out.reshape(array.shape[:-1])


def add_string_input(scope: GraphScope, name: str, shape: Sequence[int] | None) -> None:
    """The string graph input ``name`` as a ``uint8`` argument of ``shape``
    (the strings' shape plus the byte width; :func:`encode`)."""
    if shape is None or any(d is None for d in shape) or len(shape) < 1:
        raise OnnxImportError(
            f"input '{name}' is a string tensor: pass its byte shape (the strings' shape "
            "and the longest string's UTF-8 length), as the ONNX backend does"
        )
    scope.add_input(name, TensorType(IntegerType(8, Signedness.UNSIGNED), [int(d) for d in shape]))
    mark(scope.lookup(name))


def _shape(value: SSAValue) -> tuple[int, ...]:
    ty = value.type
    assert isinstance(ty, TensorType)
    return tuple(ty.get_shape())


def _dtype(value: SSAValue) -> np.dtype:
    ty = value.type
    assert isinstance(ty, TensorType)
    return numpy_dtype(ty.get_element_type())


STRING_OPS = frozenset(
    {
        "StringConcat",
        "StringNormalizer",
        "StringSplit",
        "RegexFullMatch",
        "Equal",
        "LabelEncoder",
        "TfIdfVectorizer",
        "Identity",  # passes its input value on, still marked a string
    }
)
"""The op types whose converters know string inputs (byte tensors)."""


def check_inputs(node: OnnxNode) -> None:
    """Refuses a string input to an op that does not take strings: its
    converter would compute on the bytes as numbers."""
    if node.proto.op_type in STRING_OPS:
        return
    scope = node.scope
    for i, name in enumerate(node.proto.input):
        defined = name and scope.is_defined(name) and name not in scope.constants
        if defined and is_string(scope.lookup(name)):
            raise node.error(
                f"{node.input_label(i)} is a string tensor, which this op does not take "
                f"(string ops: {', '.join(sorted(STRING_OPS))})"
            )


def string_input(node: OnnxNode, i: int) -> SSAValue:
    """Input ``i``, which must be a string tensor."""
    value = node.input(i)
    if not is_string(value):
        raise node.error(f"{node.input_label(i)} must be a string tensor, got {_dtype(value)}")
    return value


def widen(node: OnnxNode, value: SSAValue, width: int) -> SSAValue:
    """``value`` (bytes) padded with NULs to ``width`` bytes."""
    shape = _shape(value)
    if shape[-1] >= width:
        return value
    pads = [0, 0] * (len(shape) - 1) + [0, width - shape[-1]]
    return node.emit(PadOp(value, node.const(np.array(0, np.uint8)), pads))


def lengths(node: OnnxNode, value: SSAValue) -> SSAValue:
    """The byte length of each string, int64, the strings' shape."""
    nonzero = node.emit(NotEqualOp(value, node.const(np.array(0, np.uint8))))
    return node.emit(SumOp(node.emit(CastOp(nonzero, "int64")), [len(_shape(value)) - 1]))


def equal_bytes(node: OnnxNode, a: SSAValue, b: SSAValue) -> SSAValue:
    """Where (broadcast) strings ``a`` and ``b`` are equal, bool."""
    width = max(_shape(a)[-1], _shape(b)[-1])
    a, b = widen(node, a, width), widen(node, b, width)
    differ = node.emit(CastOp(node.emit(NotEqualOp(a, b)), "int32"))
    count = node.emit(SumOp(differ, [max(len(_shape(a)), len(_shape(b))) - 1]))
    return node.emit(EqualOp(count, node.const(np.array(0, np.int32))))


def constant_strings(
    node: OnnxNode, strings: Sequence[str], width: int = 1
) -> tuple[SSAValue, int]:
    """``strings`` as a constant byte tensor ``[K, W]`` (W at least
    ``width``) and W."""
    data = encode(np.array(list(strings), object))
    if data.shape[-1] < width:
        data = np.pad(data, [(0, 0), (0, width - data.shape[-1])])
    return mark(node.const(data)), data.shape[-1]


def string_equal(node: OnnxNode) -> SSAValue:
    """``Equal`` of two string tensors (broadcasting)."""
    return equal_bytes(node, string_input(node, 0), string_input(node, 1))


class StringConcat(OnnxOpConverter):
    """``StringConcat(X, Y)``: the (broadcast) concatenation of each pair:
    position ``j`` of the result reads ``X``'s byte ``j`` while ``j <
    len(x)``, then ``Y``'s byte ``j - len(x)``, then NUL (a
    ``relay.gather`` on the two rows side by side)."""

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> SSAValue:
        a, b = string_input(node, 0), string_input(node, 1)
        (sa, wa), (sb, wb) = ((s[:-1], s[-1]) for s in (_shape(a), _shape(b)))
        batch = tuple(np.broadcast_shapes(sa, sb))
        a = a if sa == batch else node.emit(BroadcastToOp(a, [*batch, wa]))
        b = b if sb == batch else node.emit(BroadcastToOp(b, [*batch, wb]))
        width, axis = wa + wb, len(batch)
        both = node.emit(ConcatenateOp([a, b], axis))
        first = node.emit(ExpandDimsOp(lengths(node, a), axis))  # [..., 1]
        j = node.emit(ArangeOp(0, width, 1, "int64"))
        in_first = node.emit(LessOp(j, first))
        # In Y: position j - len(x) of Y, at j - len(x) + wa of `both`.
        shift = node.emit(SubtractOp(node.const(np.array(wa, np.int64)), first))
        index = node.emit(
            WhereOp(
                in_first, node.emit(BroadcastToOp(j, [*batch, width])), node.emit(AddOp(j, shift))
            )
        )
        inside = node.emit(LessOp(index, node.const(np.array(width, np.int64))))
        safe = node.emit(ClipOp(index, 0.0, float(width - 1)))
        picked = node.emit(GatherOp(both, safe, axis))
        return mark(node.emit(WhereOp(inside, picked, node.const(np.array(0, np.uint8)))))


def _ascii_case(node: OnnxNode, value: SSAValue, upper: bool) -> SSAValue:
    """ASCII letters of ``value`` (bytes) moved to upper or lower case."""
    lo, hi = (ord("a"), ord("z")) if upper else (ord("A"), ord("Z"))
    u8 = lambda v: node.const(np.array(v, np.uint8))
    letter = node.emit(
        LogicalAndOp(
            node.emit(GreaterEqualOp(value, u8(lo))), node.emit(LessEqualOp(value, u8(hi)))
        )
    )
    moved = node.emit(SubtractOp(value, u8(32)) if upper else AddOp(value, u8(32)))
    return node.emit(WhereOp(letter, moved, value))


class StringNormalizer(OnnxOpConverter):
    """``StringNormalizer(X)``: X ``[C]`` or ``[1, C]`` → the strings that
    are not ``stopwords`` (compared case-insensitively unless
    ``is_case_sensitive``), in ``case_change_action`` case (``NONE``,
    ``LOWER``, ``UPPER``; ASCII letters). Removing stopwords gives a
    run-time length (``relay.compress``, the VM); when every string is
    removed the result is one empty string, as the spec says."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        x = string_input(node, 0)
        shape = _shape(x)
        if not (len(shape) == 2 or (len(shape) == 3 and shape[0] == 1)):
            raise node.error(f"expected X of shape [C] or [1, C], got {list(shape[:-1])}")
        action = node.attr("case_change_action", "NONE")
        if action not in ("NONE", "LOWER", "UPPER"):
            raise node.unsupported_attr("case_change_action", "expected NONE, LOWER or UPPER")
        stopwords = node.attr("stopwords") or []
        sensitive = bool(node.attr("is_case_sensitive", 0))
        out = x if action == "NONE" else _ascii_case(node, x, action == "UPPER")
        if not stopwords:
            return mark(out)
        probe = x if sensitive else _ascii_case(node, x, True)
        # ASCII upper case on both sides (bytes.upper), as `_ascii_case` does.
        words = stopwords if sensitive else [w.encode().upper().decode() for w in stopwords]
        table, width = constant_strings(node, words, shape[-1])
        axis = len(shape) - 2
        probe = node.emit(ExpandDimsOp(widen(node, probe, width), axis + 1))  # [.., C, 1, W]
        hits = node.emit(CastOp(equal_bytes(node, probe, table), "int32"))  # [.., C, K]
        stop = node.emit(
            GreaterOp(node.emit(SumOp(hits, [axis + 1])), node.const(np.array(0, np.int32)))
        )
        keep = node.emit(LogicalNotOp(stop))
        # One extra empty string, kept only when nothing else is.
        none_kept = node.emit(
            EqualOp(
                node.emit(SumOp(node.emit(CastOp(keep, "int32")), [axis], keepdims=True)),
                node.const(np.array(0, np.int32)),
            )
        )
        if axis == 1:
            keep = node.emit(SqueezeOp(keep, [0]))
            none_kept = node.emit(SqueezeOp(none_kept, [0]))
        condition = node.emit(ConcatenateOp([keep, none_kept], 0))
        empty = node.const(np.zeros((*shape[:-2], 1, shape[-1]), np.uint8))
        data = node.emit(ConcatenateOp([out, empty], axis))
        size = node.emit(CompressShapeOp(data, condition, axis=axis))
        return mark(node.emit(CompressOp(data, condition, size, axis=axis)))


class RegexFullMatch(OnnxOpConverter):
    """``RegexFullMatch(X)``: whether each string matches ``pattern`` as a
    whole. The pattern, an attribute, is compiled at import time into a
    byte DFA (:mod:`~xtvm.frontend.onnx.regex`); the DFA then runs over the
    bytes in compiled code: one ``relay.take`` of the transition table per
    byte position (the NUL padding keeps the state), then one of the
    accepting states."""

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> SSAValue:
        from xtvm.frontend.onnx.regex import RegexError, compile_dfa

        x = string_input(node, 0)
        shape = _shape(x)
        pattern = node.attr("pattern")
        if pattern is None:
            raise node.error("missing attribute 'pattern'")
        try:
            table, accept = compile_dfa(pattern)
        except RegexError as e:
            raise node.unsupported_attr("pattern", str(e)) from None
        axis = len(shape) - 1
        flat = node.const(table.reshape(-1).astype(np.int64))
        state = node.const(np.zeros(shape[:-1], np.int64))  # the start state, 0
        for k in range(shape[-1]):
            byte = node.emit(
                SqueezeOp(node.emit(StridedSliceOp(x, [k], [k + 1], [1], [axis])), [axis])
            )
            at = node.emit(MultiplyOp(state, node.const(np.array(256, np.int64))))
            at = node.emit(AddOp(at, node.emit(CastOp(byte, "int64"))))
            state = node.emit(TakeOp(flat, at, axis=0, mode="clip"))
        return node.emit(TakeOp(node.const(accept), state, axis=0, mode="clip"))


_DEFAULTS = {
    "int64": ("default_int64", -1),
    "float32": ("default_float", -0.0),
    "string": ("default_string", "_Unused"),
}


def _label_table(node: OnnxNode, kind: str) -> tuple[np.ndarray, str]:
    """LabelEncoder's ``keys`` or ``values`` and their type (``string`` or a
    NumPy dtype name), from the ``*_tensor``, ``*_strings``, ``*_int64s`` or
    ``*_floats`` attribute."""
    tensor = node.attr(f"{kind}_tensor")
    if tensor is not None:
        array = np.asarray(tensor).reshape(-1)
        if array.dtype == object or array.dtype.kind in "SU":
            return np.array(
                [v.decode() if isinstance(v, bytes) else str(v) for v in array], object
            ), "string"
        return array, array.dtype.name
    for suffix, dtype in (("strings", "string"), ("int64s", "int64"), ("floats", "float32")):
        values = node.attr(f"{kind}_{suffix}")
        if values is not None:
            return (
                np.array(values, object) if dtype == "string" else np.array(values, dtype)
            ), dtype
    raise node.error(f"missing attribute '{kind}_*' (the {kind} of the mapping)")


class LabelEncoder(OnnxOpConverter):
    """``ai.onnx.ml.LabelEncoder(X)``: each element replaced by the value of
    its key, or the default. Keys and values may be strings, integers or
    floats (attribute lists or, from opset 4, tensors). Each element is
    compared with every key (``[..., K]``, all bytes for strings); as keys
    are distinct at most one matches, so the result is the sum of the
    matching values (exact: the other terms are 0), or the default where
    nothing matches; string values sum byte rows the same way."""

    @classmethod
    def _impl_v2(cls, node: OnnxNode) -> SSAValue:
        keys, key_type = _label_table(node, "keys")
        values, value_type = _label_table(node, "values")
        if len(keys) != len(values) or len(keys) == 0:
            raise node.error(
                f"expected as many keys as values (at least one), got {len(keys)} and {len(values)}"
            )
        x = node.input(0)
        if (key_type == "string") != is_string(x):
            raise node.error(
                f"the keys are {key_type} but {node.input_label(0)} is "
                f"{'string' if is_string(x) else _dtype(x)}"
            )
        default = node.attr("default_tensor")
        if default is not None:
            default = np.asarray(default).reshape(-1)[0]
            if isinstance(default, bytes):
                default = default.decode()
        else:
            attr, fallback = _DEFAULTS.get(value_type, ("", 0))
            default = node.attr(attr, fallback) if attr else fallback
        if key_type == "string":
            table, width = constant_strings(node, [str(k) for k in keys], _shape(x)[-1])
            probe = node.emit(ExpandDimsOp(widen(node, x, width), len(_shape(x)) - 1))
            match = equal_bytes(node, probe, table)  # [..., K]
        else:
            table = node.const(keys.astype(_dtype(x)))
            match = node.emit(EqualOp(node.emit(ExpandDimsOp(x, len(_shape(x)))), table))
        axis = len(_shape(match)) - 1
        hit = node.emit(
            GreaterOp(
                node.emit(SumOp(node.emit(CastOp(match, "int32")), [axis])),
                node.const(np.array(0, np.int32)),
            )
        )
        if value_type == "string":
            rows, width = constant_strings(node, [str(v) for v in values])
            fallback, _ = constant_strings(node, [str(default)], width)
            rows = widen(node, rows, _shape(fallback)[-1])
            wide = node.emit(CastOp(rows, "int32"))  # [K, W]
            chosen = node.emit(
                WhereOp(
                    node.emit(ExpandDimsOp(match, axis + 1)),
                    wide,
                    node.const(np.array(0, np.int32)),
                )
            )
            summed = node.emit(CastOp(node.emit(SumOp(chosen, [axis])), "uint8"))  # [..., W]
            out = node.emit(
                WhereOp(
                    node.emit(ExpandDimsOp(hit, axis)), summed, node.emit(SqueezeOp(fallback, [0]))
                )
            )
            return mark(out)
        dtype = np.dtype(value_type)
        chosen = node.emit(
            WhereOp(match, node.const(values.astype(dtype)), node.const(np.array(0, dtype)))
        )
        summed = node.emit(SumOp(chosen, [axis]))
        return node.emit(WhereOp(hit, summed, node.const(np.array(default, dtype))))


_WHITESPACE = (9, 10, 11, 12, 13, 32)
"""The bytes ``StringSplit`` splits on without a delimiter (ASCII whitespace)."""


class StringSplit(OnnxOpConverter):
    """``StringSplit(X)`` → ``Y`` (the substrings, padded with empty strings
    to the largest count) and ``Z`` (each count, int64), as Python's
    ``str.split(delimiter, maxsplit)``; without a delimiter, on runs of
    ASCII whitespace, leading and trailing whitespace dropped.

    On bytes: the delimiter's start positions (all its bytes equal; a
    delimiter that can overlap itself is refused), limited to the first
    ``maxsplit``; the ``s``-th substring starts after the ``s``-th
    delimiter and ends at the next (without a delimiter: token starts and
    ends, where a byte and its neighbour differ in being whitespace). Each
    substring is gathered into a ``[..., P, W]`` tensor, ``P`` the most
    substrings ``W`` bytes can hold, and ``relay.compress`` keeps the first
    ``max(Z)`` of the ``P`` (a run-time length: the VM)."""

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> list[SSAValue]:
        x = string_input(node, 0)
        shape = _shape(x)
        batch, width, axis = shape[:-1], shape[-1], len(shape) - 1
        delimiter = (node.attr("delimiter") or "").encode()
        maxsplit = node.attr("maxsplit")
        if maxsplit is not None and maxsplit < 0:
            maxsplit = None
        length = lengths(node, x)  # [...]
        i64 = lambda v: node.const(np.array(v, np.int64))
        position = node.emit(ArangeOp(0, width, 1, "int64"))  # [W]
        if delimiter:
            size = len(delimiter)
            if any(delimiter[:k] == delimiter[-k:] for k in range(1, size)):
                raise node.unsupported_attr(
                    "delimiter", "a delimiter whose start can overlap its end is not supported"
                )
            starts = cls._matches(node, x, delimiter)  # bool [..., W]
            starts, count = cls._limit(node, starts, axis, maxsplit)
            cuts = count  # delimiters used
            count = node.emit(AddOp(cuts, i64(1)))
            most = width // size + 1 if maxsplit is None else min(maxsplit, width // size) + 1
            # s-th substring: from the end of delimiter s (none for s = 0) to
            # the start of delimiter s + 1, or the string's end.
            found = cls._nth_positions(node, starts, axis, most)  # [..., most]: delimiter s+1
            begin = node.emit(
                ConcatenateOp(
                    [
                        node.emit(BroadcastToOp(i64(0), [*batch, 1])),
                        node.emit(
                            StridedSliceOp(
                                node.emit(AddOp(found, i64(size))), [0], [most - 1], [1], [axis]
                            )
                        ),
                    ],
                    axis,
                )
            )
            s = node.emit(ArangeOp(0, most, 1, "int64"))
            last = node.emit(GreaterEqualOp(s, node.emit(ExpandDimsOp(cuts, axis))))
            end = node.emit(WhereOp(last, node.emit(ExpandDimsOp(length, axis)), found))
        else:
            byte = x
            space = None
            for w in _WHITESPACE:
                eq = node.emit(EqualOp(byte, node.const(np.array(w, np.uint8))))
                space = eq if space is None else node.emit(LogicalOrOp(space, eq))
            nul = node.emit(EqualOp(byte, node.const(np.array(0, np.uint8))))
            word = node.emit(LogicalNotOp(node.emit(LogicalOrOp(space, nul))))  # [..., W]
            false = node.const(np.zeros((*batch, 1), bool))
            before = node.emit(
                ConcatenateOp(
                    [false, node.emit(StridedSliceOp(word, [0], [width - 1], [1], [axis]))], axis
                )
            )
            after = node.emit(
                ConcatenateOp(
                    [node.emit(StridedSliceOp(word, [1], [width], [1], [axis])), false], axis
                )
            )
            first = node.emit(LogicalAndOp(word, node.emit(LogicalNotOp(before))))
            final = node.emit(LogicalAndOp(word, node.emit(LogicalNotOp(after))))
            most = (width + 1) // 2 if maxsplit is None else min(maxsplit + 1, (width + 1) // 2)
            tokens = node.emit(SumOp(node.emit(CastOp(first, "int64")), [axis]))
            limited, count = cls._limit(
                node, first, axis, None if maxsplit is None else maxsplit + 1
            )
            begin = cls._nth_positions(node, limited, axis, most)
            end = node.emit(AddOp(cls._nth_positions(node, final, axis, most), i64(1)))
            if maxsplit is not None:
                # The last substring of a limited split runs to the string's end.
                s = node.emit(ArangeOp(0, most, 1, "int64"))
                is_last = node.emit(
                    EqualOp(s, node.emit(ExpandDimsOp(node.emit(SubtractOp(count, i64(1))), axis)))
                )
                cut = node.emit(ExpandDimsOp(node.emit(GreaterOp(tokens, count)), axis))
                end = node.emit(
                    WhereOp(
                        node.emit(LogicalAndOp(is_last, cut)),
                        node.emit(ExpandDimsOp(length, axis)),
                        end,
                    )
                )
        # Gather substring s's bytes: x[begin[s] + p] while below end[s].
        s = node.emit(ArangeOp(0, most, 1, "int64"))
        used = node.emit(LessOp(s, node.emit(ExpandDimsOp(count, axis))))  # [..., most]
        index = node.emit(
            AddOp(node.emit(ExpandDimsOp(begin, axis + 1)), position)
        )  # [..., most, W]
        inside = node.emit(
            LogicalAndOp(
                node.emit(LessOp(index, node.emit(ExpandDimsOp(end, axis + 1)))),
                node.emit(ExpandDimsOp(used, axis + 1)),
            )
        )
        rows = node.emit(BroadcastToOp(node.emit(ExpandDimsOp(x, axis)), [*batch, most, width]))
        picked = node.emit(
            GatherOp(rows, node.emit(ClipOp(index, 0.0, float(width - 1))), axis + 1)
        )
        parts = node.emit(WhereOp(inside, picked, node.const(np.array(0, np.uint8))))
        # Keep the first max(count) substrings: k where some count exceeds k.
        over = node.emit(
            CastOp(node.emit(GreaterOp(node.emit(ExpandDimsOp(count, axis)), s)), "int64")
        )
        if axis:  # over every string: [P]
            over = node.emit(SumOp(over, list(range(axis))))
        keep = node.emit(GreaterOp(over, i64(0)))
        size = node.emit(CompressShapeOp(parts, keep, axis=axis))
        return [mark(node.emit(CompressOp(parts, keep, size, axis=axis))), count]

    @staticmethod
    def _matches(node: OnnxNode, x: SSAValue, delimiter: bytes) -> SSAValue:
        """Where ``delimiter`` starts in each string, bool ``[..., W]``."""
        shape = _shape(x)
        width, axis, size = shape[-1], len(shape) - 1, len(delimiter)
        if size > width:
            return node.const(np.zeros(shape, bool))
        starts = width - size + 1
        match = None
        for k, b in enumerate(delimiter):
            window = node.emit(StridedSliceOp(x, [k], [k + starts], [1], [axis]))
            eq = node.emit(EqualOp(window, node.const(np.array(b, np.uint8))))
            match = eq if match is None else node.emit(LogicalAndOp(match, eq))
        assert match is not None
        if starts == width:
            return match
        tail = node.const(np.zeros((*shape[:-1], width - starts), bool))
        return node.emit(ConcatenateOp([match, tail], axis))

    @staticmethod
    def _limit(
        node: OnnxNode, flags: SSAValue, axis: int, limit: int | None
    ) -> tuple[SSAValue, SSAValue]:
        """``flags`` keeping only the first ``limit`` (all when None), and
        how many are kept (int64, one axis less)."""
        wide = node.emit(CastOp(flags, "int64"))
        if limit is not None:
            seen = node.emit(CumsumOp(wide, axis))
            within = node.emit(LessEqualOp(seen, node.const(np.array(limit, np.int64))))
            flags = node.emit(LogicalAndOp(flags, within))
            wide = node.emit(CastOp(flags, "int64"))
        return flags, node.emit(SumOp(wide, [axis]))

    @staticmethod
    def _nth_positions(node: OnnxNode, flags: SSAValue, axis: int, count: int) -> SSAValue:
        """The position of the ``s + 1``-th set flag, for ``s < count``
        (int64 ``[..., count]``; 0 where there is none)."""
        width = _shape(flags)[-1]
        rank = node.emit(CumsumOp(node.emit(CastOp(flags, "int64")), axis))  # [..., W]
        nth = node.const(np.arange(1, count + 1, dtype=np.int64).reshape(count, 1))  # [count, 1]
        hit = node.emit(
            LogicalAndOp(
                node.emit(EqualOp(node.emit(ExpandDimsOp(rank, axis)), nth)),
                node.emit(ExpandDimsOp(flags, axis)),
            )
        )  # [..., count, W]
        where = node.emit(
            WhereOp(
                hit, node.emit(ArangeOp(0, width, 1, "int64")), node.const(np.array(0, np.int64))
            )
        )
        return node.emit(SumOp(where, [axis + 1]))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "StringConcat": StringConcat,
    "StringNormalizer": StringNormalizer,
    "StringSplit": StringSplit,
    "RegexFullMatch": RegexFullMatch,
}
ML_CONVERTERS: dict[str, type[OnnxOpConverter]] = {"LabelEncoder": LabelEncoder}
