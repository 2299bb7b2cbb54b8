"""create_prim_func: structure of the emitted loop programs (placement of
stages, reductions, selects, casts) and its errors."""

import pytest
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xtvm import te
from xtvm.dialects import tir


def lower(args: list[te.Tensor], name: str = "f") -> tir.PrimFuncOp:
    func = te.create_prim_func(args, name)
    ModuleOp([func]).verify()
    return func


def ops_of(func: Operation, cls: type[Operation]) -> list[Operation]:
    return [op for op in func.walk() if isinstance(op, cls)]


def top_loops(func: tir.PrimFuncOp) -> list[tir.ForOp]:
    return [op for op in func.body.block.ops if isinstance(op, tir.ForOp)]


def allocations(func: tir.PrimFuncOp, scope: str) -> list[tir.AllocateOp]:
    return [op for op in ops_of(func, tir.AllocateOp) if op.scope.data == scope]


def dense_relu() -> list[te.Tensor]:
    A = te.placeholder((2, 8), name="A")
    W = te.placeholder((4, 8), name="W")
    k = te.reduce_axis((0, 8), name="k")
    D = te.compute((2, 4), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name="D")
    R = te.compute((2, 4), lambda i, j: te.max(D[i, j] * 2.0, 0.0), name="R")
    return [A, W, R]


def test_signature_is_arguments_in_order() -> None:
    A = te.placeholder((3,), name="A")
    B = te.compute((3,), lambda i: A[i] + 1.0, name="B")
    func = lower([A, B], "addone")
    assert func.sym_name.data == "addone"
    assert func.arg_names == ["A", "B"]
    assert [str(t) for t in func.function_type.inputs] == ["memref<3xf32>", "memref<3xf32>"]
    assert len(top_loops(func)) == 1


def test_duplicate_names_are_made_unique() -> None:
    A = te.placeholder((3,), name="x")
    B = te.compute((3,), lambda i: A[i], name="x")
    assert lower([A, B]).arg_names == ["x", "x_1"]


def test_reduction_feeding_an_elementwise_output_is_one_loop_nest() -> None:
    func = lower(dense_relu())
    (nest,) = top_loops(func)
    assert allocations(func, "global") == []
    (acc,) = allocations(func, "local")
    # the accumulator lives in the innermost output loop, next to the epilogue
    inner = nest.body.block.first_op
    assert isinstance(inner, tir.ForOp) and acc.parent_op() is inner
    assert len(ops_of(func, tir.ForOp)) == 3
    assert len(ops_of(func, arith.MaximumfOp)) == 1


def test_injective_stages_are_inlined() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((4,), lambda i: B[3 - i] + 1.0, name="C")
    D = te.compute((4,), lambda i: C[i] - B[i], name="D")
    func = lower([A, D])
    assert len(top_loops(func)) == 1
    assert allocations(func, "global") == []
    assert len(ops_of(func, tir.StoreOp)) == 1


def test_reduction_read_at_other_indices_is_materialized() -> None:
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    S = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="S")
    N = te.compute((4, 8), lambda i, j: A[i, j] / S[i], name="N")
    func = lower([A, N])
    (buf,) = allocations(func, "global")
    assert str(buf.res.type) == "memref<4xf32>"
    assert len(top_loops(func)) == 2


def test_reduction_with_two_consumers_is_materialized() -> None:
    A = te.placeholder((4,), name="A")
    k = te.reduce_axis((0, 4), name="k")
    S = te.compute((1,), lambda i: te.sum(A[k], axis=k), name="S")
    X = te.compute((1,), lambda i: S[i] + 1.0, name="X")
    Y = te.compute((1,), lambda i: S[i] * 2.0, name="Y")
    func = lower([A, X, Y])
    assert len(allocations(func, "global")) == 1
    assert len(top_loops(func)) == 3


def test_output_read_by_another_output_is_read_from_its_argument() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((4,), lambda i: B[i] * 2.0, name="C")
    func = lower([A, B, C])
    b_arg = func.args[1]
    assert any(isinstance(use.operation, tir.LoadOp) for use in b_arg.uses)


