"""Kernels a warm build does not lower at all (TVM's ``TECompiler`` cache, on
disk).

The kernel cache (:mod:`xtvm.codegen.cache`, :func:`~xtvm.codegen.objects.kernel_key`)
keys a kernel's object by its final ``tir.prim_func``, so a warm build still
lowers every primitive function (relay → te → tir, ``tir-simplify``,
``tir-unroll-loop``: about a second of ResNet-50's warm build) only to find
its key. This cache maps a *primitive function* — its structure (name,
types, attributes), the target, the pass context and the source of the
whole compiler — to that key and to the kernel's *stub*: the prim_func
with its body left out (its name, argument types and attributes, and the
messages of its asserts, which the metadata lists). A build that finds
both the stub and the object puts the stub where the kernel would be: the
``tir`` passes find nothing to do in it, it is marked cached, and
``convert-tir-to-llvm`` declares its packed entry, whose object code
generation takes from the kernel cache.

Only ``xtvm.build`` uses it, for the graph executor on an llvm target
without BYOC or a tuning dispatch context (which choose schedules the key
does not see); the printed stages (``xtvm-compile --emit``, ``lower``) never
hold a stub.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Region
from xdsl.printer import Printer

from xtvm.codegen.cache import KernelCache, cache_key
from xtvm.codegen.llvm_ir import target_machine
from xtvm.codegen.objects import (
    mark_cached_kernels,
    source_fingerprint,
    structure_text,
    target_key,
    uses_openmp,
)
from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.relay_to_tir.kernel import KERNEL_REUSE, PRIMITIVE_KEY_ATTR
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import (
    CACHED_OBJECT_ATTR,
    KERNEL_KEY_ATTR,
    USES_OPENMP_ATTR,
)
from xtvm.lowering.tir_to_llvm.function import ASSERT_MESSAGES_ATTR, assert_messages
from xtvm.target import Target
from xtvm.transform import PassContext


class PrimitiveKernels:
    """Stubs of the kernels of primitive functions, in a kernel cache."""

    def __init__(self, cache: KernelCache, target: Target):
        self.cache = cache
        self.target = target
        self.parts = (
            *target_key(target, target_machine(target, pic=True)),
            _compiler_fingerprint(),
            _context_fingerprint(PassContext.current()),
        )
        self._decided: dict[str, Callable[[], tuple[str | None, PrimFuncOp | None]]] = {}

    def decide(self, name: str, answer: Callable[[], tuple[str | None, PrimFuncOp | None]]) -> None:
        """Let the next :meth:`lookup` of primitive function ``name`` return
        ``answer()`` (its key and stub, as :meth:`lookup` gives them): a
        lookup made already, or a stub a worker process is making
        (:class:`xtvm.codegen.background.PrimitiveWorkers`)."""
        self._decided[name] = answer

    def lookup(self, fn: func.FuncOp) -> tuple[str | None, PrimFuncOp | None]:
        """The key of primitive function ``fn`` (None: it cannot be keyed) and
        the stub of its kernel, marked cached, if both the stub and the
        object are in the cache (else None: lower it)."""
        if (answer := self._decided.pop(fn.sym_name.data, None)) is not None:
            return answer()
        return self.find(fn)

    def find(self, fn: func.FuncOp) -> tuple[str | None, PrimFuncOp | None]:
        """:meth:`lookup` in the cache itself."""
        text = structure_text(fn)
        if text is None:
            return None, None
        key = cache_key("primitive", *self.parts, text)
        raw = self.cache.get(key)
        if raw is None:
            return key, None
        stub = _parse_stub(raw)
        final = stub.attributes.get(KERNEL_KEY_ATTR) if stub is not None else None
        obj = self.cache.get(final.data) if isinstance(final, StringAttr) else None
        if stub is None or obj is None or stub.sym_name.data != fn.sym_name.data:
            return key, None
        return key, mark_stub(stub, uses_openmp(obj))

    def mark(self, module: ModuleOp) -> None:
        """Once ``module``'s kernels are final: mark those whose object the
        cache holds (:func:`~xtvm.codegen.objects.mark_cached_kernels`) and
        file the stub of every kernel lowered from a keyed primitive
        function under that function's key. The primitive key is taken off
        the kernel first: the kernel's own key is its text."""
        lowered: dict[str, PrimFuncOp] = {}
        for op in module.ops:
            if isinstance(op, PrimFuncOp) and PRIMITIVE_KEY_ATTR in op.attributes:
                key = op.attributes.pop(PRIMITIVE_KEY_ATTR)
                assert isinstance(key, StringAttr)
                lowered[key.data] = op
        mark_cached_kernels(module, self.target)
        for key, op in lowered.items():
            if KERNEL_KEY_ATTR in op.attributes:
                self.cache.put(key, stub_text(op).encode())

    @contextmanager
    def active(self) -> Iterator[None]:
        """``convert-relay-to-tir`` consults this cache within the scope."""
        token = KERNEL_REUSE.set(self)
        try:
            yield
        finally:
            KERNEL_REUSE.reset(token)


def mark_stub(stub: PrimFuncOp, openmp: bool) -> PrimFuncOp:
    """``stub`` marked cached (``convert-tir-to-llvm`` declares it), and as
    calling the OpenMP runtime if its object does (``openmp``)."""
    stub.attributes[CACHED_OBJECT_ATTR] = UnitAttr()
    if openmp:
        stub.attributes[USES_OPENMP_ATTR] = UnitAttr()
    return stub


def stub_text(op: PrimFuncOp) -> str:
    """The text of ``op``'s stub: the prim_func with an empty body, its
    attributes (but the cache marks, which a lookup sets) and its assert
    messages."""
    types = [arg.type for arg in op.args]
    stub = PrimFuncOp(op.sym_name.data, types, body=Region(Block(arg_types=types)))
    skip = {CACHED_OBJECT_ATTR, USES_OPENMP_ATTR}
    stub.attributes.update({k: v for k, v in op.attributes.items() if k not in skip})
    stub.attributes[ASSERT_MESSAGES_ATTR] = ArrayAttr(StringAttr(m) for m in assert_messages(op))
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(ModuleOp([stub]))
    return out.getvalue()


def _parse_stub(raw: bytes) -> PrimFuncOp | None:
    """The stub ``raw`` holds (:func:`stub_text`), or None if it holds none."""
    from xtvm.ir.parse import parse_module

    try:
        module = parse_module(raw.decode(), "<kernel stub>")
    except Exception:  # a stale or foreign entry: lower the kernel instead
        return None
    ops = list(module.ops)
    if len(ops) != 1 or not isinstance(ops[0], PrimFuncOp):
        return None
    ops[0].detach()
    return ops[0]


@functools.cache
def _compiler_fingerprint() -> str:
    """Every source file of xtvm and the versions of xDSL and NumPy: any
    change to the compiler changes every primitive key."""
    return cache_key(source_fingerprint((".",)), f"numpy {metadata.version('numpy')}")


def _context_fingerprint(ctx: PassContext) -> str:
    """What of the pass context can change a kernel: the opt level, the
    config, the disabled and required passes."""
    config = sorted((str(k), repr(v)) for k, v in ctx.config.items())
    return repr((ctx.opt_level, config, sorted(ctx.disabled_pass), sorted(ctx.required_pass)))
