"""xtvm-compile: compile a model to a shared library, or print the IR of one
pipeline stage.

The model is an ONNX file, or a module in xtvm's textual IR (.mlir: relay
with its graph function func.func @main, or a file that --emit printed at
any later stage, which compiles on from where it is).

  xtvm-compile model.onnx --shape data=1,784 -o model.so [--header model.h]
  xtvm-compile model.onnx --shape data=1,784 --emit tir [-o tir.mlir]
  xtvm-compile model.onnx -o model.so --tuning-records records.json   (xtvm-tune's best schedules)
  xtvm-compile model.onnx --emit relay-opt --elide-large-constants   (for reading)
  xtvm-run model.so --fill random

-o writes the library, which xtvm.runtime.load_module (or xtvm-run) loads
in a fresh process and whose AOT entry a C program calls (docs/abi.md).
--emit STAGE prints that stage's IR instead (relay, relay-opt, tir,
memory-alloc, memory, llvm-dialect, llvm-ir; with --target c, also c: the
C source of the kernels, docs/c-target.md). Every stage but llvm-ir
parses again with xtvm-opt; its first line is the command that reproduces
it, its second the xtvm-opt pipeline that takes it to the next stage. The output holds the whole program: the weights are constants in the
module (--emit relay binds them into @main), large ones as dense_resource
blobs (xtvm.ir.printing), so compiling the file gives the same model.
--elide-large-constants[=N] leaves constants of more than N elements out
(dense_resource<__elided__>); such a file does not compile.

An input with a symbolic dimension (a batch size 'N') needs --shape; a ?
there (--shape data=?,784) keeps it dynamic, for the VM (docs/vm.md). Errors
are one message: a bad .mlir file's names file:line:col and prints the line.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path

from xtvm.driver.pipeline import STAGE_NAMES
from xtvm.ir.printing import ELIDE_DEFAULT


def parse_shapes(items: Sequence[str]) -> dict[str, tuple[int | None, ...]]:
    """``--shape NAME=D0,D1,...`` arguments as ``{NAME: (D0, D1, ...)}``; a
    ``?`` dimension is ``None`` (dynamic: the model compiles for the VM)."""
    shapes = {}
    for item in items:
        name, _, dims = item.partition("=")
        try:
            shape = tuple(None if d.strip() == "?" else int(d) for d in dims.split(","))
        except ValueError:
            shape = ()
        if not name or not shape or any(d is not None and d < 0 for d in shape):
            raise ValueError(
                f"--shape expects NAME=D0,D1,... with integer dimensions separated by "
                f"commas (e.g. data=1,784), got '{item}'"
            )
        shapes[name] = shape
    return shapes


def load_model(path: Path, shapes: dict[str, tuple[int, ...]]):
    """(relay module, params) from an ONNX file or a textual relay module."""
    if path.suffix == ".mlir":
        from xtvm.driver.build_module import check_entry
        from xtvm.ir.diagnostics import InvalidIRError, verify_module
        from xtvm.ir.parse import parse_module
        from xtvm.ir.resources import check_not_elided

        text = path.read_text()
        module = parse_module(text, str(path))
        try:
            verify_module(module)
        except InvalidIRError as e:
            raise InvalidIRError([d.with_source(text) for d in e.diagnostics]) from None
        check_not_elided(module)
        check_entry(module, str(path))
        return module, {}
    from xtvm.frontend import from_onnx

    return from_onnx(str(path), shape=shapes or None)


def check_writable(path: Path | None) -> None:
    """An output file that cannot be written is an error before any work."""
    import os

    if path is None:
        return
    if path.is_dir():
        raise ValueError(f"cannot write '{path}': it is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"cannot write '{path}': the directory '{parent}' does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"cannot write '{path}': permission denied")


def next_stage_comment(stage: str, executor: str = "graph") -> str:
    """The comment line giving the ``xtvm-opt`` pipeline from ``stage`` to the
    next stage (with the passes the active ``PassContext`` enables for
    ``executor``; a stage with none for it is skipped), or ""."""
    from xtvm.driver.pipeline import enabled, next_stage, pipeline_string, stage_steps

    after = next_stage(stage) if stage != "llvm-ir" else None
    steps = []
    while after is not None:
        steps = [s for s in enabled(stage_steps(after)) if s.executor in (None, executor)]
        if steps:
            break
        after = next_stage(after)
    if after is None:
        return ""
    spec = pipeline_string(steps)
    return f"// next stage ({after}): xtvm-opt FILE -p '{spec}'\n"


def make_parser() -> argparse.ArgumentParser:
    """The command line: the module docstring as the description, every flag documented."""
    parser = argparse.ArgumentParser(
        prog="xtvm-compile", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("model", type=Path, help="an .onnx model, or a module of xtvm IR (.mlir)")
    parser.add_argument(
        "-o", "--output", type=Path,
        help="the shared library to write (.so); with --emit, the IR file (default: stdout)",
    )
    parser.add_argument(
        "--target", default="llvm",
        help="the target: 'llvm' (or 'c': kernels as C source compiled by cc) and options "
        "-mcpu=CPU (default: the host's), -mattr=+FEATURE,... "
        "-num-cores=N (default: all; 1: no threads), -mtriple=TRIPLE; "
        "e.g. 'llvm -mcpu=haswell -num-cores=1'",
    )
    parser.add_argument(
        "--emit", choices=[*STAGE_NAMES, "c"], metavar="STAGE",
        help=f"print the IR of this pipeline stage instead of compiling: {', '.join(STAGE_NAMES)}; "
        "c: the kernels' C source (--target c)",
    )
    parser.add_argument(
        "--executor", choices=["graph", "vm"], default=None,
        help="graph: the graph executor and AOT entry (default for static shapes); vm: the "
        "virtual machine (default for '?' dimensions and vm-stage files; docs/vm.md)",
    )
    parser.add_argument(
        "--byoc", action="append", default=[], choices=["dnnl", "ccompiler"], metavar="CODEGEN",
        help="offload the regions an external codegen takes (dnnl: oneDNN, ccompiler: C), in "
        "the order given; --emit relay-partitioned shows the regions (docs/byoc.md)",
    )
    parser.add_argument(
        "--shape", action="append", default=[], metavar="NAME=D0,D1,...",
        help="the static shape of ONNX input NAME (for symbolic dimensions); repeat per input",
    )
    parser.add_argument(
        "--opt-level", type=int, default=3, choices=range(4), metavar="{0,1,2,3}",
        help="the PassContext opt_level: passes above it are skipped (default: 3)",
    )
    parser.add_argument(
        "--tuning-records", type=Path, metavar="RECORDS.json",
        help="schedule each kernel with its best config in these tuning records (xtvm-tune; "
        "docs/tuning.md); kernels without a record keep the hand-written schedule",
    )
    parser.add_argument(
        "--header", type=Path, metavar="FILE.h",
        help="with -o: also write the C header of the library's AOT entry (docs/abi.md)",
    )
    parser.add_argument(
        "--elide-large-constants", type=int, nargs="?", const=ELIDE_DEFAULT, metavar="N",
        help=f"with --emit: print constants of more than N ({ELIDE_DEFAULT}) elements as "
        "dense_resource<__elided__> (for reading; the file does not compile)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``xtvm-compile``; every user error is a message and exit code 1."""
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.emit is None and args.output is None:
        parser.error("give -o OUTPUT.so, or --emit STAGE")
    if args.emit == "vm":
        if args.executor == "graph":
            parser.error("--emit vm prints the VM program: use --executor vm")
        args.executor = "vm"
    if args.header is not None and args.executor == "vm":
        parser.error("--header describes the graph executor's AOT entry; a VM library has none")
    if args.header is not None and args.emit is not None:
        parser.error("--header writes the C header of a library: give -o OUTPUT.so, not --emit")
    if args.emit == "c" and not args.target.split()[:1] == ["c"]:
        parser.error("--emit c prints the C source of the c target: add --target c")
    if args.elide_large_constants is not None and args.emit in (None, "llvm-ir", "c"):
        parser.error("--elide-large-constants needs --emit with an IR stage")
    try:
        run(args, argv)
    except Exception as e:
        message = error_message(e)
        if message is None:
            raise
        print(message, file=sys.stderr)
        sys.exit(1)


