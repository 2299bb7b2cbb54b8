"""Print an xtvm module as text that holds the whole program, weights included.

Every tool prints modules through :func:`print_module`. It is xDSL's printer
with one change, for large constants: a dense attribute with more than
``resource_threshold`` elements (not a splat) prints as
``dense_resource<key>`` and its bytes go to the resource section after the
module, in upstream MLIR's format (:mod:`xtvm.ir.resources`), which
``mlir-opt`` reads and :func:`xtvm.ir.resources.parse_with_resources` turns
back into the identical dense attribute::

    %fc1.weight = relay.const dense_resource<fc1.weight> : tensor<256x784xf32>

A key is the name of the value that holds the constant (its SSA name hint:
the ONNX initializer's name for a weight), or of the symbol that does
(``llvm.mlir.global @name``), made a valid identifier, else
``__xtvm_const_N``; keys are unique within the file. Printing this way also
saves time: xDSL's own printer unpacks every element of a large constant
into Python numbers before writing its hex.

``elide_larger_than=N`` (the tools' ``--elide-large-constants[=N]``, MLIR's
``--mlir-elide-elementsattrs-if-larger``) prints constants with more than
``N`` elements as ``dense_resource<__elided__>``, with no data: a file to
read, which parses and prints again but does not compile. An elided
constant read back prints as it was; any other ``DenseResourceAttr`` (from
a parse that did not load its blob) prints without a blob, so reading the
output says the blob is missing.

```python
from xtvm.ir.printing import print_module, module_text

print_module(module, sys.stdout)                         # weights as blobs
text = module_text(module, elide_larger_than=16)         # for reading
```
"""

from __future__ import annotations

import io
import re
import sys
from typing import IO, Any

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

from xtvm.ir.resources import ELIDED, blob_alignment, blob_bytes, element_size

RESOURCE_THRESHOLD = 100
"""Dense attributes with more elements than this print as blobs: xDSL prints
those as one hex string anyway, unreadable inline."""

ELIDE_DEFAULT = 16
"""``--elide-large-constants`` without a number elides beyond this many
elements."""

_HEX_CHUNK = 1 << 20
"""Bytes of a blob converted to hex at a time (bounds the printer's memory)."""


def print_module(
    module: Operation,
    stream: IO[str] | None = None,
    *,
    elide_larger_than: int | None = None,
    resource_threshold: int = RESOURCE_THRESHOLD,
    **printer_options: Any,
) -> None:
    """Print ``module`` to ``stream`` (default stdout), then a newline, then
    the resource section of its large constants (if any).

    ``printer_options`` go to xDSL's ``Printer`` (``print_generic_format``,
    ``print_debuginfo``, ...)."""
    stream = sys.stdout if stream is None else stream
    printer = _ResourcePrinter(
        stream=stream,
        elide_larger_than=elide_larger_than,
        resource_threshold=resource_threshold,
        **printer_options,
    )
    printer.print_op(module)
    stream.write("\n")
    printer.print_resource_section()


def module_text(module: Operation, **options: Any) -> str:
    """:func:`print_module` into a string."""
    out = io.StringIO()
    print_module(module, out, **options)
    return out.getvalue()


_INVALID_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.$]")


def resource_key(name: str) -> str:
    """``name`` as a resource key (MLIR's bare identifier: a letter or ``_``,
    then letters, digits, ``_``, ``$`` and ``.``)."""
    key = _INVALID_KEY_CHARS.sub("_", name)
    return key if key[:1].isalpha() or key[:1] == "_" else f"_{key}"


