"""``xtvm-opt``: textual IR in, passes, textual IR out (xtvm's ``mlir-opt``).

```
xtvm-opt model.mlir -p 'relay-infer-type,relay-fuse-ops{max-depth=8}' -o out.mlir
xtvm-opt invalid.mlir --split-input-file --verify-diagnostics
xtvm-opt model.mlir -p relay-fold-constant --print-ir-after-all
xtvm-opt --list-passes
cat model.mlir | xtvm-opt - -p relay-fold-constant
```

It is xDSL's ``xdsl-opt`` with xtvm's dialects and passes registered, and
with diagnostics a compiler engineer can act on: a parse error, a verifier
error (every failing op, not only the first) and a failed pass each print
``file:line:col: error: ...``, the source line and a caret, and exit 1 —
never a Python traceback. With ``--split-input-file`` every chunk is
processed and every bad chunk reported, with the line numbers of the file.
``--verify-diagnostics`` checks the diagnostics against the file's
``// expected-error {{...}}`` annotations, as MLIR's does
(:mod:`xtvm.tools.verify_diagnostics`).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline, get_pass_option_infos
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    ShrinkException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from xtvm.dialects.registry import DIALECTS
from xtvm.ir.diagnostics import (
    TOO_DEEP,
    Diagnostic,
    InvalidIRError,
    failure_diagnostic,
    verify_module,
)
from xtvm.ir.parse import parse_module, split_input
from xtvm.ir.printing import ELIDE_DEFAULT, print_module
from xtvm.passes.registry import PASSES
from xtvm.tools.verify_diagnostics import check_diagnostics, parse_expectations


def print_c(module: ModuleOp, output: IO[str]) -> None:
    """``-t c``: the C source of the module's kernels (prim_funcs, or the C
    that ``convert-tir-to-c`` left on declarations), as ``xtvm-compile
    --target c --emit c`` prints it; a construct without a C translation is
    an error message naming it."""
    from xtvm.lowering.tir_to_c import CTranslationError, emit_c

    try:
        output.write(emit_c(module))
    except CTranslationError as e:
        print(f"xtvm-opt: error: {e}", file=sys.stderr)
        sys.exit(1)


class XtvmOptMain(xDSLOptMain):
    """xdsl-opt with xtvm's registries, located diagnostics and IR dumps."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in DIALECTS.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        self.xdsl_passes = dict(self.available_passes)
        for name, factory in PASSES.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["c"] = print_c  # the c target's kernels (docs/c-target.md)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR after every pass to stderr, with the pipeline that reproduces it",
        )
        arg_parser.add_argument(
            "--elide-large-constants",
            type=int,
            nargs="?",
            const=ELIDE_DEFAULT,
            metavar="N",
            help=f"print constants of more than N ({ELIDE_DEFAULT}) elements as "
            "dense_resource<__elided__> (for reading; the output does not compile)",
        )
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="list xtvm's passes, then xDSL's, with a description and their options",
        )
        for action in arg_parser._actions:  # xDSL's help describes xDSL's meaning
            if action.dest == "verify_diagnostics":
                action.help = (
                    "check the diagnostics against the input's '// expected-error {{...}}' "
                    "annotations (MLIR's meaning); exit 1 on any difference"
                )
            elif action.dest == "input_file":
                action.help = "input file ('-' or nothing: standard input)"
            elif action.dest == "parsing_diagnostics":  # parse errors are diagnostics like any other
                action.help = argparse.SUPPRESS
            elif action.dest == "passes":
                action.help = (
                    "the pass pipeline, e.g. 'relay-fold-constant,relay-fuse-ops{max-depth=8}' "
                    "(quote option values holding '.' or '/'); --list-passes lists the passes"
                )
            elif action.dest == "frontend":
                action.help = "only 'mlir': xtvm-opt reads MLIR text"

    def setup_pipeline(self) -> None:
        """The -p pipeline; between passes: verify (every failing op), time,
        print (--print-between-passes) and dump (--print-ir-after-all)."""
        done: list[str] = []
        started = time.perf_counter()

        def between(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
            nonlocal started
            if self.args.time_passes and previous is not None:
                print(f"Pass {previous.name} took {time.perf_counter() - started} seconds")
            if not self.args.disable_verify:
                verify_module(module)
            if previous is not None and following is not None and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                self.print_ir(module, sys.stdout)
                print("\n\n")
            if previous is not None and self.args.print_ir_after_all:
                done.append(pass_spec_text(previous))
                print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)
                print(f"// reproduce: xtvm-opt -p '{','.join(done)}'", file=sys.stderr)
                self.print_ir(module, sys.stderr)
            started = time.perf_counter()

        self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, between)

    def get_input_name(self) -> str:
        name = self.args.input_file
        return "<stdin>" if name in (None, "-") else name

    def read_input(self) -> str:
        """The input text (a file, or standard input for '-' or no file)."""
        if self.args.input_file in (None, "-"):
            return sys.stdin.read()
        with open(self.args.input_file, encoding="utf-8") as f:
            return f.read()

    def run(self) -> None:
        """Process every chunk; print its output, or its diagnostics (checked
        against the annotations with --verify-diagnostics). Exit 1 if any
        chunk failed or any diagnostic was not as expected."""
        if self.args.list_passes:
            xdsl_only = {k: v for k, v in self.xdsl_passes.items() if k not in PASSES}
            print(list_passes(PASSES, xdsl_only), end="")
            return
        if self.args.frontend not in (None, "mlir"):
            raise ValueError(f"-f {self.args.frontend}: xtvm-opt reads MLIR text only")
        name = self.get_input_name()
        text = self.read_input()
        chunks = split_input(text) if self.args.split_input_file else [text]
        output = self.prepare_output()
        failed = False
        try:
            for i, chunk in enumerate(chunks):
                if i > 0:
                    output.write("// -----\n")
                diagnostics = self.process_chunk(chunk, name, output)
                if self.args.verify_diagnostics:
                    expected, problems = parse_expectations(chunk, name)
                    problems += check_diagnostics(diagnostics, expected, name)
                else:
                    problems = diagnostics
                for d in problems:
                    print(d.render(), file=sys.stderr)
                failed = failed or bool(problems)
        except ShrinkException:  # --shrink: shrinkray may reduce this input further
            print("Success, can shrink")
            sys.exit(0)
        finally:
            if output is not sys.stdout:
                output.close()
        if self.args.shrink:
            print("Failure, can't shrink")
            sys.exit(1)
        if failed:
            sys.exit(1)

    def print_ir(self, module: ModuleOp, stream: IO[str]) -> None:
        """An IR dump between passes: a whole file, weights included (as
        resource blobs, or elided with --elide-large-constants)."""
        print_module(module, stream, elide_larger_than=self.args.elide_large_constants)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """The module as text through :func:`xtvm.ir.printing.print_module`
        (large constants as resource blobs, or elided); other ``-t`` targets
        as xDSL prints them."""
        if self.args.target != "mlir":
            return super().output_resulting_program(prog)
        out = io.StringIO()
        print_module(
            prog,
            out,
            elide_larger_than=self.args.elide_large_constants,
            print_generic_format=self.args.print_op_generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
        )
        return out.getvalue()

    def process_chunk(self, text: str, name: str, output: IO[str]) -> list[Diagnostic]:
        """Parse, run the pipeline, print the result; or return what went wrong."""
        try:
            module = parse_module(text, name, self.ctx)  # weights' blobs included
        except ParseError as e:
            return [Diagnostic.from_parse_error(e)]
        except RecursionError:
            return [Diagnostic("error", TOO_DEEP, name)]
        try:
            self.apply_passes(module)
        except RecursionError:
            return [Diagnostic("error", TOO_DEEP, name)]
        except InvalidIRError as e:
            return [d.with_source(text) for d in e.diagnostics]
        except ParseError as e:  # a file a pass reads (apply-pdl's patterns)
            return [Diagnostic.from_parse_error(e)]
        except DiagnosticException as e:
            return [failure_diagnostic(module, e, name).with_source(text)]
        output.write(self.output_resulting_program(module))
        output.flush()
        return []


