"""Tensor layouts as TVM writes them: ``"NCHW"``, ``"OIHW16o"``, ``"NK16n"``.

An uppercase letter is a *primal* axis; ``<factor><lowercase>`` is a *sub*
axis: the inner ``factor`` elements of the primal axis of the same letter,
whose remaining (outer) part keeps the uppercase letter. ``OIHW16o`` holds
weight ``[O, I, H, W]`` as ``[O/16, I, H, W, 16]``: element ``(o, i, h, w)``
is at ``[o // 16, i, h, w, o % 16]``.

Pure Python (no IR, no NumPy): the relay type rule, the NumPy reference
(:func:`xtvm.reference.relay.packed.layout_transform`, which moves the data)
and the te compute of ``relay.layout_transform`` all use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A `?` axis, as xDSL's builtin types spell it (`DYNAMIC_INDEX`, -2**63); kept as a
# number so this module, which the NumPy references use, imports no IR.
DYNAMIC_AXIS = -(2**63)


_TOKEN = re.compile(r"(\d*)([A-Za-z])")


@dataclass(frozen=True)
class Layout:
    """A parsed layout: one ``(letter, factor)`` per dimension, ``factor`` 0
    for a primal axis."""

    name: str
    axes: tuple[tuple[str, int], ...]

    @staticmethod
    def parse(name: str) -> Layout:
        pos, axes = 0, []
        for m in _TOKEN.finditer(name):
            if m.start() != pos:
                break
            digits, letter = m.groups()
            if letter.isupper() and digits:
                raise ValueError(f"layout '{name}': a primal axis ('{letter}') takes no factor")
            if letter.islower() and not (digits and int(digits) > 0):
                raise ValueError(f"layout '{name}': sub-axis '{letter}' needs a positive factor")
            axes.append((letter, int(digits) if digits else 0))
            pos = m.end()
        if pos != len(name) or not axes:
            raise ValueError(f"layout '{name}': expected letters and <factor><letter> sub-axes")
        letters = [a for a, _ in axes]
        if len(set(letters)) != len(letters):
            raise ValueError(f"layout '{name}': an axis appears twice")
        for letter, factor in axes:
            if factor and letter.upper() not in letters:
                raise ValueError(f"layout '{name}': sub-axis '{letter}' has no primal '{letter.upper()}'")
        return Layout(name, tuple(axes))

    @property
    def primal(self) -> str:
        """The primal axes in order, e.g. ``"OIHW"``."""
        return "".join(a for a, f in self.axes if not f)

    def factor(self, primal: str) -> int:
        """The factor of ``primal``'s sub-axis (1 when it has none)."""
        return next((f for a, f in self.axes if a == primal.lower()), 1)

    def shape_of(self, primal_shape: dict[str, int]) -> list[int]:
        """This layout's shape for a tensor of the given primal extents;
        ``ValueError`` if a factor does not divide its axis."""
        shape = []
        for letter, factor in self.axes:
            if factor:
                shape.append(factor)
                continue
            extent, inner = primal_shape[letter], self.factor(letter)
            if not isinstance(extent, int):  # a symbolic extent (a te expression): a kernel's
                shape.append(extent if inner == 1 else extent // inner)
                continue
            if extent == DYNAMIC_AXIS:  # a `?` axis stays `?` (docs/dynamic-shapes.md)
                shape.append(extent)
                continue
            if extent % inner:
                raise ValueError(
                    f"layout '{self.name}': axis {letter}={extent} is not a multiple of {inner}"
                )
            shape.append(extent // inner)
        return shape

    def primal_shape(self, shape: tuple[int, ...] | list[int]) -> dict[str, int]:
        """The primal extents of a tensor of ``shape`` in this layout."""
        if len(shape) != len(self.axes):
            raise ValueError(f"layout '{self.name}' has {len(self.axes)} axes, the shape {list(shape)}")
        return {
            letter: extent
            if isinstance(extent, int) and extent == DYNAMIC_AXIS
            else extent * self.factor(letter)
            for (letter, factor), extent in zip(self.axes, shape)
            if not factor
        }

    def to_primal(self, indices: tuple) -> dict[str, object]:
        """Primal coordinates of an element given by its indices in this layout
        (works on ints and on te expressions)."""
        coords: dict[str, object] = {}
        for (letter, factor), index in zip(self.axes, indices):
            if not factor:
                inner = self.factor(letter)
                coords[letter] = index * inner if inner != 1 else index
        for (letter, factor), index in zip(self.axes, indices):
            if factor:
                coords[letter.upper()] = coords[letter.upper()] + index
        return coords

    def from_primal(self, coords: dict[str, object]) -> list[object]:
        """This layout's indices of the element at primal ``coords``."""
        indices = []
        for letter, factor in self.axes:
            if factor:
                indices.append(coords[letter.upper()] % factor)
            else:
                inner = self.factor(letter)
                indices.append(coords[letter] // inner if inner != 1 else coords[letter])
        return indices


def check_compatible(src: Layout, dst: Layout) -> None:
    if sorted(src.primal) != sorted(dst.primal):
        raise ValueError(f"layouts '{src.name}' and '{dst.name}' have different primal axes")


def transform_shape(shape: list[int] | tuple[int, ...], src: str, dst: str) -> list[int]:
    """The shape of a ``src``-layout tensor of ``shape`` after conversion to ``dst``."""
    s, d = Layout.parse(src), Layout.parse(dst)
    check_compatible(s, d)
    return d.shape_of(s.primal_shape(shape))