def error_message(e: Exception) -> str | None:
    """What ``xtvm-compile`` prints for a user error, None for a bug."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from xtvm.frontend.onnx.common import OnnxStaticShapeRequired
    from xtvm.ir.diagnostics import TOO_DEEP, Diagnostic, InvalidIRError

    if isinstance(e, ParseError):
        return Diagnostic.from_parse_error(e).render()
    if isinstance(e, RecursionError):
        return f"xtvm-compile: error: {TOO_DEEP}"
    if isinstance(e, InvalidIRError):
        return "\n".join(d.render() for d in e.diagnostics)
    if isinstance(e, OnnxStaticShapeRequired):
        dims = ",".join(map(str, e.example))
        return f"xtvm-compile: error: {e.problem}: give its static shape, e.g. --shape {e.input_name}={dims}"
    if isinstance(e, OSError) and e.filename is not None:
        return f"xtvm-compile: error: {e.strerror}: {e.filename}"
    from xtvm.codegen import CodegenError  # a bad -mcpu/-mattr, a failed link

    if isinstance(e, ValueError | KeyError | OSError | DiagnosticException | CodegenError):
        return f"xtvm-compile: error: {e}"
    return None


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> None:
    from xtvm.driver.build_module import bind_params, build, choose_executor, lower
    from xtvm.ir.printing import module_text
    from xtvm.target import Target
    from xtvm.transform import PassContext

    for path in (args.output, args.header):
        check_writable(path)  # before the compile, not after it
    module, params = load_model(args.model, parse_shapes(args.shape))
    executor = choose_executor(module, args.executor)
    tuning = contextlib.nullcontext()
    if args.tuning_records is not None:
        from xtvm.tuning.record import apply_history_best

        if not args.tuning_records.is_file():
            raise ValueError(f"--tuning-records: no such file: {args.tuning_records}")
        tuning = apply_history_best(str(args.tuning_records))
    config = {"relay.ext.targets": tuple(args.byoc)} if args.byoc else {}
    with PassContext(opt_level=args.opt_level, config=config), Target.of(args.target), tuning:
        if args.emit is None:
            lib = build(module, target=args.target, params=params, executor=executor)
            # The library holds what it runs; the imported weights (in their
            # layouts before packing) need not stay in memory beside the linker's.
            del module, params
            lib.export_library(str(args.output))
            print(f"wrote {args.output}")
            if args.header is not None:
                from xtvm.codegen.c_header import make_header

                args.header.write_text(make_header(lib.header.get("entry")))
                print(f"wrote {args.header}")
            return
        command = " ".join(["xtvm-compile", *(argv if argv is not None else sys.argv[1:])])
        if args.emit == "llvm-ir":
            from xtvm.codegen import emit_llvm_ir

            text = emit_llvm_ir(lower(module, params, executor=executor)) + "\n"
        elif args.emit == "c":
            from xtvm.lowering.tir_to_c import emit_c

            text = emit_c(lower(module, params))
        else:
            if args.emit == "relay":
                if params:
                    bind_params(module, params)  # the file alone is the whole program
            else:
                module = lower(module, params, args.emit, executor=executor)
            text = module_text(module, elide_larger_than=args.elide_large_constants)
        after = next_stage_comment(args.emit, executor) if args.emit != "c" else ""
    comment = ";" if args.emit == "llvm-ir" else "//"
    out = f"{comment} {command}\n{after}{text}"
    if args.output:
        args.output.write_text(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