def pass_spec_text(p: ModulePass) -> str:
    """The ``-p`` text of a configured pass, options in kebab-case."""
    spec = p.pipeline_pass_spec()
    return str(type(spec)(spec.name, {k.replace("_", "-"): v for k, v in spec.parameters.items()}))


def summary(cls: type) -> str:
    """The first sentence of a class docstring, on one line ('' for none:
    a dataclass without a docstring gets its signature as one)."""
    doc = (cls.__doc__ or "").strip()
    if doc.startswith(f"{cls.__name__}("):
        return ""
    paragraph = doc.split("\n\n")[0]
    return re.split(r"(?<=\.)\s", " ".join(paragraph.split()), maxsplit=1)[0]


def list_passes(
    xtvm_passes: dict[str, Callable[[], type[ModulePass]]],
    xdsl_passes: dict[str, Callable[[], type[ModulePass]]],
) -> str:
    """``--list-passes``: each pass, its summary and options (``name: type = default``);
    xDSL's passes after xtvm's (an xtvm pass may replace one of the same name)."""
    lines = []
    for title, passes in (("xtvm passes", xtvm_passes), ("xDSL passes", xdsl_passes)):
        lines.append(f"{title}:")
        for name in sorted(passes):
            cls = passes[name]()
            lines.append(f"  {name}  {summary(cls)}".rstrip())
            for option in get_pass_option_infos(cls):
                kind = " | ".join(t.strip() for t in option.expected_type.strip("'\"").split("|"))
                default = "" if option.default_value is None else f" = {option.default_value}"
                lines.append(f"      {option.name.replace('_', '-')}: {kind}{default}")
        lines.append("")
    return "\n".join(lines)


def pipeline_error(e: ArgSpecParseError) -> str:
    """xDSL's pipeline syntax error, with a hint for the usual cause."""
    text = str(e).replace("Error parsing pass pipeline specification:\n", "", 1)
    hint = ""
    if re.search(r"=[^\"'{},\s]*[./]", text.split("\n", 2)[1] if "\n" in text else ""):
        hint = '\nnote: quote option values that hold "." or "/": pdl_file="rules.pdl.mlir"'
    return f"error in the pass pipeline: {text.rstrip()}{hint}"


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``xtvm-opt``; every user error is a message and exit code 1."""
    try:
        XtvmOptMain(description="xtvm modular optimizer driver", args=argv).run()
    except ArgSpecParseError as e:  # a BaseException in xDSL
        print(f"xtvm-opt: {pipeline_error(e)}", file=sys.stderr)
        sys.exit(1)
    except (ValueError, KeyError) as e:  # unknown pass or option
        print(f"xtvm-opt: error: {e}", file=sys.stderr)
        sys.exit(1)
    except OSError as e:
        print(f"xtvm-opt: error: {e.strerror}: {e.filename}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
