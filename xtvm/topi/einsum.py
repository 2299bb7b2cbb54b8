"""Einstein summation (TVM's ``topi.einsum``) from parsed subscripts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xtvm import te
from xtvm.te.expr import IntImm, PrimExpr


def einsum(
    inputs: Sequence[te.Tensor],
    subscripts: Sequence[Sequence[str]],
    output: Sequence[str],
    sizes: Mapping[str, int],
) -> te.Tensor:
    """The einsum whose operand ``k`` has axis labels ``subscripts[k]`` and
    whose result has ``output``'s axes (``sizes`` gives each label's size):
    one compute, a sum over the labels not in ``output`` of the product of
    the operands' elements. An axis of size 1 under a larger label (a
    broadcast ellipsis axis) reads index 0."""
    reduced = [
        label
        for label in dict.fromkeys(label for labels in subscripts for label in labels)
        if label not in output
    ]
    rvars = {
        label: te.reduce_axis((0, sizes[label]), name=f"k{i}") for i, label in enumerate(reduced)
    }
    shape = tuple(sizes[label] for label in output)

    def fcompute(*i: PrimExpr) -> PrimExpr:
        var: dict[str, PrimExpr] = {**dict(zip(output, i)), **rvars}
        product: PrimExpr | None = None
        for tensor, labels in zip(inputs, subscripts):
            index = [
                IntImm(0, "index") if size == 1 and sizes[label] != 1 else var[label]
                for label, size in zip(labels, tensor.shape)
            ]
            element = tensor[index]
            product = element if product is None else product * element
        assert product is not None
        return te.sum(product, axis=list(rvars.values())) if rvars else product

    return te.compute(shape, fcompute, name="T_einsum", tag="einsum")