class _ResourcePrinter(Printer):
    """xDSL's printer, writing large constants as resource blobs (or eliding
    them) and collecting the blobs for :meth:`print_resource_section`."""

    def __init__(
        self, *, elide_larger_than: int | None, resource_threshold: int, **options: Any
    ) -> None:
        super().__init__(**options)
        self.elide_larger_than = elide_larger_than
        self.resource_threshold = resource_threshold
        self.blobs: dict[str, DenseIntOrFPElementsAttr] = {}
        """Key -> the constant whose bytes the blob holds."""
        self._keys: dict[int, str] = {}
        """``id`` of a printed constant -> its key: an attribute printed twice
        shares one blob."""
        self._op: Operation | None = None

    def print_op(self, op: Operation) -> None:
        outer, self._op = self._op, op
        try:
            super().print_op(op)
        finally:
            self._op = outer

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr) and self._print_large(attribute):
            return
        super().print_attribute(attribute)

    def _print_large(self, attr: DenseIntOrFPElementsAttr) -> bool:
        """Print ``attr`` elided, as a resource or as a splat if it is large;
        return whether it was."""
        count = len(attr)
        if count <= self.resource_threshold and (
            self.elide_larger_than is None or count <= self.elide_larger_than
        ):
            return False
        if element_size(attr.type) is None or count != _element_count(attr):
            return False  # complex elements, or not one element per shape position
        if _is_splat(attr):
            self._print_splat(attr)
        elif self.elide_larger_than is not None and count > self.elide_larger_than:
            self._print_resource(ELIDED, attr)
        else:  # more than resource_threshold elements
            self._print_resource(self._key_of(attr), attr)
        return True

    def _print_resource(self, key: str, attr: DenseIntOrFPElementsAttr) -> None:
        self.print_string(f"dense_resource<{key}> : ")
        self.print_attribute(attr.type)

    def _print_splat(self, attr: DenseIntOrFPElementsAttr) -> None:
        """``dense<v> : type`` without unpacking every element (xDSL's printer does)."""
        element = attr.get_element_type()
        (value,) = element.unpack(attr.data.data[: element.compile_time_size], 1)
        self.print_string("dense<")
        if isinstance(element, IntegerType | IndexType):
            self.print_int(value, element)
        else:
            assert isinstance(element, AnyFloat)
            self.print_float(value, element)
        self.print_string("> : ")
        self.print_attribute(attr.type)

    def _key_of(self, attr: DenseIntOrFPElementsAttr) -> str:
        if id(attr) in self._keys:
            return self._keys[id(attr)]
        hint, op = None, self._op
        if op is not None and op.results:
            hint = op.results[0].name_hint
        elif op is not None and isinstance(symbol := op.properties.get("sym_name"), StringAttr):
            hint = symbol.data  # a symbol holding a constant: llvm.mlir.global @weights
        key = self._unique(resource_key(hint)) if hint else self._unique("__xtvm_const", 0)
        self._keys[id(attr)] = key
        self.blobs[key] = attr
        return key

    def _unique(self, base: str, n: int | None = None) -> str:
        """``base`` if no blob has it, else ``base_1``, ``base_2``, ... (from
        ``base_n`` when ``n`` is given)."""
        key = base if n is None else f"{base}_{n}"
        while key in self.blobs or key == ELIDED:
            n = 1 if n is None else n + 1
            key = f"{base}_{n}"
        return key

    def print_resource_section(self) -> None:
        """The ``{-# dialect_resources: { builtin: {...} } #-}`` section of the
        blobs printed so far, as upstream MLIR writes it."""
        if not self.blobs:
            return
        out = self.stream
        assert out is not None
        out.write("\n{-#\n  dialect_resources: {\n    builtin: {\n")
        for i, (key, blob) in enumerate(self.blobs.items()):
            out.write(f'      {key}: "')
            _write_blob(out, blob)
            out.write('"' + (",\n" if i + 1 < len(self.blobs) else "\n"))
        out.write("    }\n  }\n#-}\n")


def _write_blob(out: IO[str], attr: DenseIntOrFPElementsAttr) -> None:
    """``0x``, the alignment (``uint32``, little endian), then the data, in
    upper-case hex as MLIR prints it; converted a chunk at a time."""
    out.write("0x" + blob_alignment(attr.type).to_bytes(4, "little").hex().upper())
    data = memoryview(blob_bytes(attr))
    for start in range(0, len(data), _HEX_CHUNK):
        out.write(data[start : start + _HEX_CHUNK].hex().upper())


def _element_count(attr: DenseIntOrFPElementsAttr) -> int:
    count = 1
    for dim in attr.get_shape():
        count *= dim
    return count


def _is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether every element has the bytes of the first: the data equals
    itself shifted by one element (no copy; stops at the first difference)."""
    data = memoryview(attr.data.data)
    size = attr.get_element_type().compile_time_size
    return data[size:] == data[:-size]
