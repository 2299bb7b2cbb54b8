"""The compilation pipeline on one page: TVM's ``relay.build`` as an ordered
list of named stages, each a list of passes with a one-line reason.

Every stage's output is textual IR that ``xtvm-opt`` parses again;
``xtvm-compile --emit <stage>`` stops after any of them. Passes below the
active ``PassContext``'s ``opt_level`` or in its ``disabled_pass`` are
skipped; ``required`` passes always run (the lowering cannot do without
them).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass

from xtvm.passes.registry import PASSES
from xtvm.transform import PassContext


@dataclass(frozen=True)
class Step:
    """One pass of the pipeline: its name (with options), the minimum
    ``opt_level`` it runs at, whether it may be disabled, and why it is there."""

    spec: str
    opt_level: int
    why: str
    required: bool = False
    graph_only: bool = False
    """The pass changes graph functions only (never a kernel), so verifying
    its result need not walk the kernels again."""
    byoc: bool = False
    """A partitioning step (docs/byoc.md): it runs only when the PassContext
    config ``relay.ext.targets`` names external codegens."""
    target_kind: str | None = None
    """The step runs only when the current target is of this kind (None: always)."""
    executor: str | None = None
    """The step runs only for this executor ("graph" or "vm"; None: both)."""

    @property
    def name(self) -> str:
        return self.spec.split("{", 1)[0]


@dataclass(frozen=True)
class Stage:
    """A named point of the pipeline whose IR ``--emit`` can print."""

    name: str
    steps: tuple[Step, ...]
    what: str


STAGES: tuple[Stage, ...] = (
    Stage("relay", (), "the graph as imported: relay ops in func.func @main"),
    Stage(
        "relay-partitioned",
        (
            Step("relay-infer-type", 0, "make every result type exact", required=True),
            Step(
                "qnn-fake-quantization-to-integer",
                0,
                "dequantize → op → quantize regions become qnn ops (integer compute)",
                True,
            ),
            Step("qnn-canonicalize", 0, "qnn ops become integer relay ops", required=True),
            Step("relay-simplify-inference", 0, "batch norm → scale/shift, dropout → identity", True),
            Step("relay-simplify-expr", 1, "algebraic identities (x+0, reshape∘reshape, ...)"),
            Step("relay-fold-constant", 2, "evaluate constant subgraphs (weights, shapes)"),
            Step("relay-fold-scale-axis", 3, "fold per-channel scales into conv weights"),
            Step(
                "relay-fold-scale-axis",
                0,
                "byoc at any opt level (as TVM's partition_for_dnnl): scales into conv weights, "
                "so conv2d + bias + relu is one composite",
                byoc=True,
            ),
            Step("relay-fold-constant", 0, "fold the scaled weights", byoc=True),
            Step("relay-merge-composite", 0, "external codegens' patterns → composites", byoc=True),
            Step("relay-annotate-target", 0, "mark the ops external codegens take", byoc=True),
            Step("relay-merge-compiler-regions", 0, "grow regions, never a cycle", byoc=True),
            Step("relay-partition-graph", 0, "each region → a relay.compiler function", byoc=True),
        ),
        "the graph partitioned for external codegens (byoc): regions outlined as "
        "func.func marked relay.compiler",
    ),
    Stage(
        "relay-opt",
        (
            Step(
                "relay-external-codegen",
                0,
                "each region → an external C kernel (a relay-partitioned file needs no --byoc)",
                required=True,
            ),
            Step("relay-alter-op-layout", 2, "pack conv2d/dense weights for the x86 kernels"),
            Step("relay-int8-nchwc", 2, "int8 convs on blocked u8 activations, kept blocked"),
            Step(
                "relay-convert-layout",
                2,
                "float convs on blocked NCHW<c>c activations, kept blocked (>= 8 f32 lanes)",
            ),
            Step("relay-fold-constant", 2, "fold the scaled and packed weights"),
            Step("relay-eliminate-common-subexpr", 3, "merge equal ops and constants"),
            Step("relay-dead-code-elimination", 1, "drop what nothing uses"),
            Step("relay-fuse-ops", 1, "group ops into kernels by TVM's fusion rules"),
        ),
        "optimised relay, fused groups outlined as primitive functions",
    ),
    Stage(
        "tir",
        (
            Step("convert-relay-to-tir", 0, "each primitive function becomes a tir.prim_func", True),
            Step("tir-flatten-buffer", 0, "N-d buffers become 1-d with explicit indexing", True),
            Step("tir-simplify", 1, "fold index arithmetic, drop unit loops"),
            Step("tir-unroll-loop", 1, "unroll small loops (PassContext tir.UnrollLoop)"),
        ),
        "loop programs, called from the graph with relay.call_lowered",
    ),
    Stage(
        "memory-alloc",
        (
            Step(
                "vm-manifest-value-shapes",
                0,
                "results sized by input values allocated from their shape kernels (executor='vm' only)",
                required=True,
                graph_only=True,
                executor="vm",
            ),
            Step(
                "vm-manifest-dynamic-alloc",
                0,
                "results with ? dimensions allocated at run time (executor='vm' only)",
                required=True,
                graph_only=True,
                executor="vm",
            ),
            Step(
                "vm-share-dynamic-storage",
                0,
                "a ? tensor reuses the storage of a dead one provably as large (executor='vm' only)",
                graph_only=True,
                executor="vm",
            ),
            Step(
                "memory-manifest-alloc",
                0,
                "every intermediate tensor an explicit allocation",
                required=True,
                graph_only=True,
            ),
        ),
        "destination-passing kernel calls, one storage per intermediate tensor (unplanned)",
    ),
    Stage(
        "memory",
        (
            Step(
                "memory-concat-in-place",
                1,
                "concatenation inputs written in place into its output (no copy)",
                graph_only=True,
                executor="graph",
            ),
            Step(
                "memory-plan",
                0,
                "tensors with disjoint lifetimes share one static arena",
                required=True,
                graph_only=True,
            ),
        ),
        "destination-passing kernel calls into a planned arena (offsets in the IR)",
    ),
    Stage(
        "vm",
        (
            Step(
                "convert-memory-to-vm",
                0,
                "@main → VM instructions over registers (executor='vm' only)",
                required=True,
                graph_only=True,
                executor="vm",
            ),
        ),
        "the VM program (executor='vm'): vm.func @main, kernels as tir.prim_func",
    ),
    Stage(
        "llvm-dialect",
        (
            Step(
                "convert-memory-to-llvm",
                0,
                "@main → the AOT entry over the planned workspace",
                True,
                executor="graph",
            ),
            Step(
                "vm-embed-executable",
                0,
                "vm functions → the VM executable, a data global of the kernel library",
                True,
                executor="vm",
            ),
            Step("llvm-embed-metadata", 0, "describe kernels, graph and weights for the runtime", True),
            Step("convert-tir-to-c", 0, "kernels to C source (target c)", True, target_kind="c"),
            Step("convert-tir-to-llvm", 0, "loops, buffers and maths to llvm ops", True),
        ),
        "xDSL's llvm dialect: the whole program (kernels, AOT entry, weights, metadata)",
    ),
)

STAGE_NAMES = [s.name for s in STAGES] + ["llvm-ir"]


def stage_index(stage: str) -> int:
    """The position of a stage in :data:`STAGES` (``llvm-ir`` after the last)."""
    if stage not in STAGE_NAMES:
        raise ValueError(f"unknown stage '{stage}' (stages: {', '.join(STAGE_NAMES)})")
    return STAGE_NAMES.index(stage)


def steps_between(start: str | None, stop: str) -> list[Step]:
    """Every step after stage ``start`` (None: from the beginning) up to and
    including stage ``stop``."""
    first = stage_index(start) + 1 if start is not None else 0
    return [step for s in STAGES[first : stage_index(stop) + 1] for step in s.steps]


def stage_steps(stage: str) -> tuple[Step, ...]:
    """The steps that produce ``stage`` from the stage before it."""
    index = stage_index(stage)
    if index >= len(STAGES):
        raise ValueError(f"'{stage}' is made by LLVM, not by passes")
    return STAGES[index].steps


def next_stage(stage: str) -> str | None:
    """The MLIR stage after ``stage`` (None after the last one)."""
    index = stage_index(stage) + 1
    return STAGES[index].name if index < len(STAGES) else None


def pipeline_string(steps: Sequence[Step]) -> str:
    """The ``xtvm-opt -p`` string that runs ``steps``."""
    return ",".join(s.spec for s in steps)


def detect_stage(module: ModuleOp, entry: str = "main") -> str:
    """The stage a module is at, read off its ops: the stage of a file that
    ``xtvm-compile --emit STAGE`` printed.

    * ``llvm-dialect``: no ``tir.prim_func`` and no graph function left;
    * ``vm``: the module holds a ``vm.func``;
    * ``memory``/``memory-alloc``: ``@entry`` holds ``memory`` ops (planned:
      ``memory.planned_bytes`` on it, or not);
    * ``tir``: the kernels are ``tir.prim_func``s;
    * ``relay-opt``: fused groups are outlined (``relay.primitive``);
    * ``relay-partitioned``: regions for external codegens are outlined
      (``relay.compiler``);
    * ``relay``: anything else.
    """
    from xdsl.dialects import func

    from xtvm.dialects.relay.primitive import PRIMITIVE_ATTR

    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    graph = next((f for f in funcs if f.sym_name.data == entry), None)
    prim_funcs = any(  # external (byoc) kernels are made at relay-opt already
        op.name == "tir.prim_func" and "tir.external" not in op.attributes for op in module.ops
    )
    if graph is None and not prim_funcs and any(op.name == "llvm.func" for op in module.ops):
        return "llvm-dialect"
    if any(op.name == "vm.func" for op in module.ops):
        return "vm"
    if graph is not None and any(op.dialect_name() == "memory" for op in graph.walk()):
        return "memory" if "memory.planned_bytes" in graph.attributes else "memory-alloc"
    if prim_funcs:
        return "tir"
    if any(PRIMITIVE_ATTR in f.attributes for f in funcs):
        return "relay-opt"
    if any("relay.compiler" in f.attributes for f in funcs):
        return "relay-partitioned"
    return "relay"


def enabled(steps: Sequence[Step], ctx: PassContext | None = None) -> list[Step]:
    """The steps the pass context lets run, for the current target's kind."""
    from xtvm.target import Target

    ctx = ctx or PassContext.current()
    kind = Target.current().kind
    return [
        _with_targets(s, ctx)
        for s in steps
        if (s.target_kind is None or s.target_kind == kind)
        and (s.required or ctx.pass_enabled(s.name, s.opt_level))
        and (not s.byoc or ctx.config.get(BYOC_TARGETS_CONFIG))
    ]


