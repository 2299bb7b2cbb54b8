"""Image ops: ``relay.image.resize1d``, ``relay.image.resize2d``,
``relay.image.resize3d`` (TVM's ``image.resize*``), ONNX ``Resize`` and
``Upsample``.

They share :class:`ResizeOp`: the spatial axes are the letters ``W``,
``H``, ``D`` of ``layout``; each is resized to ``size`` by mapping output
coordinate ``x`` to input coordinate ``x_in`` (``coordinate_transformation_mode``)
and sampling there (``method``). With ``scales`` the mapping uses the given
scale factors, and ``in_size * scale`` as the (fractional) output length,
as ONNX does when ``Resize`` gets scales rather than sizes; without it the
scale is ``size / in_size``.

Coordinate transformation modes (``s`` the scale, ``L = in_size * s``):

| mode | ``x_in`` |
|---|---|
| ``half_pixel`` | ``(x + 0.5) / s - 0.5`` |
| ``half_pixel_symmetric`` | ``in/2 * (1 - size/L) + (x + 0.5) / s - 0.5`` |
| ``pytorch_half_pixel`` | as ``half_pixel``, ``-0.5`` when ``L == 1`` |
| ``align_corners`` | ``x * (in - 1) / (L - 1)``, ``0`` when ``L == 1`` |
| ``asymmetric`` | ``x / s`` |
| ``tf_crop_and_resize`` | ``r0 * (in - 1) + x * (r1 - r0) * (in - 1) / (L - 1)``, the roi centre when ``L == 1`` |

With ``tf_crop_and_resize``, an output whose ``x_in`` lies outside ``[0,
in - 1]`` along some axis is ``extrapolation_value``.

Methods: ``nearest_neighbor`` rounds ``x_in`` by ``rounding_method``
(``round_prefer_floor``, ``round_prefer_ceil``, ``floor``, ``ceil``);
``linear`` interpolates between the two neighbours of each axis; ``cubic``
uses the four neighbours with Keys' kernel of parameter ``cubic_alpha``
(``cubic_exclude`` drops the neighbours outside the input and renormalizes).
Neighbours outside the input read the nearest edge element. With
``antialias``, an axis downsampled by ``s < 1`` stretches the linear or
cubic kernel by ``1 / s`` (reading more neighbours) and normalizes its
weights, as ONNX ``Resize`` (opset 18) does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, FloatAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    bool_attr,
    f64_array,
    f64_attr,
    functional_format,
    is_float,
    shape_str,
    tensor_type,
)

METHODS = ("nearest_neighbor", "linear", "cubic")
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
ROUNDING_METHODS = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")

SPATIAL_LETTERS = "DHW"


def spatial_axes(layout: str) -> list[int]:
    """The positions of the spatial axes (``D``, ``H``, ``W``) in ``layout``."""
    return [i for i, c in enumerate(layout) if c in SPATIAL_LETTERS]


def _one_of(op_name: str, what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise RelayTypeError(
            f"'{op_name}' {what} must be one of {', '.join(allowed)}, got '{value}'"
        )


class ResizeOp(RelayOp):
    """Base of the resizes; a subclass fixes the number of spatial axes, the
    layouts it accepts and the default ``layout`` (the first of them).

    ```mlir
    %y = relay.image.resize2d %x {size = array<i64: 4, 6>, method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x2x3xf32>) -> tensor<1x3x4x6xf32>
    %z = relay.image.resize2d %x {size = array<i64: 1, 1>, scales = array<f64: 0.6, 0.6>} : (tensor<1x3x2x3xf32>) -> tensor<1x3x1x1xf32>
    ```
    """

    LAYOUTS: ClassVar[tuple[str, ...]] = ()
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    size = prop_def(DenseArrayBase)
    scales = opt_prop_def(DenseArrayBase)
    roi = opt_prop_def(DenseArrayBase)
    layout = prop_def(StringAttr)
    method = prop_def(StringAttr, default_value=StringAttr("nearest_neighbor"))
    coordinate_transformation_mode = prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    rounding_method = prop_def(StringAttr, default_value=StringAttr("round_prefer_floor"))
    cubic_alpha = prop_def(FloatAttr, default_value=f64_attr(-0.75))
    cubic_exclude = prop_def(BoolAttr, default_value=bool_attr(False))
    extrapolation_value = prop_def(FloatAttr, default_value=f64_attr(0.0))
    antialias = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(
        self,
        data: SSAValue,
        size: Sequence[int],
        *,
        scales: Sequence[float] | None = None,
        roi: Sequence[float] | None = None,
        layout: str | None = None,
        method: str | None = None,
        coordinate_transformation_mode: str | None = None,
        rounding_method: str | None = None,
        cubic_alpha: float | None = None,
        cubic_exclude: bool | None = None,
        extrapolation_value: float | None = None,
        antialias: bool | None = None,
    ):
        super().__init__(
            data,
            size=size,
            method=method,
            coordinate_transformation_mode=coordinate_transformation_mode,
            rounding_method=rounding_method,
            cubic_alpha=cubic_alpha,
            cubic_exclude=cubic_exclude,
            extrapolation_value=extrapolation_value,
            antialias=antialias,
            scales=None if scales is None else f64_array(scales),
            roi=None if roi is None else f64_array(roi),
            layout=layout,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        layout = attrs["layout"]
        _one_of(cls.name, "layout", layout, cls.LAYOUTS)
        _one_of(cls.name, "method", attrs["method"], METHODS)
        mode = attrs["coordinate_transformation_mode"]
        _one_of(cls.name, "coordinate_transformation_mode", mode, COORDINATE_MODES)
        _one_of(cls.name, "rounding_method", attrs["rounding_method"], ROUNDING_METHODS)
        shape = list(data.get_shape())
        if len(shape) != len(layout):
            raise RelayTypeError(
                f"'{cls.name}' expects data of rank {len(layout)} ({layout}), "
                f"got {shape_str(shape)}"
            )
        if attrs["method"] != "nearest_neighbor" and not is_float(data.element_type):
            raise RelayTypeError(
                f"'{cls.name}' {attrs['method']} interpolation needs floating-point data, "
                f"got {data.element_type}"
            )
        axes = spatial_axes(layout)
        size = list(attrs["size"])
        if len(size) != len(axes) or any(s < 0 for s in size):
            raise RelayTypeError(
                f"'{cls.name}' size must be {len(axes)} non-negative sizes, got {size}"
            )
        scales = attrs.get("scales")
        if scales is not None and (len(scales) != len(axes) or any(s <= 0 for s in scales)):
            raise RelayTypeError(
                f"'{cls.name}' scales must be {len(axes)} positive factors, got {list(scales)}"
            )
        roi = attrs.get("roi")
        if roi is not None and len(roi) != 2 * len(axes):
            raise RelayTypeError(
                f"'{cls.name}' roi must hold {2 * len(axes)} values (starts, then ends), "
                f"got {len(roi)}"
            )
        if mode == "tf_crop_and_resize" and roi is None:
            raise RelayTypeError(f"'{cls.name}' tf_crop_and_resize needs a roi")
        for axis, s in zip(axes, size):
            if shape[axis] == 0 and s > 0:
                raise RelayTypeError(f"'{cls.name}' cannot resize the empty axis {axis}")
            shape[axis] = s
        return [TensorType(data.element_type, shape)]


@irdl_op_definition
class Resize1dOp(ResizeOp):
    """Resizes the ``W`` axis of ``NCW`` (or ``NWC``) data."""

    name = "relay.image.resize1d"
    LAYOUTS: ClassVar[tuple[str, ...]] = ("NCW", "NWC")
    layout = prop_def(StringAttr, default_value=StringAttr(LAYOUTS[0]))


@irdl_op_definition
class Resize2dOp(ResizeOp):
    """Resizes the ``H`` and ``W`` axes of ``NCHW`` (or ``NHWC``) data."""

    name = "relay.image.resize2d"
    LAYOUTS: ClassVar[tuple[str, ...]] = ("NCHW", "NHWC")
    layout = prop_def(StringAttr, default_value=StringAttr(LAYOUTS[0]))


@irdl_op_definition
class Resize3dOp(ResizeOp):
    """Resizes the ``D``, ``H`` and ``W`` axes of ``NCDHW`` (or ``NDHWC``) data."""

    name = "relay.image.resize3d"
    LAYOUTS: ClassVar[tuple[str, ...]] = ("NCDHW", "NDHWC")
    layout = prop_def(StringAttr, default_value=StringAttr(LAYOUTS[0]))


IMAGE_OPS: list[type[RelayOp]] = [Resize1dOp, Resize2dOp, Resize3dOp]