def test_reduction_bounds_and_condition() -> None:
    A = te.placeholder((10,), name="A")
    k = te.reduce_axis((2, 9), name="k")
    S = te.compute((1,), lambda i: te.sum(A[k], axis=k, where=k % 2 == 0), name="S")
    func = lower([A, S])
    loop = [f for f in ops_of(func, tir.ForOp) if f.induction_var.name_hint == "k"][0]
    assert loop.lb.owner.value.value.data == 2 and loop.ub.owner.value.value.data == 9
    (guard,) = ops_of(func, tir.IfOp)
    assert guard.parent_op() is loop


def test_min_and_max_reductions_start_from_the_limits() -> None:
    A = te.placeholder((4,), "int32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    M = te.compute((1,), lambda i: te.max(A[k], axis=k), name="M")
    func = lower([A, M])
    consts = {op.value.value.data for op in ops_of(func, arith.ConstantOp)}
    assert -(2**31) in consts
    assert len(ops_of(func, arith.MaxSIOp)) == 1


def test_select_of_loads_branches_and_of_values_selects() -> None:
    A = te.placeholder((4,), name="A")
    padded = te.compute(
        (6,), lambda i: te.if_then_else((i >= 1) & (i < 5), A[i - 1], 0.0), name="P"
    )
    func = lower([A, padded])
    (branch,) = ops_of(func, tir.IfOp)
    assert len(ops_of(branch, tir.LoadOp)) == 1  # the load only runs when in bounds
    B = te.compute((4,), lambda i: te.if_then_else(i < 2, 1.0, 2.0), name="B")
    func = lower([B])
    assert ops_of(func, tir.IfOp) == [] and len(ops_of(func, arith.SelectOp)) == 1


def test_casts_pick_conversion_ops() -> None:
    A = te.placeholder((4,), "int32", name="A")
    B = te.compute((4,), lambda i: A[i].astype("float32") + i.astype("float32"), name="B")
    func = lower([A, B])
    assert len(ops_of(func, arith.SIToFPOp)) == 2
    assert len(ops_of(func, arith.IndexCastOp)) == 1
    N = te.placeholder((4,), "int8", name="N")
    V = te.compute((4,), lambda i: N[i].astype("uint8").astype("int32"), name="V")
    assert len(ops_of(lower([N, V]), arith.ExtUIOp)) == 1


def test_math_and_extern_calls() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute(
        (4,),
        lambda i: te.sqrt(A[i]) + te.call_extern("float32", "erff", A[i])
        + te.call_intrin("float32", "llvm.fabs.f32", A[i]),
        name="B",
    )
    func = lower([A, B])
    assert len(ops_of(func, math.SqrtOp)) == 1
    assert ops_of(func, tir.CallExternOp)[0].callee.data == "erff"
    assert ops_of(func, tir.CallIntrinOp)[0].callee.data == "llvm.fabs.f32"


def test_scalar_tensors() -> None:
    A = te.placeholder((), name="A")
    B = te.compute((), lambda: A[()] * 3.0, name="B")
    func = lower([A, B])
    assert str(func.function_type.inputs.data[0]) == "memref<f32>"
    assert top_loops(func) == []


def test_shared_subexpressions_are_computed_once() -> None:
    A = te.placeholder((4,), name="A")

    def body(i: te.Var) -> te.PrimExpr:
        v = A[i] * 2.0
        return v * v

    func = lower([A, te.compute((4,), body, name="B")])
    assert len(ops_of(func, tir.LoadOp)) == 1


def test_errors() -> None:
    A = te.placeholder((3,), name="A")
    B = te.compute((3,), lambda i: A[i], name="B")
    with pytest.raises(ValueError, match="placeholder A is used but is not an argument"):
        te.create_prim_func([B])
    with pytest.raises(ValueError, match="passed twice"):
        te.create_prim_func([A, B, B])
    with pytest.raises(ValueError, match="no compute tensor"):
        te.create_prim_func([A])