BYOC_TARGETS_CONFIG = "relay.ext.targets"
"""The PassContext config naming a build's external codegens
(``xtvm.byoc.registry.TARGETS_CONFIG``)."""


def _with_targets(step: Step, ctx: PassContext) -> Step:
    """A partitioning step that takes ``targets``, with the context's spelled
    out (so the printed pipeline reproduces the stage)."""
    if step.byoc and step.name in ("relay-merge-composite", "relay-annotate-target"):
        targets = ",".join(ctx.config[BYOC_TARGETS_CONFIG])
        return replace(step, spec=f"{step.spec}{{targets={targets}}}")
    return step


COMPILE_GC_THRESHOLDS = (50_000, 20, 100)
"""Python's cyclic GC thresholds while passes run (the default is (700, 10, 10))."""


@contextmanager
def compile_gc() -> Iterator[None]:
    """Python's cyclic garbage collector, tuned for compiling: a model's IR is
    millions of small long-lived objects, which the default thresholds
    traverse again and again (a fifth of ResNet-50's compile time went to
    collections). Collections are rarer while passes run; the thresholds are
    restored after."""
    old = gc.get_threshold()
    gc.set_threshold(*(max(a, b) for a, b in zip(old, COMPILE_GC_THRESHOLDS)))
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run_steps(
    module: ModuleOp,
    steps: Sequence[Step],
    on_pass: Callable[[Step, ModuleOp], None] | None = None,
    verify: bool = True,
) -> None:
    """Apply steps to the module in place and verify the result (if
    ``verify``) after the last step, or after each one when ``on_pass`` looks
    at every step's IR or the pass context's ``verify_each_pass`` config is
    set (verification of a large unrolled module costs seconds). After steps
    that are all ``graph_only``, the default verification skips the kernels
    (``tir.prim_func``, ``llvm.func``), which those steps leave as they were;
    ``verify_each_pass`` verifies everything."""
    if not steps:  # nothing changed the module (e.g. the vm stage of a graph build)
        return
    ctx = mlir_context()
    each = on_pass is not None or PassContext.current().config.get("verify_each_pass", False)
    with compile_gc():
        for step in steps:
            pass_: ModulePass = _instantiate(step.spec)
            pass_.apply(ctx, module)
            if each:
                module.verify()
            if on_pass is not None:
                on_pass(step, module)
        if verify and not each:
            if steps and all(step.graph_only for step in steps):
                _verify_graph(module)
            else:
                module.verify()


