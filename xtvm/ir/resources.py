"""Large constants in textual IR: MLIR's ``dense_resource`` blobs.

In memory every constant is a ``DenseIntOrFPElementsAttr`` holding raw bytes
(instant for 100 MB, zero-copy to NumPy). Only the text differs: a large one
prints as ``dense_resource<key>`` and its bytes go to the file's trailing
resource section, exactly as upstream MLIR writes (and ``mlir-opt`` reads)
it::

    %w = relay.const dense_resource<fc1.weight> : tensor<256x784xf32>
    ...
    {-#
      dialect_resources: {
        builtin: {
          fc1.weight: "0x04000000CDCC4C3E..."
        }
      }
    #-}

A blob is ``0x``, its alignment as a little-endian ``uint32``, then the data
in hex. :mod:`xtvm.ir.printing` writes this form; this module reads it back:
:func:`parse_with_resources` runs a parse and replaces every
``dense_resource`` by the dense attribute its blob holds, so nothing else in
xtvm ever sees one.

xDSL keeps parsed blobs (as hex strings) in global state on the builtin
dialect, never frees them, and renames a key it has seen before, which
breaks a second parse of the same text (the use and the blob end up under
different names). :func:`parse_with_resources` gives every parse a private
store and drops it afterwards.

``dense_resource<__elided__>`` is MLIR's form of a constant left out of the
text (``--elide-large-constants``). It stays a ``DenseResourceAttr`` in
memory, so the file prints back unchanged, and anything that needs its
values fails with :class:`ElidedConstantError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    IndexType,
    IntegerType,
    ModuleOp,
    ShapedType,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from xtvm.ir import describe_op

ELIDED = "__elided__"
"""The key MLIR prints for a constant whose value was left out."""


class ElidedConstantError(ValueError):
    """The values of a constant are needed, but the file it came from was
    printed with ``--elide-large-constants``."""


def elided_error(what: str) -> ElidedConstantError:
    """The error for an elided constant, ``what`` naming it."""
    return ElidedConstantError(
        f"{what} was elided when the file was printed (--elide-large-constants); "
        "print it again without that flag"
    )


def is_elided(attr: Attribute) -> bool:
    """Whether ``attr`` is MLIR's elided constant, ``dense_resource<__elided__>``."""
    return isinstance(attr, DenseResourceAttr) and attr.resource_handle.data == ELIDED


def element_size(attr_type: Attribute) -> int | None:
    """Bytes per element of a shaped type's elements in a blob (``i1``: one
    byte), or None when a blob cannot hold them (complex, unknown types)."""
    if not isinstance(attr_type, ShapedType):
        return None
    element = attr_type.get_element_type()
    if isinstance(element, IntegerType | IndexType | AnyFloat):
        return element.compile_time_size
    return None


def is_bool(attr_type: Attribute) -> bool:
    """Whether the elements are ``i1``: xDSL stores ``true`` as 0xFF, a blob
    (as MLIR's ``bool``) as 0x01."""
    return (
        isinstance(attr_type, ShapedType)
        and isinstance(element := attr_type.get_element_type(), IntegerType)
        and element.width.data == 1
    )


_TO_BLOB_BOOL = bytes([0] + [1] * 255)
_FROM_BLOB_BOOL = bytes([0] + [0xFF] * 255)


def blob_bytes(attr: DenseIntOrFPElementsAttr) -> bytes:
    """The data of ``attr`` as a blob holds it."""
    data = attr.data.data
    return data.translate(_TO_BLOB_BOOL) if is_bool(attr.type) else data


def blob_alignment(attr_type: Attribute) -> int:
    """The alignment a blob of this type declares: its element size rounded
    up to a power of two (MLIR's ``alignof`` of the element)."""
    size = element_size(attr_type) or 1
    return 1 << (size - 1).bit_length()


def decode_blob(text: str) -> bytes:
    """The data of a blob's text (``0x`` + alignment + data, in hex); raises
    ``ValueError`` saying what is wrong with it."""
    if not text.startswith("0x"):
        raise ValueError("a blob is a hex string starting with 0x")
    digits = text[2:]
    if len(digits) % 2:
        raise ValueError(f"the blob has an odd number of hex digits ({len(digits)}): cut short?")
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        bad = next(i for i, c in enumerate(digits) if c not in "0123456789abcdefABCDEF")
        raise ValueError(f"the blob's digit {bad} ('{digits[bad]}') is not a hex digit") from None
    if len(raw) < 4:
        raise ValueError("the blob is shorter than its 4-byte alignment header")
    alignment = int.from_bytes(raw[:4], "little")
    if alignment == 0 or alignment & (alignment - 1):
        raise ValueError(f"the blob's alignment {alignment} is not a power of two")
    return raw[4:]


@contextmanager
def private_blob_store() -> Iterator[dict[str, str]]:
    """Give the builtin dialect an empty blob store for the duration (yielded:
    key -> blob text, as xDSL's parser fills it), then restore the old one."""
    interface = Builtin.get_interface(OpAsmDialectInterface)
    assert interface is not None, "xDSL's builtin dialect has an OpAsmDialectInterface"
    saved = interface._blob_storage
    interface._blob_storage = store = {}
    try:
        yield store
    finally:
        interface._blob_storage = saved


