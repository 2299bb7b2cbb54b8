"""String tensors (NUL-padded UTF-8 byte tensors, xtvm/frontend/onnx/strings.py)
through the ONNX backend, compiled, against onnxruntime: StringConcat,
StringNormalizer, Equal of strings, LabelEncoder in both directions."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx_testing import run_ort, tensor

from xtvm.frontend.onnx import strings
from xtvm.frontend.onnx.backend import XtvmBackend
from xtvm.frontend.onnx.common import OnnxImportError


def _model(op, inputs, outputs, domain="", opset=20, **attrs):
    node = helper.make_node(
        op, [i.name for i in inputs], [o.name for o in outputs], domain=domain, **attrs
    )
    graph = helper.make_graph([node], op.lower(), inputs, outputs)
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 4)] if domain else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 9
    return model


def _both(model: onnx.ModelProto, feeds: dict) -> tuple[list, list]:
    got = list(XtvmBackend.prepare(model).run(list(feeds.values())))
    return got, run_ort(model, feeds)


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        assert g.tolist() == w.tolist()


def test_encode_decode_round_trip():
    values = np.array([["", "a"], ["héllo", "的中"]], object)
    data = strings.encode(values)
    assert data.dtype == np.uint8 and data.shape == (2, 2, len("的中".encode()))
    assert strings.decode(data).tolist() == values.tolist()
    with pytest.raises(ValueError, match="NUL"):
        strings.encode(np.array(["a\0b"], object))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (["abc", "", "的"], ["", "xyz", "中中"]),
        ([["x", "yy"], ["zzz", ""]], ["-", "+"]),
    ],
)
def test_string_concat(a, b):
    a, b = np.array(a, object), np.array(b, object)
    out = np.broadcast_shapes(a.shape, b.shape)
    model = _model(
        "StringConcat",
        [tensor("a", a.shape, TensorProto.STRING), tensor("b", b.shape, TensorProto.STRING)],
        [tensor("y", out, TensorProto.STRING)],
    )
    _same(*_both(model, {"a": a, "b": b}))


@pytest.mark.parametrize(
    ("action", "sensitive", "shape"),
    [("NONE", 1, (5,)), ("LOWER", 0, (5,)), ("UPPER", 1, (1, 5)), ("UPPER", 0, (1, 5))],
)
def test_string_normalizer(action, sensitive, shape):
    x = np.array(["Stop", "go", "STOP", "Mixed Case", "stop"], object).reshape(shape)
    model = _model(
        "StringNormalizer",
        [tensor("x", shape, TensorProto.STRING)],
        [tensor("y", [1, "n"] if len(shape) == 2 else ["n"], TensorProto.STRING)],
        case_change_action=action,
        is_case_sensitive=sensitive,
        stopwords=["stop"],
        locale="C",
    )  # onnxruntime needs an installed locale
    _same(*_both(model, {"x": x}))


def test_string_normalizer_all_removed_gives_one_empty_string():
    model = _model(
        "StringNormalizer",
        [tensor("x", [2], TensorProto.STRING)],
        [tensor("y", ["n"], TensorProto.STRING)],
        stopwords=["a"],
        is_case_sensitive=1,
        locale="C",
    )
    _same(*_both(model, {"x": np.array(["a", "a"], object)}))


def test_equal_strings_broadcast():
    a = np.array([["ab", "b"], ["", "abc"]], object)
    b = np.array(["ab", "abc"], object)
    model = _model(
        "Equal",
        [tensor("a", [2, 2], TensorProto.STRING), tensor("b", [2], TensorProto.STRING)],
        [tensor("y", [2, 2], TensorProto.BOOL)],
    )
    _same(*_both(model, {"a": a, "b": b}))


def test_label_encoder_string_to_float_and_int_to_string():
    x = np.array([["a", "bb"], ["zz", ""]], object)
    model = _model(
        "LabelEncoder",
        [tensor("x", [2, 2], TensorProto.STRING)],
        [tensor("y", [2, 2], TensorProto.FLOAT)],
        domain="ai.onnx.ml",
        keys_strings=["a", "bb", ""],
        values_floats=[0.5, -2.0, 7.0],
        default_float=9.0,
    )
    _same(*_both(model, {"x": x}))
    ints = np.array([3, 1, 4, 1, 5], np.int64)
    model = _model(
        "LabelEncoder",
        [tensor("x", [5], TensorProto.INT64)],
        [tensor("y", [5], TensorProto.STRING)],
        domain="ai.onnx.ml",
        keys_int64s=[1, 4],
        values_strings=["one", "four"],
        default_string="?",
    )
    _same(*_both(model, {"x": ints}))


def test_label_encoder_key_type_mismatch_is_an_error():
    model = _model(
        "LabelEncoder",
        [tensor("x", [2], TensorProto.INT64)],
        [tensor("y", [2], TensorProto.INT64)],
        domain="ai.onnx.ml",
        keys_strings=["a"],
        values_int64s=[1],
    )
    with pytest.raises(OnnxImportError, match="the keys are string"):
        XtvmBackend.prepare(model).run([np.array([1, 2], np.int64)])


@pytest.mark.parametrize(
    ("values", "attrs"),
    [
        (["a,b,,c", ",", "", "abc"], {"delimiter": ","}),
        (["xaby", "abab", "ab"], {"delimiter": "ab"}),
        ([["a,b,c,d", "e"], ["f,g", ",,,"]], {"delimiter": ",", "maxsplit": 2}),
        (["  one\ttwo \n three ", "", "   ", "x"], {}),
        ([["a b c  ", "d"], [" e  f g ", "h i"]], {"maxsplit": 1}),
    ],
)
def test_string_split(values, attrs):
    x = np.array(values, object)
    model = _model(
        "StringSplit",
        [tensor("x", x.shape, TensorProto.STRING)],
        [tensor("y", [*x.shape, "n"], TensorProto.STRING), tensor("z", x.shape, TensorProto.INT64)],
        **attrs,
    )
    # onnx's reference (Python's str.split, as the node tests): onnxruntime
    # differs on an empty string with a delimiter (0 substrings, not 1).
    from onnx.reference import ReferenceEvaluator

    got = list(XtvmBackend.prepare(model).run([x]))
    _same(got, ReferenceEvaluator(model).run(None, {"x": x}))
    python = [
        s.split(attrs.get("delimiter") or None, attrs.get("maxsplit", -1)) for s in x.reshape(-1)
    ]
    assert got[1].reshape(-1).tolist() == [len(p) for p in python]


def test_string_split_refuses_self_overlapping_delimiter():
    model = _model(
        "StringSplit",
        [tensor("x", [1], TensorProto.STRING)],
        [tensor("y", [1, "n"], TensorProto.STRING), tensor("z", [1], TensorProto.INT64)],
        delimiter="aa",
    )
    with pytest.raises(OnnxImportError, match="overlap"):
        XtvmBackend.prepare(model).run([np.array(["aaa"], object)])


PATTERNS = [
    r"www\.[\w.-]+\.\bcom\b",
    r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)",
    r"a(b|cd)*e?",
    r"\d{2,4}-\s*x",
    r"[^a-c]+\b.",
    r"(ab)+|c{3}|\Bq",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_regex_dfa_agrees_with_python(pattern):
    import random
    import re

    from xtvm.frontend.onnx.regex import compile_dfa, full_match

    table, accept = compile_dfa(pattern)
    rng = random.Random(pattern)
    words = [
        "www.google.com",
        "www.bbc.co.uk",
        "a@gmail.com",
        " x@yahoo.com!",
        "",
        "12- x",
        "é@gmail.com",
    ]
    words += [
        "".join(rng.choice("abcde.-@ 12_xwq!é") for _ in range(rng.randint(0, 8)))
        for _ in range(500)
    ]
    for word in words:
        assert full_match(table, accept, word.encode()) == bool(
            re.fullmatch(pattern, word, re.ASCII)
        ), word


def test_regex_refuses_backreferences():
    from xtvm.frontend.onnx.regex import RegexError, compile_dfa

    with pytest.raises(RegexError, match="unsupported"):
        compile_dfa(r"(a)\1")


@pytest.mark.parametrize("pattern", PATTERNS[:2])
def test_regex_full_match(pattern):
    x = np.array(
        [
            ["www.google.com", "www.bbc.co.uk", "account@gmail.com"],
            ["not email", " me@yahoo.com ", "wwwxgoogle.com"],
        ],
        object,
    )
    model = _model(
        "RegexFullMatch",
        [tensor("x", [2, 3], TensorProto.STRING)],
        [tensor("y", [2, 3], TensorProto.BOOL)],
        pattern=pattern,
    )
    _same(*_both(model, {"x": x}))


def test_identity_passes_strings_and_numeric_ops_refuse_them():
    x = np.array([["a", "bc"], ["", "的"]], object)
    model = _model(
        "Identity",
        [tensor("x", [2, 2], TensorProto.STRING)],
        [tensor("y", [2, 2], TensorProto.STRING)],
    )
    _same(*_both(model, {"x": x}))
    model = _model(
        "Transpose",
        [tensor("x", [2, 2], TensorProto.STRING)],
        [tensor("y", [2, 2], TensorProto.STRING)],
    )
    with pytest.raises(OnnxImportError, match="is a string tensor, which this op does not take"):
        XtvmBackend.prepare(model).run([x])
