"""A `tir.prim_func` body → the C function `int32_t NAME_impl(...)`.

Structured TIR maps onto structured C, op by op:

    tir.for %i = %lb to %ub kind "serial"      for (int64_t i = lb; i < ub; ++i) { ... }
    tir.for ... kind "vectorized"              vector code (vector.py), else #pragma omp simd
    tir.for ... kind "unrolled"                #pragma GCC unroll N, then the loop
    tir.for ... kind "parallel" (outermost)    #pragma omp parallel for schedule(static)
    tir.if %c { } else { }                     if (c) { } else { }
    %v = tir.load %A[%i, %j]                   const float v = A[i * N + j];
    tir.store %v, %A[%i]                       A[i] = v;
    %b = tir.allocate "local" : memref<16xf32> float b[16] __attribute__((aligned(64)));
    tir.assert %ok, "..."                      if (!(ok)) return (7 << 16) | k;
    tir.call_extern "expf"(%x)                 expf(x)   (with a prototype)
    arith / math ops                           const T v = <expression>; (scalar.py)

Buffers are `T* restrict` parameters (the llvm path's `noalias`), scalars
are passed by value. As on the llvm path: allocations above
`STACK_LIMIT_BYTES` come from `aligned_alloc(64, ...)` at the function
entry (at the start of a parallel loop's body when inside one) and are freed
on every exit; a failed `tir.assert` returns `(7 << 16) | k`, k its program
order; parallel loops nested in a parallel loop are serial; the thread
count is `xtvm_set_num_threads`'s (0: OpenMP's default). Inside a parallel
loop a failed assert records its code and skips to the end of the iteration
(an OpenMP loop cannot return), and the function returns the code after the
loop. A vectorized loop whose body may leave it (an assert) gets no
`omp simd`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float16Type, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from xtvm.arith import int_constant, row_major_offset
from xtvm.dialects.tir import (
    PREFETCH,
    AllocateOp,
    AssertOp,
    CallExternOp,
    CallIntrinOp,
    ForOp,
    IfOp,
    LoadOp,
    PrimFuncOp,
    ReturnOp,
    ShapeVarOp,
    StoreOp,
    YieldOp,
)
from xtvm.dtypes import storage_nbytes, sub_byte_bits
from xtvm.lowering.tir_to_c.scalar import EXPRESSIONS, LIBM_NAMES, intrinsic_expression
from xtvm.lowering.tir_to_c.types import (
    CTranslationError,
    buffer_element,
    c_type,
    c_value_type,
    sub_byte,
)
from xtvm.lowering.tir_to_c.vector import write_vectorized
from xtvm.lowering.tir_to_llvm.function import (
    ASSERT_KIND,
    HEAP_ALIGNMENT,
    STACK_LIMIT_BYTES,
    impl_name,
    is_prefetch_address,
)
from xtvm.lowering.tir_to_llvm.sub_byte import buffer_bits, stores_sub_byte, touches_sub_byte

NUM_THREADS = "__xtvm_num_threads"
"""The thread count global `xtvm_set_num_threads` sets (defined once per library)."""

_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto "
    "if inline int long register restrict return short signed sizeof static struct switch "
    "typedef union unsigned void volatile while bool true false args num_args".split()
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_c_identifier(name: str) -> bool:
    return bool(_IDENTIFIER.match(name)) and name not in _C_KEYWORDS


class Names:
    """Unique C identifiers from IR name hints, none naming a function the
    code calls (`reserved`)."""

    def __init__(self, reserved: set[str] = frozenset()) -> None:
        self.used: set[str] = set(reserved)

    def fresh(self, hint: str | None, default: str = "t") -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint or "") or default
        if base[0].isdigit():
            base = f"v{base}"
        if base in _C_KEYWORDS or base.lower().startswith("xtvm"):
            base += "_"
        name, n = base, 1
        while name in self.used:
            name, n = f"{base}_{n}", n + 1
        self.used.add(name)
        return name


@dataclass
class _Frame:
    """Where allocations go and how an assert leaves: the function, or one
    parallel loop body (`error` is then the variable its code goes to)."""

    heap: list[str] = field(default_factory=list)
    prologue: list[str] = field(default_factory=list)
    error: str | None = None
    label: str | None = None


def _leaves(op: Operation) -> bool:
    """Whether a loop body holds an assert (a way out of the loop)."""
    return any(isinstance(inner, AssertOp) for inner in op.walk())


class FunctionWriter:
    """Writes the C of one prim_func: `impl()` gives `NAME_impl`'s text."""

    def __init__(self, func: PrimFuncOp):
        self.func = func
        self.names = Names(_called_functions(func))
        self.values: dict[SSAValue, str] = {}
        self.lines: list[str] = []
        self.depth = 1
        self.asserts = 0
        self.parallel_loops = 0
        self.externs: dict[str, str] = {}
        """Prototype of each `tir.call_extern` callee."""
        self.frame = _Frame()
        self.in_parallel = False
        self.exits_through_label = any(
            isinstance(op, AllocateOp) and (op.sizes or _allocation_bytes(op) > STACK_LIMIT_BYTES)
            for op in func.walk()
        )
        """Whether the function frees heap buffers, so leaves through `xtvm_exit`."""
        self.uses_openmp = False
        self.shape_vars: dict[str, str] = {}
        """The C parameter of each shape variable (`tir.shape_vars`)."""

    @property
    def where(self) -> str:
        return f"@{self.func.sym_name.data}"

    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    # -- the function ------------------------------------------------------

    def impl(self) -> str:
        """`int32_t NAME_impl(params) { body }`."""
        params = []
        for arg, hint in zip(self.func.args, self.func.arg_names, strict=True):
            name = self.names.fresh(hint, "arg")
            self.values[arg] = name
            if isinstance(arg.type, MemRefType):
                params.append(f"{c_type(arg.type)} restrict {name}")
            else:
                params.append(f"{c_type(arg.type)} {name}")
                if isinstance(arg.type, Float16Type):
                    self.values[arg] = f"xtvm_h2f({name})"  # f16 values are floats
        for var in self.func.shape_vars:  # after the buffers, as on the llvm path
            self.shape_vars[var] = self.names.fresh(var, "n")
            params.append(f"int64_t {self.shape_vars[var]}")
        self.block(self.func.body.block)
        body = self.frame.prologue + self.lines
        if self.exits_through_label:
            body.append("xtvm_exit:")
            body += [f"  free({p});" for p in self.frame.heap]
            body.append("  return xtvm_code;")
            body.insert(0, "  int32_t xtvm_code = 0;")
        signature = f"int32_t {impl_name(self.func)}({', '.join(params) or 'void'})"
        return "\n".join([f"{signature} {{", *body, "}"])

    def block(self, block: Block) -> None:
        for op in block.ops:
            try:
                self.op(op)
            except CTranslationError as e:
                e.op = e.op or op
                raise

    def op(self, op: Operation) -> None:
        statement = _STATEMENTS.get(type(op))
        if statement is not None:
            statement(self, op)
            return
        expression = EXPRESSIONS.get(type(op))
        if expression is None:
            raise CTranslationError(
                f"convert-tir-to-c: no C translation for {op.name} in {self.where}:\n{op}"
            )
        text = expression(op, [self.values[o] for o in op.operands])
        if isinstance(op, arith.ConstantOp):
            self.values[op.results[0]] = text  # a literal, used in place
            return
        if sub_byte_bits(ty := op.results[0].type):
            text = sub_byte(text, ty)  # the value extended from its bits, as held
        self.define(op.results[0], text)

    def define(self, value: SSAValue, text: str) -> None:
        name = self.names.fresh(value.name_hint)
        self.values[value] = name
        self.line(f"const {c_value_type(value.type)} {name} = {text};")

    def leave(self, code: int | str) -> None:
        """Return `code` from where we are (see the module docstring)."""
        if self.frame.error is not None:
            self.line(f"__atomic_store_n(&{self.frame.error}, {code}, __ATOMIC_RELAXED);")
            self.line(f"goto {self.frame.label};")
        elif self.exits_through_label:
            self.line(f"xtvm_code = {code};")
            self.line("goto xtvm_exit;")
        else:
            self.line(f"return {code};")

    # -- statements --------------------------------------------------------

    def for_(self, op: ForOp) -> None:
        kind = op.kind.data
        # Stores into packed sub-byte buffers rewrite shared bytes: serial
        # (as convert-tir-to-llvm does).
        if kind == "parallel" and not self.in_parallel and not stores_sub_byte(op):
            self.parallel_for(op)
            return
        if kind == "vectorized" and not _leaves(op) and not touches_sub_byte(op):
            if write_vectorized(self, op):  # straight-line vector code (vector.py)
                return
            self.line("#pragma omp simd")
        elif kind == "unrolled":
            extent = _constant_extent(op)
            if extent is not None and extent <= 64:
                self.line(f"#pragma GCC unroll {extent}")
        self.loop(op)

    def loop(self, op: ForOp) -> None:
        iv = self.names.fresh(op.induction_var.name_hint, "i")
        self.values[op.induction_var] = iv
        lb, ub = self.values[op.lb], self.values[op.ub]
        self.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; ++{iv}) {{")
        self.depth += 1
        self.block(op.body.block)
        self.depth -= 1
        self.line("}")

    def parallel_for(self, op: ForOp) -> None:
        """The outermost parallel loop (see the module docstring)."""
        self.uses_openmp = True
        k = self.parallel_loops
        self.parallel_loops += 1
        outer, leaves = self.frame, _leaves(op)
        frame = _Frame()
        if leaves:
            frame.error, frame.label = f"xtvm_error{k}", f"xtvm_iteration_end{k}"
            self.line(f"int32_t {frame.error} = 0;")
        self.line(
            f"#pragma omp parallel for schedule(static) "
            f"num_threads({NUM_THREADS} > 0 ? {NUM_THREADS} : omp_get_max_threads())"
        )
        iv = self.names.fresh(op.induction_var.name_hint, "i")
        self.values[op.induction_var] = iv
        lb, ub = self.values[op.lb], self.values[op.ub]
        self.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; ++{iv}) {{")
        self.depth += 1
        self.frame, self.in_parallel = frame, True
        start = len(self.lines)
        self.block(op.body.block)
        self.frame, self.in_parallel = outer, False
        self.lines[start:start] = frame.prologue
        if frame.label is not None:
            self.line(f"{frame.label}:;")
        for p in frame.heap:
            self.line(f"free({p});")
        self.depth -= 1
        self.line("}")
        if frame.error is not None:
            self.line(f"if ({frame.error} != 0) {{")
            self.depth += 1
            self.leave(frame.error)
            self.depth -= 1
            self.line("}")

    def if_(self, op: IfOp) -> None:
        self.line(f"if ({self.values[op.cond]}) {{")
        self.depth += 1
        self.block(op.then_region.block)
        self.depth -= 1
        if op.else_region.blocks:
            self.line("} else {")
            self.depth += 1
            self.block(op.else_region.block)
            self.depth -= 1
        self.line("}")

    def element(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> str:
        """`buffer[offset]`, the offset row-major over the buffer's shape."""
        return f"{self.values[buffer]}[{self.offset(buffer, indices)}]"

    def offset(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> str:
        """The row-major element offset of `indices` in `buffer`."""
        ty = buffer.type
        assert isinstance(ty, MemRefType)
        return row_major_offset(
            [self.values[i] for i in indices],
            ty.get_shape(),
            lambda index, stride: f"{index} * {stride}",
            lambda total, term: f"{total} + {term}",
            lambda: "0",
        )

    def packed(self, op: LoadOp | StoreOp, bits: int) -> tuple[str, str]:
        """The packed byte of a sub-byte element and its bit offset in it, as
        `convert-tir-to-llvm` reads them (`tir_to_llvm/sub_byte.py`)."""
        k = self.names.fresh("k")
        self.line(f"const int64_t {k} = {self.offset(op.buffer, op.indices)};")
        per_byte = 8 // bits
        byte = f"{self.values[op.buffer]}[{k} >> {per_byte.bit_length() - 1}]"
        return byte, f"(({k} & {per_byte - 1}) * {bits})"

    def load(self, op: LoadOp) -> None:
        if bits := buffer_bits(op.buffer):
            byte, shift = self.packed(op, bits)
            self.define(op.res, sub_byte(f"{byte} >> {shift}", op.res.type))
            return
        element = self.element(op.buffer, op.indices)
        if is_prefetch_address(op):  # read by nothing but a prefetch: its address
            self.values[op.res] = f"&{element}"
            return
        half = isinstance(op.res.type, Float16Type)
        self.define(op.res, f"xtvm_h2f({element})" if half else element)

    def store(self, op: StoreOp) -> None:
        value = self.values[op.value]
        if bits := buffer_bits(op.buffer):  # keep the byte's other elements
            byte, shift = self.packed(op, bits)
            mask = (1 << bits) - 1
            kept = f"({byte} & ~({mask} << {shift}))"
            self.line(f"{byte} = (uint8_t)({kept} | ((((uint8_t){value}) & {mask}) << {shift}));")
            return
        if isinstance(op.value.type, Float16Type):
            value = f"xtvm_f2h({value})"
        self.line(f"{self.element(op.buffer, op.indices)} = {value};")

    def shape_var(self, op: ShapeVarOp) -> None:
        self.values[op.res] = self.shape_vars[op.var_name.data]

    def allocate(self, op: AllocateOp) -> None:
        if op.sizes:
            self.allocate_dynamic(op)
            return
        ty = op.res.type
        assert isinstance(ty, MemRefType)
        element = buffer_element(ty.element_type)
        count = max(_element_count(ty), 1)
        name = self.names.fresh(op.res.name_hint, "buf")
        self.values[op.res] = name
        nbytes = _allocation_bytes(op)
        if nbytes <= STACK_LIMIT_BYTES:
            self.line(f"{element} {name}[{count}] __attribute__((aligned({HEAP_ALIGNMENT})));")
            return
        rounded = -(-nbytes // HEAP_ALIGNMENT) * HEAP_ALIGNMENT
        self.frame.prologue.append(
            "  " * (self.depth if self.in_parallel else 1)
            + f"{element}* restrict {name} = ({element}*)aligned_alloc({HEAP_ALIGNMENT}, {rounded});"
        )
        self.frame.heap.append(name)

    def allocate_dynamic(self, op: AllocateOp) -> None:
        """A buffer of run-time size, as on the llvm path: made where it stands
        by `aligned_alloc` (bytes rounded up to the alignment, plus one line,
        so 0 bytes never reaches it), NULL until then and freed at every exit;
        its failing is an assert's error, counted in the same order. (The
        verifier keeps it directly in the prim_func body: made once.)"""
        ty = op.res.type
        assert isinstance(ty, MemRefType)
        element = buffer_element(ty.element_type)
        static = math.prod(d for d in ty.get_shape() if d >= 0)
        count = " * ".join([f"(int64_t){static}", *(f"(int64_t)({self.values[v]})" for v in op.sizes)])
        name = self.names.fresh(op.res.name_hint, "buf")
        self.values[op.res] = name
        self.frame.prologue.append(f"  {element}* restrict {name} = NULL;")
        self.frame.heap.append(name)
        mask = HEAP_ALIGNMENT - 1
        nbytes = f"(({count} * (int64_t)sizeof({element}) + {HEAP_ALIGNMENT + mask}) & ~(int64_t){mask})"
        self.line(f"{name} = ({element}*)aligned_alloc({HEAP_ALIGNMENT}, (size_t){nbytes});")
        code = f"({ASSERT_KIND} << 16) | {self.asserts}"
        self.asserts += 1
        self.line(f"if ({name} == NULL) {{  // out of memory")
        self.depth += 1
        self.leave(f"({code})")
        self.depth -= 1
        self.line("}")

    def assert_(self, op: AssertOp) -> None:
        code = f"({ASSERT_KIND} << 16) | {self.asserts}"
        self.asserts += 1
        self.line(f"if (!({self.values[op.cond]})) {{  // {_comment(op.message.data)}")
        self.depth += 1
        self.leave(f"({code})")
        self.depth -= 1
        self.line("}")

    def call_extern(self, op: CallExternOp) -> None:
        callee = op.callee.data
        if any(isinstance(v.type, Float16Type) for v in (*op.args, *op.res)):
            raise CTranslationError(f"convert-tir-to-c: {callee} takes or returns f16, unsupported")
        if not is_c_identifier(callee):
            raise CTranslationError(f"convert-tir-to-c: cannot call {callee!r} from C")
        result = c_type(op.res[0].type) if op.res else "void"
        params = ", ".join(c_type(a.type) for a in op.args) or "void"
        prototype = f"extern {result} {callee}({params});"
        if self.externs.setdefault(callee, prototype) != prototype:
            raise CTranslationError(
                f"convert-tir-to-c: {callee} is called with two signatures in {self.where}"
            )
        call = f"{callee}({', '.join(self.values[a] for a in op.args)})"
        if op.res:
            self.define(op.res[0], call)
        else:
            self.line(f"{call};")

    def call_intrin(self, op: CallIntrinOp) -> None:
        if op.callee.data == PREFETCH:  # GCC's and Clang's builtin takes constant hints
            rw, locality = (int_constant(a) for a in op.args[1:3])
            self.line(f"__builtin_prefetch({self.values[op.args[0]]}, {rw}, {locality});")
            return
        text = intrinsic_expression(op, [self.values[a] for a in op.args])
        if op.res:
            self.define(op.res[0], text)
        else:
            self.line(f"{text};")

    def return_(self, op: ReturnOp) -> None:
        self.leave(0)

    def yield_(self, op: YieldOp) -> None:
        """A region's end: nothing to write."""


def _called_functions(func: PrimFuncOp) -> set[str]:
    """Every function name the C of `func` may call (libm, externs)."""
    names = {n + suffix for n in LIBM_NAMES.values() for suffix in ("", "f")}
    names |= {"aligned_alloc", "free", "omp_get_max_threads"}
    return names | {op.callee.data for op in func.walk() if isinstance(op, CallExternOp)}


def _constant_extent(op: ForOp) -> int | None:
    bounds = []
    for value in (op.lb, op.ub):
        owner = value.owner
        if not isinstance(owner, arith.ConstantOp):
            return None
        bounds.append(owner.value.value.data)  # type: ignore[union-attr]
    return bounds[1] - bounds[0]


def _allocation_bytes(op: AllocateOp) -> int:
    ty = op.res.type
    assert isinstance(ty, MemRefType)
    element = buffer_element(ty.element_type)
    size = {"bool": 1, "float": 4, "double": 8}.get(element)
    size = size or int(re.sub(r"\D", "", element)) // 8
    return max(_element_count(ty), 1) * size


def _element_count(ty: MemRefType) -> int:
    """Elements of a buffer's C array: its packed bytes for a sub-byte type."""
    count = math.prod(ty.get_shape())
    packed = storage_nbytes(ty.element_type, count)
    return count if packed is None else packed


def _comment(text: str) -> str:
    return text.replace("*/", "* /").replace("\n", " ")[:100]


_STATEMENTS = {
    ForOp: FunctionWriter.for_,
    IfOp: FunctionWriter.if_,
    LoadOp: FunctionWriter.load,
    StoreOp: FunctionWriter.store,
    AllocateOp: FunctionWriter.allocate,
    ShapeVarOp: FunctionWriter.shape_var,
    AssertOp: FunctionWriter.assert_,
    CallExternOp: FunctionWriter.call_extern,
    CallIntrinOp: FunctionWriter.call_intrin,
    ReturnOp: FunctionWriter.return_,
    YieldOp: FunctionWriter.yield_,
}
"""The `tir` ops of a prim_func body as C statements; `arith`/`math` ops go
through `scalar.EXPRESSIONS`."""