def parse_with_resources(
    parse: Callable[[], ModuleOp], text: str | None = None, filename: str = "<string>"
) -> ModuleOp:
    """Run ``parse`` (which parses ``text``) with a private blob store, then
    replace each ``dense_resource<key>`` by the dense attribute of its blob.

    Elided constants stay ``dense_resource<__elided__>``. A missing blob, a
    blob that is not hex, or one whose size does not match the type is a
    ``ParseError`` at the ``dense_resource`` (when ``text`` is given).

    ```python
    module = parse_with_resources(lambda: Parser(ctx, text, name).parse_module(), text, name)
    ```
    Wrapping a parse that already does this is harmless."""
    with private_blob_store() as store:
        module = parse()
    resolved: dict[str, Attribute] = {}

    def resolve(attr: DenseResourceAttr) -> Attribute:
        key = attr.resource_handle.data
        if key not in resolved:
            resolved[key] = _dense_of(attr, store.get(key) or None, text, filename)
        return resolved[key]

    for op in module.walk():
        _replace_resources(op, resolve)
    return module


def _replace_resources(op: Operation, resolve: Callable[[DenseResourceAttr], Attribute]) -> None:
    """Resolve the ``dense_resource``s among the properties and attributes of
    ``op``, also inside arrays and dictionaries (a function's ``arg_attrs``)."""
    for table in (op.properties, op.attributes):
        for name, attr in table.items():
            new = _resolved(attr, resolve)
            if new is not attr:
                table[name] = new


def _resolved(attr: Attribute, resolve: Callable[[DenseResourceAttr], Attribute]) -> Attribute:
    """``attr`` with its blobs resolved (``attr`` itself if it holds none)."""
    if isinstance(attr, DenseResourceAttr):
        return attr if is_elided(attr) else resolve(attr)
    if isinstance(attr, ArrayAttr):
        items = [_resolved(a, resolve) for a in attr.data]
        changed = any(new is not old for new, old in zip(items, attr.data))
        return ArrayAttr(items) if changed else attr
    if isinstance(attr, DictionaryAttr):
        entries = {k: _resolved(a, resolve) for k, a in attr.data.items()}
        changed = any(entries[k] is not a for k, a in attr.data.items())
        return DictionaryAttr(entries) if changed else attr
    return attr


def _dense_of(
    attr: DenseResourceAttr, blob: str | None, text: str | None, filename: str
) -> DenseIntOrFPElementsAttr:
    key = attr.resource_handle.data
    use = f"dense_resource<{key}>"

    def error(message: str, in_section: bool = False) -> ParseError | ValueError:
        """The error at the use (or at the blob's key in the section)."""
        message = f"{use} : {attr.type}: {message}"
        if text is None:
            return ValueError(f"{filename}: {message}")
        if in_section:
            span = _find_code(text, rf"(?<![\w$.]){re.escape(key)}\s*:", max(text.rfind("{-#"), 0))
        else:
            span = _find_code(text, re.escape(use))
        return ParseError(Span(*span, Input(text, filename)), message)

    size = element_size(attr.type)
    if size is None:
        raise error("xtvm reads blobs of integer and floating-point elements only")
    if blob is None:
        raise error("the file's {-# dialect_resources #-} section has no blob of that name")
    try:
        data = decode_blob(blob)
    except ValueError as e:
        raise error(str(e), in_section=True) from None
    count = 1
    for dim in attr.type.get_shape():
        count *= dim
    if len(data) != count * size:
        raise error(f"the type needs {count * size} bytes, but the blob holds {len(data)}")
    if is_bool(attr.type):
        data = data.translate(_FROM_BLOB_BOOL)
    return DenseIntOrFPElementsAttr(attr.type, BytesAttr(data))


def _find_code(text: str, pattern: str, start: int = 0) -> tuple[int, int]:
    """Start and end of the first match of ``pattern`` from ``start`` that is
    not in a ``//`` comment (else the start of the text)."""
    for match in re.compile(pattern).finditer(text, start):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "//" not in text[line_start : match.start()]:
            return match.span()
    return 0, 0


def elided_ops(module: Operation) -> Iterator[Operation]:
    """The ops holding an elided constant (also inside arrays and dictionaries)."""
    for op in module.walk():
        if any(_holds_elided(a) for a in (*op.properties.values(), *op.attributes.values())):
            yield op


def _holds_elided(attr: Attribute) -> bool:
    if isinstance(attr, ArrayAttr):
        return any(_holds_elided(a) for a in attr.data)
    if isinstance(attr, DictionaryAttr):
        return any(_holds_elided(a) for a in attr.data.values())
    return is_elided(attr)


def check_not_elided(module: Operation) -> None:
    """Raise :class:`ElidedConstantError` if any constant of ``module`` was
    elided: compiling needs every value."""
    ops = list(elided_ops(module))
    if ops:
        op = ops[0]
        ty = f" : {op.results[0].type}" if len(op.results) == 1 else ""
        more = f" (and {len(ops) - 1} more)" if len(ops) > 1 else ""
        raise elided_error(f"constant {describe_op(op)}{ty}{more}")
