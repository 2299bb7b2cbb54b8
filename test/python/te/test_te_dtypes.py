"""create_prim_func over every dtype: unsigned buffers and constants, float
remainders through libm's fmod, bit operations, branch-free selects and the
float classifications (the IR shape; the values are checked in
test/python/topi/test_topi_elemwise.py)."""

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xtvm import te
from xtvm.dialects import tir
from xtvm.dtypes import dtype_name, element_type
from xtvm.te import dtype as te_dtype


def lower(args: list[te.Tensor]) -> tir.PrimFuncOp:
    func = te.create_prim_func(args, "f")
    ModuleOp([func]).verify()
    return func


def ops_of(func: Operation, cls: type[Operation]) -> list[Operation]:
    return [op for op in func.walk() if isinstance(op, cls)]


def test_unsigned_buffers_keep_their_signedness() -> None:
    A = te.placeholder((4,), "uint8", name="A")
    B = te.compute((4,), lambda i: te.truncdiv(A[i], 3) + 200, name="B")
    func = lower([A, B])
    assert [str(t) for t in func.function_type.inputs] == ["memref<4xui8>", "memref<4xui8>"]
    # arith.constant is signless: an unsigned constant is a bitcast of one
    casts = ops_of(func, arith.BitcastOp)
    assert sorted(str(c.result.type) for c in casts) == ["ui8", "ui8"]
    assert all(isinstance(c.input.owner, arith.ConstantOp) for c in casts)
    assert len(ops_of(func, arith.DivUIOp)) == 1 and not ops_of(func, arith.DivSIOp)


def test_signedness_changes_are_bitcasts() -> None:
    A = te.placeholder((4,), "int16", name="A")
    B = te.compute((4,), lambda i: A[i].astype("uint16"), name="B")
    (cast,) = ops_of(lower([A, B]), arith.BitcastOp)
    assert (str(cast.input.type), str(cast.result.type)) == ("i16", "ui16")


def test_float_remainders_call_fmod() -> None:
    A = te.placeholder((4,), "float32", name="A")
    B = te.placeholder((4,), "float16", name="B")
    T = te.compute((4,), lambda i: te.truncmod(A[i], 2.0), name="T")
    F = te.compute((4,), lambda i: te.floormod(B[i], B[i]), name="F")
    calls = ops_of(lower([A, B, T, F]), tir.CallExternOp)
    # float16 goes through float32
    assert [c.callee.data for c in calls] == ["fmodf", "fmodf"]


def test_bit_operations_and_eager_select_are_branch_free() -> None:
    A = te.placeholder((4,), "int32", name="A")
    B = te.placeholder((4,), "uint32", name="B")
    C = te.compute(
        (4,),
        lambda i: te.eager_select(
            A[i] > 0, te.shift_right(A[i], 1), te.bitwise_xor(A[i], te.bitwise_not(A[i]))
        ),
        name="C",
    )
    D = te.compute((4,), lambda i: te.shift_right(B[i], te.shift_left(B[i], 2)), name="D")
    func = lower([A, B, C, D])
    assert not ops_of(func, tir.IfOp)
    assert len(ops_of(func, arith.SelectOp)) == 1
    assert len(ops_of(func, arith.ShRSIOp)) == 1 and len(ops_of(func, arith.ShRUIOp)) == 1
    assert len(ops_of(func, arith.XOrIOp)) == 2  # ~x is x ^ -1


def test_if_then_else_stays_lazy_where_a_value_may_fault() -> None:
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((6,), lambda i: te.if_then_else(i < 4, A[te.min(i, 3)], 0.0), name="B")
    assert len(ops_of(lower([A, B]), tir.IfOp)) == 1


def test_classifications_are_bool() -> None:
    x = te.placeholder((2,), "float64", name="x")[0]
    assert te.isnan(x).dtype == te.isinf(x).dtype == te.isfinite(x).dtype == "bool"


def test_type_errors() -> None:
    f = te.placeholder((2,), "float32", name="f")[0]
    i = te.placeholder((2,), "int32", name="i")[0]
    with pytest.raises(TypeError, match="te.bitwise_and expects integer expressions"):
        te.bitwise_and(f, f)
    with pytest.raises(TypeError, match="te.floor expects a float expression"):
        te.floor(i)
    with pytest.raises(TypeError, match="te.isnan expects a float expression"):
        te.isnan(i)
    with pytest.raises(TypeError, match="te.eager_select needs a bool condition"):
        te.eager_select(i, i, i)


@pytest.mark.parametrize("dtype", [d for d in te_dtype.DTYPES if d != "index"])
def test_one_dtype_table(dtype: str) -> None:
    # te's dtypes and the relay dtypes (xtvm.dtypes) map to the same xDSL types.
    assert te_dtype.to_xdsl(dtype) == element_type(dtype)
    assert te_dtype.from_xdsl(element_type(dtype)) == dtype_name(element_type(dtype)) == dtype