KERNEL_OPS = frozenset({"tir.prim_func", "llvm.func"})


def _verify_graph(module: ModuleOp) -> None:
    """Verify the module op itself and every top-level op but the kernels."""
    module.verify(verify_nested_ops=False)
    for op in module.ops:
        if op.name not in KERNEL_OPS:
            op.verify()


def _instantiate(spec: str) -> ModulePass:
    from xdsl.utils.arg_spec import parse_pipeline

    (pass_spec,) = list(parse_pipeline(spec))
    try:
        factory = PASSES[pass_spec.name]
    except KeyError:
        raise ValueError(f"unknown pass '{pass_spec.name}'") from None
    return factory().from_pass_spec(pass_spec)


def mlir_context() -> Context:
    """A new context with every builtin and xtvm dialect registered (lazily)."""
    ctx = Context()
    for name, factory in _dialect_factories():
        ctx.register_dialect(name, factory)
    return ctx


@functools.cache
def _dialect_factories() -> tuple[tuple[str, Callable[[], Dialect]], ...]:
    """xDSL's dialects (its multiverse reads the installed packages' entry
    points: 10 ms a context, which a build made once per pass and per
    kernel stub), then xtvm's, read once per process."""
    from xdsl.universe import Universe

    from xtvm.dialects.registry import DIALECTS

    found = dict(Universe.get_multiverse().all_dialects)
    for name, factory in DIALECTS.items():
        found.setdefault(name, factory)
    return tuple(found.items())
