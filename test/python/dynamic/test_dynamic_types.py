"""The type rules with `?` dimensions: every relay op case of the topi tests
(test_topi_relay_ops.CASES), with each operand axis in turn made `?`, infers
a type that the static inference refines (`?` exactly where the size is not
known), or refuses with a RelayTypeError for the ops that need that size
statically (it fixes a result rank or a layout)."""

import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

sys.path.insert(0, str(Path(__file__).parents[1] / "topi"))  # the relay op cases
from test_topi_relay_ops import CASES
from topi_testing import tensor_type

from xtvm.dialects.relay.base import RelayTypeError, attr_to_py, is_refinement, property_attr

NEEDS_STATIC = {
    "relay.einsum",  # the subscripts' sizes are matched statically
    "relay.nn.depth_to_space",  # channel / spatial blocks fix the result shape
    "relay.nn.space_to_depth",
    "relay.gather_nd",  # the index-tuple axis fixes the result rank
    "relay.scatter_nd",
    "relay.nn.contrib_conv2d_int8_packed",  # a packed (constant) weight and K
    "relay.nn.contrib_dense_int8_packed",
    "relay.nn.contrib_conv2d_winograd_weight_transform",  # tiles and blocks of a constant weight
    "relay.nn.contrib_conv2d_winograd_without_weight_transform",
}
"""Ops whose rule needs some operand sizes statically."""

NEEDS_STATIC_CASES = {"squeeze-all"}
"""Cases that need the sizes statically (squeeze without axes: which are 1)."""


def _dynamic_variants():
    for case_id, cls, operands, kwargs in CASES:
        for i, (shape, _) in enumerate(operands):
            for axis in range(len(shape)):
                needs_static = cls.name in NEEDS_STATIC or case_id in NEEDS_STATIC_CASES
                yield pytest.param(
                    cls, operands, kwargs, i, axis, needs_static, id=f"{case_id}-{i}-{axis}"
                )


@pytest.mark.parametrize(
    ("cls", "operands", "kwargs", "operand", "axis", "needs_static"), list(_dynamic_variants())
)
def test_dynamic_axis_keeps_the_rule_sound(cls, operands, kwargs, operand, axis, needs_static):
    props = cls.get_irdl_definition().properties
    attrs = cls.with_defaults(
        {k: attr_to_py(property_attr(props[k].constr, v)) for k, v in kwargs.items() if v is not None}
    )
    types = [tensor_type(s, d) for s, d in operands]
    static = cls.infer(types, attrs)
    shape = list(types[operand].get_shape())
    shape[axis] = DYNAMIC_INDEX
    types[operand] = TensorType(types[operand].element_type, shape)
    try:
        dynamic = cls.infer(types, attrs)
    except RelayTypeError:
        if needs_static:
            return
        raise
    assert len(dynamic) == len(static)
    for d, s in zip(dynamic, static):
        assert is_refinement(d, s), f"{d} is not a less precise form of {s}"


def test_layout_spells_a_dynamic_axis_as_xdsl_does() -> None:
    """xtvm.layout keeps its own number for `?` (it imports no IR): it must be xDSL's."""
    from xtvm.layout import DYNAMIC_AXIS, transform_shape

    assert DYNAMIC_AXIS == DYNAMIC_INDEX
    assert transform_shape((DYNAMIC_INDEX, 32, 4, 4), "NCHW", "NCHW16c") == [DYNAMIC_INDEX, 2, 4, 4, 16]
